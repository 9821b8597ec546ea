/*
 * v1model.p4 -- the v1model architecture (BMv2 simple_switch), as shipped
 * with p4forge.
 *
 * Written for p4forge from BMv2's description of simple_switch.  The names,
 * types, parameter lists and constants are those v1model programs already
 * use, so such programs compile unchanged; the comments are ours.
 *
 * A v1model switch runs, per packet:
 *   Parser -> VerifyChecksum -> Ingress -> (traffic manager: clone,
 *   resubmit, multicast, drop, queue) -> Egress -> ComputeChecksum -> Deparser
 * All six blocks see the same header struct H and user metadata struct M;
 * the parser and both pipelines also see `standard_metadata_t`.
 */

#ifndef _V1_MODEL_P4_
#define _V1_MODEL_P4_

#include <core.p4>

/* Which revision of the v1model interface this file follows.  Programs may
 * test it at compile time with static_assert. */
#ifndef V1MODEL_VERSION
#define V1MODEL_VERSION 20180101
#endif
const bit<32> __v1model_version = V1MODEL_VERSION;

/* Match kinds simple_switch adds to exact/ternary/lpm. */
match_kind {
    range,     // lo <= key <= hi
    optional,  // either exactly this value, or don't care
    selector   // key fields that feed an action_selector's hash
}

/* Per-packet state owned by the architecture.  Fields the switch fills in
 * are read-only in spirit; the ones the program writes steer the traffic
 * manager (egress_spec, mcast_grp, priority). */
struct standard_metadata_t {
    bit<9>  ingress_port;    // port the packet came in on
    bit<9>  egress_spec;     // output port chosen by ingress; 511 drops
    bit<9>  egress_port;     // output port of this copy, set before egress
    bit<32> instance_type;   // normal / clone / resubmit / recirculate / replica
    bit<32> packet_length;   // bytes as received
    bit<32> enq_timestamp;   // microseconds, when queued (egress only)
    bit<19> enq_qdepth;      // queue depth in packets when queued
    bit<32> deq_timedelta;   // microseconds spent in the queue
    bit<19> deq_qdepth;      // queue depth in packets when dequeued
    bit<48> ingress_global_timestamp;  // microseconds since switch start, at ingress
    bit<48> egress_global_timestamp;   // same clock, at start of egress
    bit<16> mcast_grp;       // nonzero: replicate to this multicast group
    bit<16> egress_rid;      // replication id of a multicast copy (egress)
    bit<1>  checksum_error;  // set when verify_checksum found a mismatch
    error   parser_error;    // error.NoError unless the parser failed
    bit<3>  priority;        // queue priority requested by ingress
}

/* What a counter counts. */
enum CounterType {
    packets,
    bytes,
    packets_and_bytes
}

/* What a meter measures. */
enum MeterType {
    packets,
    bytes
}

/* From version 20200408 on, counters, meters and registers take the type
 * of their index as a type argument (I); before, indexes are bit<32>. */

/* An array of `size` counters, indexed from 0. */
#if V1MODEL_VERSION >= 20200408
extern counter<I> {
    counter(bit<32> size, CounterType type);
    void count(in I index);
}
#else
extern counter {
    counter(bit<32> size, CounterType type);
    /* Add this packet to cell `index` (an out-of-range index is ignored). */
    void count(in bit<32> index);
}
#endif

/* One counter per entry of the table that names it in `counters = ...`. */
extern direct_counter {
    direct_counter(CounterType type);
    /* Counting happens whenever the table hits; calling this is optional. */
    void count();
}

/* An array of `size` two-rate three-colour meters.  The colour written to
 * `result` is 0 green, 1 yellow, 2 red. */
#if V1MODEL_VERSION >= 20200408
extern meter<I> {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in I index, out T result);
}
#else
extern meter {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in bit<32> index, out T result);
}
#endif

/* One meter per entry of the table that names it in `meters = ...`. */
extern direct_meter<T> {
    direct_meter(MeterType type);
    /* The colour the hit entry's meter gave this packet. */
    void read(out T result);
}

/* An array of `size` cells of type T that keeps its contents across packets. */
#if V1MODEL_VERSION >= 20200408
extern register<T, I> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in I index);
    void write(in I index, in T value);
}
#else
extern register<T> {
    register(bit<32> size);
    /* Copy cell `index` into `result`. */
    @noSideEffects
    void read(out T result, in bit<32> index);
    /* Store `value` into cell `index`. */
    void write(in bit<32> index, in T value);
}
#endif

