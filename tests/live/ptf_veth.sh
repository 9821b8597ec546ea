#!/usr/bin/env bash
# PTF in its default (veth) mode against `p4forge switch --p4runtime`: the PTF tests of
# tests/p4runtime/ptf send and sniff frames on veth interfaces whose peers are the switch's ports,
# and drive the switch over P4Runtime (pushing the program, writing entries), as they would run
# against BMv2's simple_switch_grpc. One network namespace holds both ends of three veth pairs
# (t1-s1, t2-s2, t4-s4: PTF's ports 1, 2 and 4 are the switch's ports 1, 2 and 4) and the switch's
# P4Runtime port on its loopback; IPv6 is off there, so the kernel sends nothing PTF would see.
# Needs root, ip, and .venv-p4rt-ptf (make tools-p4rt). Exits non-zero on any failure.
# Usage: tests/live/ptf_veth.sh [path/to/p4forge]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
p4forge=${1:-$root/target/release/p4forge}
python=$root/.venv-p4rt-ptf/bin/python
ns="p4f$$-ptf"
log=$(mktemp -d)
switch_pid=""

if [ "$(id -u)" != 0 ]; then echo "ptf_veth.sh: needs root (a network namespace, veth pairs, raw sockets)" >&2; exit 1; fi
[ -x "$python" ] || { echo "ptf_veth.sh: $python is missing (make tools-p4rt)" >&2; exit 1; }

cleanup() {
    if [ -n "$switch_pid" ] && kill -0 "$switch_pid" 2>/dev/null; then kill -INT "$switch_pid"; wait "$switch_pid" 2>/dev/null || true; fi
    ip netns del "$ns" 2>/dev/null || true
    rm -rf "$log"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; cat "$log/switch.err" "$log/ptf.err" >&2 2>/dev/null || true; exit 1; }

ip netns add "$ns"
ip -n "$ns" link set lo up
ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
for p in 1 2 4; do
    ip -n "$ns" link add "t$p" type veth peer name "s$p"
    ip -n "$ns" link set "t$p" up
    ip -n "$ns" link set "s$p" up
done

program=$root/crates/p4forge/tests/fixtures/p4runtime_tables.p4
"$p4forge" compile "$program" --p4runtime-files "$log/p4info.txt"
ip netns exec "$ns" "$p4forge" switch --p4runtime 127.0.0.1:0 --port 1=s1 --port 2=s2 --port 4=s4 --io packet \
    < /dev/null > "$log/switch.out" 2> "$log/switch.err" &
switch_pid=$!
for _ in $(seq 100); do grep -q "^P4Runtime" "$log/switch.err" 2>/dev/null && break; sleep 0.1; done
addr=$(sed -n 's/^P4Runtime [0-9.]* on //p' "$log/switch.err")
[ -n "$addr" ] || fail "the switch did not start its P4Runtime server"

cd "$log"
ip netns exec "$ns" "$python" "$root/.venv-p4rt-ptf/bin/ptf" --test-dir "$root/tests/p4runtime/ptf" \
    --interface 0-1@t1 --interface 0-2@t2 --interface 0-4@t4 \
    --test-params "grpc_addr='$addr';p4info='$log/p4info.txt';config='$program'" > "$log/ptf.out" 2> "$log/ptf.err" \
    || fail "ptf in veth mode"
grep -q "Ran 2 tests" "$log/ptf.err" && grep -q "^OK" "$log/ptf.err" || fail "ptf did not run both tests"
grep -E "\.\.\. ok$" "$log/ptf.err"
echo "ptf_veth.sh: PTF in veth mode passed against p4forge switch --p4runtime"
