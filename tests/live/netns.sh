# Shared by tests/live/run.sh and tests/live/bench.sh (sourced, not run): two hosts in network
# namespaces joined through a third namespace where `p4forge switch` runs l2l3 on veth pairs:
#
#   h1 (10.1.1.10/24, MAC 00:00:00:00:00:01) --veth-- [p4sw: port 1 | p4forge switch l2l3 | port 2] --veth-- h2 (10.1.2.10/24, MAC ..:02)
#
# Both hosts use the router MAC 00:00:00:00:01:00 as their gateway (static neighbour entries, so no
# ARP is needed); examples/l2l3/entries.txt routes 10.1.0.0/16 to port 1 and 10.1.2.0/24 to port 2.
# Sets $p4forge (the first argument of the script, or target/release/p4forge), $h1 $h2 $sw
# (namespaces), $log (a scratch directory), fail, start_switch and linux_forwarding; everything is
# removed on exit.
script=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
p4forge=${1:-$root/target/release/p4forge}
tag="p4f$$"
h1="$tag-h1"; h2="$tag-h2"; sw="$tag-sw"
log=$(mktemp -d)
switch_pid=""

if [ "$(id -u)" != 0 ]; then
    echo "$script: needs root (network namespaces, veth pairs, raw sockets)" >&2
    exit 1
fi
for tool in ip ping iperf3; do
    command -v "$tool" >/dev/null || { echo "$script: $tool is missing (apt-get install -y iproute2 iputils-ping iperf3)" >&2; exit 1; }
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

# The program the switch runs and its entries ($PROGRAM and $ENTRIES, l2l3 by default): any that
# routes h1's and h2's subnets as l2l3's entries do.
program=${PROGRAM:-$root/examples/l2l3/l2l3.p4}
entries=${ENTRIES:-$root/examples/l2l3/entries.txt}

# linux_forwarding on|off: the switch namespace routes between p1 and p2 itself (addresses, the
# router MAC, static neighbours, IPv4 forwarding), or not at all (so that it never forwards a
# frame beside a p4forge switch on the same ports).
linux_forwarding() {
    if [ "$1" = on ]; then
        ip -n "$sw" link set p1 address 00:00:00:00:01:00
        ip -n "$sw" link set p2 address 00:00:00:00:01:00
        ip -n "$sw" addr add 10.1.1.1/24 dev p1
        ip -n "$sw" addr add 10.1.2.1/24 dev p2
        ip -n "$sw" neigh replace 10.1.1.10 lladdr 00:00:00:00:00:01 dev p1 nud permanent
        ip -n "$sw" neigh replace 10.1.2.10 lladdr 00:00:00:00:00:02 dev p2 nud permanent
        ip netns exec "$sw" sysctl -qw net.ipv4.ip_forward=1
    else
        ip netns exec "$sw" sysctl -qw net.ipv4.ip_forward=0
        ip -n "$sw" addr flush dev p1
        ip -n "$sw" addr flush dev p2
    fi
}

# start_switch IO: runs p4forge switch with --io IO in the background; returns non-zero (with its
# stderr in $log/switch.err) if it exits before saying it is switching.
start_switch() {
    # The previous run's output must not be read as this one's (the redirections below happen in
    # the background, possibly after the first look at the file).
    rm -f "$log/switch.out" "$log/switch.err"
    ip netns exec "$sw" "$p4forge" switch "$program" --entries "$entries" \
        --port 1=p1 --port 2=p2 --io "$1" < /dev/null > "$log/switch.out" 2> "$log/switch.err" &
    switch_pid=$!
    for _ in $(seq 1 100); do
        grep -q "^switching" "$log/switch.err" 2>/dev/null && return 0
        kill -0 "$switch_pid" 2>/dev/null || { wait "$switch_pid" || true; switch_pid=""; return 1; }
        sleep 0.1
    done
    grep -q "^switching" "$log/switch.err"
}

