#!/usr/bin/env bash
# Live test of `p4forge switch`: the l2l3 router between two network namespaces (see netns.sh).
#
# Runs ping both ways and a TCP transfer with iperf3, prints iperf3's summary, first with AF_PACKET
# ports (--io packet), then with AF_XDP ports (--io xdp) where the kernel offers them (skipped with
# the reason otherwise); checks no XDP program stays attached after Ctrl-C or SIGKILL and that a
# second switch on the same interface is refused; runs pings through the switch under valgrind
# memcheck (errors fatal) on both kinds of port; cleans up, and exits non-zero on any failure. Needs root (namespaces, veth, raw sockets), ip, ping and iperf3.
# Usage: tests/live/run.sh [path/to/p4forge]
set -euo pipefail
source "$(dirname "$0")/netns.sh"

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
    local status=0
    wait "$switch_pid" || status=$?
    [ "$status" = 130 ] || fail "p4forge switch --io $io exited $status on Ctrl-C (130 expected)"
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
    xdp_ok=1
    # A second switch on the same interfaces is refused with the reason, not half-attached.
    if ip netns exec "$sw" "$p4forge" switch "$root/examples/l2l3/l2l3.p4" --port 1=p1 --io xdp < /dev/null 2> "$log/second.err"; then
        fail "a second --io xdp switch on p1 started"
    fi
    grep -q "p1 is already a port of another p4forge switch" "$log/second.err" || { cat "$log/second.err" >&2; fail "a second --io xdp switch on p1: unexpected error"; }
    traffic xdp
    # Killed outright, the switch leaves no XDP program behind either (its link descriptor closes).
    start_switch xdp || fail "--io xdp did not start again"
    kill -KILL "$switch_pid"; wait "$switch_pid" 2>/dev/null || true; switch_pid=""
    sleep 0.2
    if ip -n "$sw" link show | grep -q xdp; then fail "an XDP program is still attached after SIGKILL"; fi
    echo "--- AF_XDP: a second switch on the same interface is refused; nothing stays attached after SIGKILL ---"
else
    why=$(grep -v "^warning" "$log/switch.err" | tail -n 1)
    [ "${P4FORGE_LIVE_XDP:-}" = required ] && fail "AF_XDP ports did not open: $why"
    echo "--- AF_XDP pass skipped: $why ---"
fi

# The port code under valgrind memcheck, every error fatal (exit 99): the rings, UMEM frames and
# descriptors of AF_XDP (where the kernel offers it) and AF_PACKET while pings go through. (memcheck
# does not know BPF_LINK_CREATE and says so; the link's descriptor is all the switch reads back.)
if command -v valgrind >/dev/null; then
    for io in xdp packet; do
        [ "$io" = xdp ] && [ -z "${xdp_ok:-}" ] && continue
        rm -f "$log/switch.out" "$log/switch.err"
        ip netns exec "$sw" valgrind --tool=memcheck --error-exitcode=99 --leak-check=no -q "$p4forge" switch "$root/examples/l2l3/l2l3.p4" --entries "$root/examples/l2l3/entries.txt" \
            --port 1=p1 --port 2=p2 --io "$io" < /dev/null > "$log/switch.out" 2> "$log/switch.err" &
        switch_pid=$!
        for _ in $(seq 1 300); do grep -q "^switching" "$log/switch.err" 2>/dev/null && break; sleep 0.1; done
        grep -q "^switching" "$log/switch.err" || fail "p4forge switch --io $io did not start under valgrind"
        ip netns exec "$h1" ping -c 200 -i 0.002 -q -W 3 10.1.2.10 > /dev/null || fail "ping h1 -> h2 under valgrind (--io $io)"
        ip netns exec "$h2" ping -c 200 -i 0.002 -q -W 3 10.1.1.10 > /dev/null || fail "ping h2 -> h1 under valgrind (--io $io)"
        kill -INT "$switch_pid"
        status=0
        wait "$switch_pid" || status=$?
        switch_pid=""
        [ "$status" = 130 ] || fail "p4forge switch --io $io under valgrind exited $status (130 expected; 99: memcheck found errors)"
        grep -q " total         800 " "$log/switch.out" || fail "under valgrind (--io $io): not every ping went through"
        echo "--- valgrind memcheck: p4forge switch --io $io, 800 frames, no error ---"
    done
elif [ "${CI:-}" = true ]; then
    fail "valgrind is missing (apt-get install -y valgrind)"
else
    echo "--- valgrind pass skipped: valgrind is missing (apt-get install -y valgrind) ---"
fi
echo "live test: PASS"
