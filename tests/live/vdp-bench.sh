#!/usr/bin/env bash
# The VDP software path on live ports against plain Linux forwarding between the same namespaces:
# examples/vdp/vdp.p4 on the software target with the software path's entries of
# examples/vdp/live-tenants.txt (two VDPs routing h1 and h2 to each other, both moved to software),
# and the switch namespace's own IPv4 forwarding, in alternating rounds (tests/live/bench.sh).
# Usage: tests/live/vdp-bench.sh [path/to/p4forge] [rounds (3)] [seconds (5)] [modes ("packet linux")]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
p4forge=${1:-$root/target/release/p4forge}
entries=$(mktemp)
trap 'rm -f "$entries"' EXIT
"$p4forge" vdp "$root/examples/vdp/vdp.p4" "$root/examples/vdp/live-tenants.txt" --software-out "$entries" > /dev/null
PROGRAM="$root/examples/vdp/vdp.p4" ENTRIES="$entries" "$here/bench.sh" "$p4forge" "${2:-3}" "${3:-5}" "${4:-packet linux}"
