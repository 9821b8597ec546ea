// A serializable enum indexes a stack through its underlying type (p4c accepts it).
#include <core.p4>
#include <v1model.p4>
enum bit<1> Slot { FIRST = 0, SECOND = 1 }
header h_t { bit<8> a; bit<1> which; bit<7> pad; }
struct headers_t { h_t h; h_t[2] more; }
struct meta_t { }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}
control VC(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        Slot s = (Slot)hdr.h.which;
        hdr.more[s].a = hdr.h.a;
        hdr.more[Slot.SECOND].setInvalid();
    }
}
V1Switch(P(), VC(), I(), E(), VC(), D()) main;
