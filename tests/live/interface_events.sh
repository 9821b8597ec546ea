#!/usr/bin/env bash
# Live test of what happens to `p4forge switch` ports when their interfaces change under it, and
# of interfaces being held by one switch only (see netns.sh for the topology). For each kind of
# socket (--io packet, then --io xdp where the kernel offers it):
# - an interface set down costs the switch no CPU while it waits (no spinning on poll), and once
#   it is up again the first frame through is forwarded;
# - an interface deleted stops the switch with an error naming it;
# - a second switch on an interface the first holds is refused with the reason, whichever kinds.
# - (AF_XDP) frames too long for its frames after the MTU is raised are counted as kernel drops.
# And `--port 1=p1 --port 2=p1` is refused before anything opens. Needs root, ip and ping.
# Usage: tests/live/interface_events.sh [path/to/p4forge]
set -euo pipefail
source "$(dirname "$0")/netns.sh"

# cpu_ticks PID: the process's user + system time in clock ticks.
cpu_ticks() {
    awk '{ print $14 + $15 }' "/proc/$1/stat"
}

events() {
    local io=$1
    ip netns exec "$h1" ping -c 1 -W 2 10.1.2.10 > /dev/null || fail "ping before the interface events (--io $io)"

    # Another switch on an interface this one holds: refused, whichever kind it asks for.
    for other in packet xdp; do
        # (accepted, it would run until `timeout` stops it)
        if ip netns exec "$sw" timeout 3 "$p4forge" switch "$root/examples/l2l3/l2l3.p4" --port 1=p1 --io "$other" < /dev/null 2> "$log/second.err"; then
            fail "a second switch (--io $other) on p1 started while an --io $io switch holds it"
        fi
        grep -q "p1 is already a port of another p4forge switch" "$log/second.err" \
            || { cat "$log/second.err" >&2; fail "a second switch (--io $other) on p1: unexpected error"; }
    done

    ip -n "$sw" link set p1 down
    sleep 0.2
    local before after ticks
    before=$(cpu_ticks "$switch_pid")
    sleep 1
    after=$(cpu_ticks "$switch_pid")
    ticks=$((after - before))
    # 100 ticks a second: a spinning switch takes about 100.
    [ "$ticks" -le 10 ] || fail "the switch used $ticks ticks of CPU in 1 s while p1 was down (--io $io)"
    grep -q "interface p1 (port 1) went down" "$log/switch.err" || fail "the switch did not say that p1 went down (--io $io)"
    ip -n "$sw" link set p1 up
    sleep 0.5
    ip netns exec "$h1" ping -c 1 -W 2 10.1.2.10 > /dev/null || fail "the first ping after p1 came back up was lost (--io $io)"
    echo "--- --io $io: p1 down: $ticks ticks of CPU in 1 s; up again: the first ping answered ---"

    ip -n "$sw" link del p1
    local status=0
    for _ in $(seq 1 40); do
        kill -0 "$switch_pid" 2>/dev/null || break
        sleep 0.05
    done
    wait "$switch_pid" || status=$?
    switch_pid=""
    [ "$status" != 0 ] || fail "the switch went on after p1 was deleted (--io $io)"
    grep -q "interface p1 (port 1) is gone" "$log/switch.err" || fail "the switch did not say p1 is gone (--io $io)"
    echo "--- --io $io: p1 deleted: the switch stopped, exit $status: $(grep "is gone" "$log/switch.err") ---"
    # Back for the next pass.
    host "$h1" 10.1.1.10/24 00:00:00:00:00:01 p1 10.1.1.1
}

# mtu_drops: an AF_XDP port's frames are 2048 bytes; after its interface's MTU is raised, longer
# frames are dropped by the kernel before the switch sees them. The summary counts them with the
# reason (the switch is stopped by this, with Ctrl-C).
mtu_drops() {
    ip -n "$sw" link set p1 mtu 3000
    ip -n "$h1" link set h0 mtu 3000
    if ip netns exec "$h1" ping -c 3 -i 0.2 -W 1 -s 2500 10.1.2.10 > /dev/null; then
        fail "a 2542-byte frame crossed an AF_XDP port of 2048-byte frames"
    fi
    kill -INT "$switch_pid"
    wait "$switch_pid" || true
    switch_pid=""
    local line
    line=$(grep "port 1 (p1), in the kernel: longer than an AF_XDP frame" "$log/switch.out") \
        || fail "the frames the kernel dropped after the MTU change are not in the summary"
    echo "--- --io xdp: MTU raised to 3000: the summary says $(echo "$line" | tr -s ' ') ---"
    ip -n "$sw" link set p1 mtu 1500
    ip -n "$h1" link set h0 mtu 1500
}

if ip netns exec "$sw" timeout 3 "$p4forge" switch "$root/examples/l2l3/l2l3.p4" --port 1=p1 --port 2=p1 < /dev/null 2> "$log/twice.err"; then
    fail "--port 1=p1 --port 2=p1 was accepted"
fi
grep -q "p1 is given twice" "$log/twice.err" || { cat "$log/twice.err" >&2; fail "--port 1=p1 --port 2=p1: unexpected error"; }

start_switch packet || fail "p4forge switch --io packet did not start"
events packet
if start_switch xdp; then
    mtu_drops
    start_switch xdp || fail "p4forge switch --io xdp did not start again"
    events xdp
else
    why=$(grep -v "^warning" "$log/switch.err" | tail -n 1)
    [ "${P4FORGE_LIVE_XDP:-}" = required ] && fail "AF_XDP ports did not open: $why"
    echo "--- AF_XDP pass skipped: $why ---"
fi
echo "interface events: PASS"
