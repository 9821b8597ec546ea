/*
 * psa.p4 -- the Portable Switch Architecture (PSA, version 1.1), as shipped
 * with p4forge.
 *
 * Written for p4forge from the PSA specification.  The names, types,
 * parameter lists and constants are those PSA programs already use, so such
 * programs compile unchanged; the comments are ours.  Port, multicast group,
 * clone session and timestamp widths are those of the software switches
 * (32-bit ports).
 *
 * Included as <dpdk/psa.p4>, PSA_ON_DPDK is defined and the counters and
 * meters also take the packet length as an argument, as the DPDK target's
 * programs pass it.
 *
 * A PSA switch runs two pipelines around its traffic manager:
 *   IngressParser -> Ingress -> IngressDeparser
 *     -> (packet replication engine: clone I2E, drop, resubmit, multicast,
 *         unicast)
 *   EgressParser -> Egress -> EgressDeparser
 *     -> (clone E2E, drop, recirculate, out of the port)
 * Each pipeline has its own header and metadata structs; between them the
 * packet is deparsed and parsed again.  What one pipeline hands the next
 * (normal, clone, resubmit and recirculate metadata) is written by a
 * deparser's `out` parameter and read by a parser's `in` parameter.
 */

#ifndef __PSA_P4__
#define __PSA_P4__

#include <core.p4>

/* Which revision of the PSA interface this file follows. */
#ifndef PSA_VERSION
#define PSA_VERSION 0x0101
#endif

/* The widths the switch uses inside its pipelines ... */
typedef bit<32> PortIdUint_t;
typedef bit<32> MulticastGroupUint_t;
typedef bit<16> CloneSessionIdUint_t;
typedef bit<8>  ClassOfServiceUint_t;
typedef bit<16> PacketLengthUint_t;
typedef bit<16> EgressInstanceUint_t;
typedef bit<64> TimestampUint_t;

/* ... as distinct types, so that a port is not mixed up with a session id.
 * The control plane sees them under the names given here. */
@p4runtime_translation("p4.org/psa/v1/PortId_t", 32)
type PortIdUint_t PortId_t;
@p4runtime_translation("p4.org/psa/v1/MulticastGroup_t", 32)
type MulticastGroupUint_t MulticastGroup_t;
@p4runtime_translation("p4.org/psa/v1/CloneSessionId_t", 16)
type CloneSessionIdUint_t CloneSessionId_t;
@p4runtime_translation("p4.org/psa/v1/ClassOfService_t", 8)
type ClassOfServiceUint_t ClassOfService_t;
@p4runtime_translation("p4.org/psa/v1/PacketLength_t", 16)
type PacketLengthUint_t PacketLength_t;
@p4runtime_translation("p4.org/psa/v1/EgressInstance_t", 16)
type EgressInstanceUint_t EgressInstance_t;
@p4runtime_translation("p4.org/psa/v1/Timestamp_t", 64)
type TimestampUint_t Timestamp_t;

typedef error ParserError_t;

/* Packets sent to this port go back into the ingress parser. */
const PortId_t PSA_PORT_RECIRCULATE = (PortId_t) 0xfffffffa;
/* The port of the control plane's CPU. */
const PortId_t PSA_PORT_CPU = (PortId_t) 0xfffffffd;
/* The clone session that sends copies to the CPU port. */
const CloneSessionId_t PSA_CLONE_SESSION_TO_CPU = (CloneSessionId_t) 0;

/* The same values as carried in packet headers (to and from the CPU): fixed
 * widths that do not depend on the target. */
typedef bit<32> PortIdInHeaderUint_t;
typedef bit<32> MulticastGroupInHeaderUint_t;
typedef bit<16> CloneSessionIdInHeaderUint_t;
typedef bit<8>  ClassOfServiceInHeaderUint_t;
typedef bit<16> PacketLengthInHeaderUint_t;
typedef bit<16> EgressInstanceInHeaderUint_t;
typedef bit<64> TimestampInHeaderUint_t;

