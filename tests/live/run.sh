#!/usr/bin/env bash
# Live test of `p4forge switch`: the l2l3 router between two network namespaces.
#
#   h1 (10.1.1.10/24, MAC 00:00:00:00:00:01) --veth-- [p4sw: port 1 | p4forge switch l2l3 | port 2] --veth-- h2 (10.1.2.10/24, MAC ..:02)
#
# Both hosts use the router MAC 00:00:00:00:01:00 as their gateway (static neighbour entries, so no
# ARP is needed); examples/l2l3/entries.txt routes 10.1.0.0/16 to port 1 and 10.1.2.0/24 to port 2.
# Runs ping both ways and a TCP transfer with iperf3, prints iperf3's summary, first with AF_PACKET
# ports (--io packet), then with AF_XDP ports (--io xdp) where the kernel offers them (skipped with
# the reason otherwise); checks no XDP program stays attached; cleans up, and exits non-zero on any
# failure. Needs root (namespaces, veth, raw sockets), ip, ping and iperf3.
# Usage: tests/live/run.sh [path/to/p4forge]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
p4forge=${1:-$root/target/release/p4forge}
tag="p4f$$"
h1="$tag-h1"; h2="$tag-h2"; sw="$tag-sw"
log=$(mktemp -d)
switch_pid=""

if [ "$(id -u)" != 0 ]; then
    echo "tests/live/run.sh: needs root (network namespaces, veth pairs, raw sockets)" >&2
    exit 1
fi
for tool in ip ping iperf3; do
    command -v "$tool" >/dev/null || { echo "tests/live/run.sh: $tool is missing (apt-get install -y iproute2 iputils-ping iperf3)" >&2; exit 1; }
done

cleanup() {
    if [ -n "$switch_pid" ] && kill -0 "$switch_pid" 2>/dev/null; then
        kill -INT "$switch_pid" 2>/dev/null || true
        wait "$switch_pid" 2>/dev/null || true
    fi
    for ns in "$h1" "$h2" "$sw"; do ip netns del "$ns" 2>/dev/null || true; done
    rm -rf "$log"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*" >&2
    echo "--- switch output ---" >&2
    cat "$log/switch.out" "$log/switch.err" >&2 2>/dev/null || true
    exit 1
}

for ns in "$h1" "$h2" "$sw"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done

# host NAME IFADDR MAC SWITCH-PORT-NAME GATEWAY
host() {
    local ns=$1 addr=$2 mac=$3 port=$4 gateway=$5
    ip link add h0 netns "$ns" type veth peer name "$port" netns "$sw"
    ip -n "$ns" link set h0 address "$mac"
    ip -n "$ns" addr add "$addr" dev h0
    ip -n "$ns" link set h0 up
    ip -n "$ns" route add default via "$gateway"
    ip -n "$ns" neigh replace "$gateway" lladdr 00:00:00:00:01:00 dev h0 nud permanent
    ip -n "$sw" link set "$port" up
    # Whole frames with real checksums: no segmentation or checksum offload across the raw sockets.
    if command -v ethtool >/dev/null; then
        ip netns exec "$ns" ethtool -K h0 tx off tso off gso off >/dev/null 2>&1 || true
        ip netns exec "$sw" ethtool -K "$port" rx off tx off gro off gso off tso off >/dev/null 2>&1 || true
    fi
}
host "$h1" 10.1.1.10/24 00:00:00:00:00:01 p1 10.1.1.1
host "$h2" 10.1.2.10/24 00:00:00:00:00:02 p2 10.1.2.1

# start_switch IO: runs p4forge switch with --io IO in the background; returns non-zero (with its
# stderr in $log/switch.err) if it exits before saying it is switching.
start_switch() {
    ip netns exec "$sw" "$p4forge" switch "$root/examples/l2l3/l2l3.p4" --entries "$root/examples/l2l3/entries.txt" \
        --port 1=p1 --port 2=p2 --io "$1" < /dev/null > "$log/switch.out" 2> "$log/switch.err" &
    switch_pid=$!
    for _ in $(seq 1 100); do
        grep -q "^switching" "$log/switch.err" 2>/dev/null && return 0
        kill -0 "$switch_pid" 2>/dev/null || { wait "$switch_pid" || true; switch_pid=""; return 1; }
        sleep 0.1
    done
    grep -q "^switching" "$log/switch.err"
}

# traffic IO: ping both ways and an iperf3 TCP transfer through the running switch, then Ctrl-C it.
traffic() {
    local io=$1
    ip netns exec "$h1" ping -c 3 -W 2 10.1.2.10 || fail "ping h1 -> h2 (--io $io)"
    ip netns exec "$h2" ping -c 3 -W 2 10.1.1.10 || fail "ping h2 -> h1 (--io $io)"

    ip netns exec "$h2" iperf3 -s -1 -B 10.1.2.10 > "$log/iperf-server.out" 2>&1 &
    server_pid=$!
    sleep 0.5
    ip netns exec "$h1" iperf3 -c 10.1.2.10 -t 3 > "$log/iperf.out" 2>&1 || { cat "$log/iperf.out"; fail "iperf3 TCP transfer h1 -> h2 (--io $io)"; }
    wait "$server_pid" || true
    echo "--- iperf3 (TCP, h1 -> h2 through p4forge switch l2l3, --io $io) ---"
    grep -E "sender|receiver" "$log/iperf.out"

    kill -INT "$switch_pid"
    wait "$switch_pid" || fail "p4forge switch --io $io did not stop cleanly on Ctrl-C"
    switch_pid=""
    echo "--- p4forge switch summary (--io $io) ---"
    cat "$log/switch.out"
    if ip -n "$sw" link show | grep -q xdp; then
        ip -n "$sw" link show >&2
        fail "an XDP program is still attached after the switch stopped (--io $io)"
    fi
}

start_switch packet || fail "p4forge switch --io packet did not start"
traffic packet

# AF_XDP where this kernel offers it: the same traffic again. A switch that cannot open AF_XDP
# ports says why and the pass is skipped (P4FORGE_LIVE_XDP=required makes that a failure).
if start_switch xdp; then
    grep -q "(AF_XDP)" "$log/switch.err" || fail "--io xdp did not open AF_XDP ports"
    traffic xdp
else
    why=$(grep -v "^warning" "$log/switch.err" | tail -n 1)
    [ "${P4FORGE_LIVE_XDP:-}" = required ] && fail "AF_XDP ports did not open: $why"
    echo "--- AF_XDP pass skipped: $why ---"
fi
echo "live test: PASS"