/* Shares action entries between tables (`implementation = ...`). */
extern action_profile {
    action_profile(bit<32> size);
}

/* Write a uniformly chosen value between lo and hi (inclusive) to result. */
extern void random<T>(out T result, in T lo, in T hi);

/* Send `data` to the control plane, tagged with `receiver`. */
extern void digest<T>(in bit<32> receiver, in T data);

/* Hash and checksum functions known to the hash/checksum externs. */
enum HashAlgorithm {
    crc32,
    crc32_custom,
    crc16,
    crc16_custom,
    random,
    identity,
    csum16,
    xor16
}

/* Older form that drops the packet without naming the metadata. */
@deprecated("Please use mark_to_drop(standard_metadata) instead.")
extern void mark_to_drop();

/* Drop the packet at the end of this pipeline: sets egress_spec to the drop
 * port (511) and clears mcast_grp. */
@pure
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

/* result = base + (H(data) % max) when max >= 1, else base. */
@pure
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);

/* An action profile whose member is picked by hashing the `selector` keys. */
extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

/* Where a clone is taken: after ingress (I2E) or after egress (E2E). */
enum CloneType {
    I2E,
    E2E
}

/* An older 16-bit checksum unit. */
@deprecated("Please use verify_checksum/update_checksum instead.")
extern Checksum16 {
    Checksum16();
    bit<16> get<D>(in D data);
}

/* When `condition` holds, compute `algo` over `data` and set
 * standard_metadata.checksum_error if the result differs from `checksum`. */
extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

/* When `condition` holds, store `algo` computed over `data` into `checksum`. */
@pure
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/* As verify_checksum, with the unparsed payload appended to `data`. */
extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);

/* As update_checksum, with the unparsed payload appended to `data`. */
@noSideEffects
extern void update_checksum_with_payload<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/* Send the packet through ingress again once ingress ends; `data` names the
 * metadata to keep. */
@deprecated("Please use 'resubmit_preserving_field_list' instead")
extern void resubmit<T>(in T data);

/* Resubmit, keeping the user metadata fields tagged @field_list(index). */
extern void resubmit_preserving_field_list(bit<8> index);

/* Feed the deparsed packet back into the parser once egress ends. */
@deprecated("Please use 'recirculate_preserving_field_list' instead")
extern void recirculate<T>(in T data);

/* Recirculate, keeping the user metadata fields tagged @field_list(index). */
extern void recirculate_preserving_field_list(bit<8> index);

/* Make a copy of the packet for clone session `session`. */
extern void clone(in CloneType type, in bit<32> session);

/* Clone, keeping the metadata named by `data` in the copy. */
@deprecated("Please use 'clone_preserving_field_list' instead")
extern void clone3<T>(in CloneType type, in bit<32> session, in T data);

/* Clone, keeping the user metadata fields tagged @field_list(index). */
extern void clone_preserving_field_list(in CloneType type, in bit<32> session, bit<8> index);

/* Cut the outgoing packet to at most `length` bytes. */
extern void truncate(in bit<32> length);

/* Stop the switch with an error when `check` is false (a program bug). */
extern void assert(in bool check);

/* Tell verification tools that `check` holds; the switch treats it like assert. */
extern void assume(in bool check);

/* Write a message to the switch log. */
extern void log_msg(string msg);
/* Write a message with `{}` placeholders replaced by the members of `data`. */
extern void log_msg<T>(string msg, in T data);

/* The six programmable blocks of the pipeline. */
parser Parser<H, M>(packet_in b,
                    out H parsedHdr,
                    inout M meta,
                    inout standard_metadata_t standard_metadata);

control VerifyChecksum<H, M>(inout H hdr,
                             inout M meta);

@pipeline
control Ingress<H, M>(inout H hdr,
                      inout M meta,
                      inout standard_metadata_t standard_metadata);

@pipeline
control Egress<H, M>(inout H hdr,
                     inout M meta,
                     inout standard_metadata_t standard_metadata);

control ComputeChecksum<H, M>(inout H hdr,
                              inout M meta);

@deparser
control Deparser<H>(packet_out b, in H hdr);

/* The switch itself: instantiate it as `main`. */
package V1Switch<H, M>(Parser<H, M> p,
                       VerifyChecksum<H, M> vr,
                       Ingress<H, M> ig,
                       Egress<H, M> eg,
                       ComputeChecksum<H, M> ck,
                       Deparser<H> dep);

#endif  /* _V1_MODEL_P4_ */