@p4runtime_translation("p4.org/psa/v1/PortIdInHeader_t", 32)
type PortIdInHeaderUint_t PortIdInHeader_t;
@p4runtime_translation("p4.org/psa/v1/MulticastGroupInHeader_t", 32)
type MulticastGroupInHeaderUint_t MulticastGroupInHeader_t;
@p4runtime_translation("p4.org/psa/v1/CloneSessionIdInHeader_t", 16)
type CloneSessionIdInHeaderUint_t CloneSessionIdInHeader_t;
@p4runtime_translation("p4.org/psa/v1/ClassOfServiceInHeader_t", 8)
type ClassOfServiceInHeaderUint_t ClassOfServiceInHeader_t;
@p4runtime_translation("p4.org/psa/v1/PacketLengthInHeader_t", 16)
type PacketLengthInHeaderUint_t PacketLengthInHeader_t;
@p4runtime_translation("p4.org/psa/v1/EgressInstanceInHeader_t", 16)
type EgressInstanceInHeaderUint_t EgressInstanceInHeader_t;
@p4runtime_translation("p4.org/psa/v1/TimestampInHeader_t", 64)
type TimestampInHeaderUint_t TimestampInHeader_t;

/* Conversions between the in-header and the in-pipeline forms. */
PortId_t psa_PortId_header_to_int(in PortIdInHeader_t x) {
    return (PortId_t) (PortIdUint_t) (PortIdInHeaderUint_t) x;
}
MulticastGroup_t psa_MulticastGroup_header_to_int(in MulticastGroupInHeader_t x) {
    return (MulticastGroup_t) (MulticastGroupUint_t) (MulticastGroupInHeaderUint_t) x;
}
CloneSessionId_t psa_CloneSessionId_header_to_int(in CloneSessionIdInHeader_t x) {
    return (CloneSessionId_t) (CloneSessionIdUint_t) (CloneSessionIdInHeaderUint_t) x;
}
ClassOfService_t psa_ClassOfService_header_to_int(in ClassOfServiceInHeader_t x) {
    return (ClassOfService_t) (ClassOfServiceUint_t) (ClassOfServiceInHeaderUint_t) x;
}
PacketLength_t psa_PacketLength_header_to_int(in PacketLengthInHeader_t x) {
    return (PacketLength_t) (PacketLengthUint_t) (PacketLengthInHeaderUint_t) x;
}
EgressInstance_t psa_EgressInstance_header_to_int(in EgressInstanceInHeader_t x) {
    return (EgressInstance_t) (EgressInstanceUint_t) (EgressInstanceInHeaderUint_t) x;
}
Timestamp_t psa_Timestamp_header_to_int(in TimestampInHeader_t x) {
    return (Timestamp_t) (TimestampUint_t) (TimestampInHeaderUint_t) x;
}
PortIdInHeader_t psa_PortId_int_to_header(in PortId_t x) {
    return (PortIdInHeader_t) (PortIdInHeaderUint_t) (PortIdUint_t) x;
}
MulticastGroupInHeader_t psa_MulticastGroup_int_to_header(in MulticastGroup_t x) {
    return (MulticastGroupInHeader_t) (MulticastGroupInHeaderUint_t) (MulticastGroupUint_t) x;
}
CloneSessionIdInHeader_t psa_CloneSessionId_int_to_header(in CloneSessionId_t x) {
    return (CloneSessionIdInHeader_t) (CloneSessionIdInHeaderUint_t) (CloneSessionIdUint_t) x;
}
ClassOfServiceInHeader_t psa_ClassOfService_int_to_header(in ClassOfService_t x) {
    return (ClassOfServiceInHeader_t) (ClassOfServiceInHeaderUint_t) (ClassOfServiceUint_t) x;
}
PacketLengthInHeader_t psa_PacketLength_int_to_header(in PacketLength_t x) {
    return (PacketLengthInHeader_t) (PacketLengthInHeaderUint_t) (PacketLengthUint_t) x;
}
EgressInstanceInHeader_t psa_EgressInstance_int_to_header(in EgressInstance_t x) {
    return (EgressInstanceInHeader_t) (EgressInstanceInHeaderUint_t) (EgressInstanceUint_t) x;
}
TimestampInHeader_t psa_Timestamp_int_to_header(in Timestamp_t x) {
    return (TimestampInHeader_t) (TimestampInHeaderUint_t) (TimestampUint_t) x;
}

