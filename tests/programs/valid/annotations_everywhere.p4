// Annotations in every place the grammar allows them: unstructured, with expression
// lists, with key-value lists, and the well-known @name, @hidden, @atomic, @priority.
#include <core.p4>
#include <v1model.p4>

@description("one header") header h_t {
    @flexible bit<8> a;
    bit<8> b;
}
struct headers_t { h_t h; }
@my_tool[version = 2, mode = "fast"]
struct meta_t {
    @field_list(1, 2) bit<8> m;
}

@parser_tag[1, 2, 3]
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    @name(".start_state") state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    @name("counter_of_a") register<bit<8>>(4) r;
    @hidden action nop() { }
    @name("set_b") action set_b(@name("value") bit<8> v) {
        hdr.h.b = v;
    }
    table t {
        key = { hdr.h.a: ternary @name("a_key"); }
        actions = { set_b; @defaultonly nop; }
        const entries = {
            @priority(10) 0x01 &&& 0xFF : set_b(1);
            @priority(20) _ : set_b(2);
        }
        default_action = nop();
        @my_property size = 16;
    }
    apply {
        @atomic {
            bit<8> v;
            r.read(v, 0);
            r.write(0, v + 1);
        }
        t.apply();
        sm.egress_spec = 1;
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control CC(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), CC(), D()) main;
