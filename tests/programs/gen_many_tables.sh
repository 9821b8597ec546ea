#!/usr/bin/env bash
# Prints a v1model program with N tables (default 10000) in one ingress control, for measuring
# `p4forge compile --emit cfg` on large programs:
#   tests/programs/gen_many_tables.sh 10000 > /tmp/t10k.p4
#   /usr/bin/time -v p4forge compile --emit cfg -I p4include /tmp/t10k.p4 > /tmp/t10k.cfg
# Every table writes the same metadata fields (each pair of tables conflicts), and every other
# apply sits under an `if`, so both the dependency list and the block graph are exercised.
set -euo pipefail
n=${1:-10000}
cat <<'P4'
#include <core.p4>
#include <v1model.p4>
header ethernet_t { bit<48> dst; bit<48> src; bit<16> etherType; }
struct headers_t { ethernet_t ethernet; }
struct meta_t { bit<16> count; bit<8> class; }
parser P(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    state start { pkt.extract(hdr.ethernet); transition accept; }
}
control NoCk(inout headers_t hdr, inout meta_t meta) { apply { } }
control E(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.ethernet); } }
control I(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t std) {
    action fwd(bit<9> port) { std.egress_spec = port; meta.count = meta.count + 1; }
    action classify(bit<8> c) { meta.class = c; }
P4
for ((i = 0; i < n; i++)); do
    echo "    table t$i { key = { hdr.ethernet.dst: exact; meta.class: ternary; } actions = { fwd; classify; NoAction; } default_action = NoAction(); }"
done
echo "    apply {"
for ((i = 0; i < n; i++)); do
    if ((i % 2)); then
        echo "        if (hdr.ethernet.etherType == $((i % 65536))) { t$i.apply(); }"
    else
        echo "        t$i.apply();"
    fi
done
cat <<'P4'
    }
}
V1Switch(P(), NoCk(), I(), E(), NoCk(), D()) main;
P4