/* The value of a table's `psa_idle_timeout` property. */
enum PSA_IdleTimeout_t {
    NO_TIMEOUT,
    NOTIFY_CONTROL
}

/* Why a packet is in a pipeline. */
enum PSA_PacketPath_t {
    NORMAL,            // arrived from a port
    NORMAL_UNICAST,    // egress: the one copy ingress sent to a port
    NORMAL_MULTICAST,  // egress: a copy of a multicast group
    CLONE_I2E,         // egress: a clone made after ingress
    CLONE_E2E,         // egress: a clone made after egress
    RESUBMIT,          // ingress: sent back by the ingress before it
    RECIRCULATE        // ingress: sent back by egress to PSA_PORT_RECIRCULATE
}

/* What the switch tells each block. */
struct psa_ingress_parser_input_metadata_t {
    PortId_t         ingress_port;
    PSA_PacketPath_t packet_path;
}

struct psa_egress_parser_input_metadata_t {
    PortId_t         egress_port;
    PSA_PacketPath_t packet_path;
}

struct psa_ingress_input_metadata_t {
    PortId_t         ingress_port;
    PSA_PacketPath_t packet_path;
    Timestamp_t      ingress_timestamp;
    ParserError_t    parser_error;     // error.NoError unless the parser failed
}

/* What ingress asks of the traffic manager.  Before ingress: drop true, the
 * flags false, class of service and multicast group 0. */
struct psa_ingress_output_metadata_t {
    ClassOfService_t class_of_service;
    bool             clone;             // make a clone for clone_session_id
    CloneSessionId_t clone_session_id;
    bool             drop;              // wins over everything but clone
    bool             resubmit;          // back into ingress, unchanged
    MulticastGroup_t multicast_group;   // nonzero: a copy per group member
    PortId_t         egress_port;       // otherwise: one copy to this port
}

struct psa_egress_input_metadata_t {
    ClassOfService_t class_of_service;
    PortId_t         egress_port;
    PSA_PacketPath_t packet_path;
    EgressInstance_t instance;          // the replication id of this copy
    Timestamp_t      egress_timestamp;
    ParserError_t    parser_error;
}

struct psa_egress_deparser_input_metadata_t {
    PortId_t egress_port;
}

/* What egress asks for.  Before egress: all false. */
struct psa_egress_output_metadata_t {
    bool             clone;
    CloneSessionId_t clone_session_id;
    bool             drop;
}

/* Match kinds PSA adds to exact/ternary/lpm. */
match_kind {
    range,     // lo <= key <= hi
    selector,  // key fields that feed an ActionSelector's hash
    optional   // either exactly this value, or don't care
}

/* The usual endings of ingress and egress. */
action send_to_port(inout psa_ingress_output_metadata_t meta, in PortId_t egress_port) {
    meta.drop = false;
    meta.multicast_group = (MulticastGroup_t) 0;
    meta.egress_port = egress_port;
}

action multicast(inout psa_ingress_output_metadata_t meta, in MulticastGroup_t multicast_group) {
    meta.drop = false;
    meta.multicast_group = multicast_group;
}

action ingress_drop(inout psa_ingress_output_metadata_t meta) {
    meta.drop = true;
}

action egress_drop(inout psa_egress_output_metadata_t meta) {
    meta.drop = true;
}

/* The traffic manager's two parts, named as arguments of PSA_Switch. */
extern PacketReplicationEngine {
    PacketReplicationEngine();
}

extern BufferingQueueingEngine {
    BufferingQueueingEngine();
}

