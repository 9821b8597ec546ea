// Annotations on enum members (accepted by p4c), on key elements after the match kind, on
// entries after the action, on action-list items and table properties, on parameters, and on
// block and for statements.
#include <core.p4>
#include <v1model.p4>
enum Mode { @first A, @second("x") B }
enum bit<8> Code { @low LOW = 1, @high[level = 2] HIGH = 2 }
header h_t { bit<8> a; bit<8> b; }
struct headers_t { h_t h; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control I(inout headers_t hdr, @meta_param inout meta_t meta, inout standard_metadata_t sm) {
    action set(@value bit<8> v) { hdr.h.a = v; }
    table t {
        key = { hdr.h.a : exact @key_a; hdr.h.b : ternary @key_b("b"); }
        actions = { @on_set set; @on_noaction NoAction; }
        @sized size = 16;
        @fixed const entries = { (1, 2 &&& 3) : set(2) @first_entry; }
        @dflt default_action = NoAction();
    }
    apply {
        @grouped { hdr.h.b = (bit<8>)Code.HIGH; }
        @unrolled for (bit<8> i = 0; i < 2; i = i + 1) { hdr.h.a = hdr.h.a + i; }
        Mode m = Mode.A;
        if (m == Mode.B) { hdr.h.b = 0; }
        t.apply();
    }
}
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
