// A small self-contained architecture used by the parser tests.
#ifndef ARCH_P4
#define ARCH_P4

error { NoError, PacketTooShort, NoMatch, StackOutOfBounds }
match_kind { exact, ternary, lpm }

extern packet_in {
    void extract<T>(out T hdr);
    void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);
    T lookahead<T>();
    void advance(in bit<32> sizeInBits);
    bit<32> length();
}

extern packet_out {
    void emit<T>(in T hdr);
}

extern void verify(in bool check, in error toSignal);

action NoAction() {}

struct standard_metadata_t {
    bit<9> ingress_port;
    bit<9> egress_spec;
    @alias("queueing_metadata.enq_timestamp") bit<32> enq_timestamp;
}

extern counter<I> {
    counter(bit<32> size, CounterType type);
    void count(in I index);
}

enum CounterType { packets, bytes, packets_and_bytes }

extern register<T, I> {
    register(bit<32> size);
    @noSideEffects void read(out T result, in I index);
    void write(in I index, in T value);
}

extern Hash<O> {
    Hash(HashAlgorithm algo);
    O get<D>(in D data);
}

enum HashAlgorithm { crc32, identity }

extern void mark_to_drop(inout standard_metadata_t standard_metadata);

parser Parser<H, M>(packet_in b, out H parsedHdr, inout M meta, inout standard_metadata_t standard_metadata);
control Ingress<H, M>(inout H hdr, inout M meta, inout standard_metadata_t standard_metadata);
control Deparser<H>(packet_out b, in H hdr);

package Switch<H, M>(Parser<H, M> p, Ingress<H, M> ig, Deparser<H> dep);

#endif