/* Hash and checksum functions known to Hash, Checksum and ActionSelector. */
enum PSA_HashAlgorithm_t {
    IDENTITY,
    CRC32,
    CRC32_CUSTOM,
    CRC16,
    CRC16_CUSTOM,
    ONES_COMPLEMENT16,  // the Internet checksum
    TARGET_DEFAULT
}

extern Hash<O> {
    Hash(PSA_HashAlgorithm_t algo);
    /* The hash of `data`. */
    O get_hash<D>(in D data);
    /* base + (hash of `data`) % max. */
    O get_hash<T, D>(in T base, in D data, in T max);
}

/* A checksum computed over data given in pieces. */
extern Checksum<W> {
    Checksum(PSA_HashAlgorithm_t hash);
    void clear();
    void update<T>(in T data);
    W get();
}

/* The Internet checksum, which can also take data out again (for updates of
 * a few fields). */
extern InternetChecksum {
    InternetChecksum();
    void clear();
    void add<T>(in T data);
    void subtract<T>(in T data);
    bit<16> get();
    bit<16> get_state();
    void set_state(in bit<16> checksum_state);
}

/* What a counter counts. */
enum PSA_CounterType_t {
    PACKETS,
    BYTES,
    PACKETS_AND_BYTES
}

/* An array of n_counters counters of width W, indexed by S. */
@noWarn("unused")
extern Counter<W, S> {
    Counter(bit<32> n_counters, PSA_CounterType_t type);
    /* Add this packet to cell `index` (an out-of-range index is ignored). */
    void count(in S index);
#ifdef PSA_ON_DPDK
    void count(in S index, in bit<32> pkt_len);
#endif
}

/* One counter per entry of the table that names it in `psa_direct_counter`. */
@noWarn("unused")
extern DirectCounter<W> {
    DirectCounter(PSA_CounterType_t type);
    void count();
#ifdef PSA_ON_DPDK
    void count(in bit<32> pkt_len);
#endif
}

/* What a meter measures, and the colours it gives. */
enum PSA_MeterType_t {
    PACKETS,
    BYTES
}

enum PSA_MeterColor_t {
    RED,
    GREEN,
    YELLOW
}

/* An array of n_meters two-rate three-colour meters. */
extern Meter<S> {
    Meter(bit<32> n_meters, PSA_MeterType_t type);
    /* Colour-aware: the packet arrives already coloured `color`. */
    PSA_MeterColor_t execute(in S index, in PSA_MeterColor_t color);
    PSA_MeterColor_t execute(in S index);
#ifdef PSA_ON_DPDK
    /* The packet length given rather than taken from the packet. */
    PSA_MeterColor_t execute(in S index, in PSA_MeterColor_t color, in bit<32> pkt_len);
    PSA_MeterColor_t dpdk_execute(in S index, in PSA_MeterColor_t color, in bit<32> pkt_len);
    PSA_MeterColor_t dpdk_execute(in S index, in bit<32> pkt_len);
#endif
}

/* One meter per entry of the table that names it in `psa_direct_meter`. */
extern DirectMeter {
    DirectMeter(PSA_MeterType_t type);
    PSA_MeterColor_t execute(in PSA_MeterColor_t color);
    PSA_MeterColor_t execute();
#ifdef PSA_ON_DPDK
    PSA_MeterColor_t dpdk_execute(in PSA_MeterColor_t color, in bit<32> pkt_len);
    PSA_MeterColor_t dpdk_execute(in bit<32> pkt_len);
#endif
}

/* An array of `size` cells of type T, indexed by S, that keeps its contents
 * across packets; every cell starts as `initial_value` (or 0). */
extern Register<T, S> {
    Register(bit<32> size);
    Register(bit<32> size, T initial_value);
    T read(in S index);
    void write(in S index, in T value);
}

/* A uniformly chosen value between min and max (inclusive). */
extern Random<T> {
    Random(T min, T max);
    T read();
}

/* Shares action entries between tables (`psa_implementation = ...`). */
extern ActionProfile {
    ActionProfile(bit<32> size);
}

