#!/bin/sh
# Fills the (gitignored) seed corpora from the repository's own files, so fuzzing starts from real
# programs and real packets. Run from fuzz/: ./seed-corpus.sh
set -eu
cd "$(dirname "$0")"
mkdir -p corpus/frontend corpus/packet
for f in $(find ../examples ../tests/programs ../tests/stf ../p4include ../crates/p4-syntax/tests -name '*.p4' 2>/dev/null); do
    cp "$f" "corpus/frontend/$(echo "$f" | sed 's|^\.\./||; s|/|_|g')"
done
# Packet seeds: every packet of the examples' STF files, with the selector byte naming its example
# and ingress port (see src/packet_harness.rs: bits 0-1 example, bits 2-5 port, bit 7 structured).
idx=0
for example in l2l3 mdp paxos; do
    grep -i '^[[:space:]]*packet[[:space:]]' "../examples/$example/$example.stf" | while read -r _ port hex; do
        hex=$(echo "$hex" | tr -cd '0-9a-fA-F')
        [ -n "$hex" ] || continue
        sel=$(printf '%02x' $(( idx | ((port & 15) << 2) )))
        printf '%s%s' "$sel" "$hex" | xxd -r -p > "corpus/packet/$example-$(printf '%s' "$sel$hex" | cksum | cut -d' ' -f1)"
    done
    idx=$((idx + 1))
done
printf '\x80' > corpus/packet/structured-l2l3
printf '\x81\x00\x00\x00\x01' > corpus/packet/structured-mdp
printf '\x82\x00' > corpus/packet/structured-paxos
echo "corpus/frontend: $(ls corpus/frontend | wc -l) files; corpus/packet: $(ls corpus/packet | wc -l) files"