/* An action profile whose member is picked by hashing the `selector` keys. */
extern ActionSelector {
    ActionSelector(PSA_HashAlgorithm_t algo, bit<32> size, bit<32> outputWidth);
}

/* Send `data` to the control plane. */
extern Digest<T> {
    Digest();
    void pack(in T data);
}

/* What the deparsers ask: is there a clone, a resubmission, a normal copy,
 * a recirculation to emit metadata for? */
bool psa_clone_i2e(in psa_ingress_output_metadata_t istd) {
    return istd.clone;
}

bool psa_resubmit(in psa_ingress_output_metadata_t istd) {
    return !istd.drop && istd.resubmit;
}

bool psa_normal(in psa_ingress_output_metadata_t istd) {
    return !istd.drop && !istd.resubmit;
}

bool psa_clone_e2e(in psa_egress_output_metadata_t istd) {
    return istd.clone;
}

bool psa_recirculate(in psa_egress_output_metadata_t istd, in psa_egress_deparser_input_metadata_t edstd) {
    return !istd.drop && edstd.egress_port == PSA_PORT_RECIRCULATE;
}

/* Stop the switch with an error when `check` is false (a program bug). */
extern void assert(in bool check);

/* Tell verification tools that `check` holds; the switch treats it like assert. */
extern void assume(in bool check);

/* The six programmable blocks. */
parser IngressParser<H, M, RESUBM, RECIRCM>(
    packet_in buffer,
    out H parsed_hdr,
    inout M user_meta,
    in psa_ingress_parser_input_metadata_t istd,
    in RESUBM resubmit_meta,
    in RECIRCM recirculate_meta);

control Ingress<H, M>(
    inout H hdr,
    inout M user_meta,
    in psa_ingress_input_metadata_t istd,
    inout psa_ingress_output_metadata_t ostd);

control IngressDeparser<H, M, CI2EM, RESUBM, NM>(
    packet_out buffer,
    out CI2EM clone_i2e_meta,
    out RESUBM resubmit_meta,
    out NM normal_meta,
    inout H hdr,
    in M meta,
    in psa_ingress_output_metadata_t istd);

parser EgressParser<H, M, NM, CI2EM, CE2EM>(
    packet_in buffer,
    out H parsed_hdr,
    inout M user_meta,
    in psa_egress_parser_input_metadata_t istd,
    in NM normal_meta,
    in CI2EM clone_i2e_meta,
    in CE2EM clone_e2e_meta);

control Egress<H, M>(
    inout H hdr,
    inout M user_meta,
    in psa_egress_input_metadata_t istd,
    inout psa_egress_output_metadata_t ostd);

control EgressDeparser<H, M, CE2EM, RECIRCM>(
    packet_out buffer,
    out CE2EM clone_e2e_meta,
    out RECIRCM recirculate_meta,
    inout H hdr,
    in M meta,
    in psa_egress_output_metadata_t istd,
    in psa_egress_deparser_input_metadata_t edstd);

package IngressPipeline<IH, IM, NM, CI2EM, RESUBM, RECIRCM>(
    IngressParser<IH, IM, RESUBM, RECIRCM> ip,
    Ingress<IH, IM> ig,
    IngressDeparser<IH, IM, CI2EM, RESUBM, NM> id);

package EgressPipeline<EH, EM, NM, CI2EM, CE2EM, RECIRCM>(
    EgressParser<EH, EM, NM, CI2EM, CE2EM> ep,
    Egress<EH, EM> eg,
    EgressDeparser<EH, EM, CE2EM, RECIRCM> ed);

/* The switch itself: instantiate it as `main`. */
package PSA_Switch<IH, IM, EH, EM, NM, CI2EM, CE2EM, RESUBM, RECIRCM>(
    IngressPipeline<IH, IM, NM, CI2EM, RESUBM, RECIRCM> ingress,
    PacketReplicationEngine pre,
    EgressPipeline<EH, EM, NM, CI2EM, CE2EM, RECIRCM> egress,
    BufferingQueueingEngine bqe);

#endif  /* __PSA_P4__ */
