#!/usr/bin/env bash
# Live program swap in `p4forge switch` (see netns.sh): while a 64-byte UDP stream runs from h1 to
# h2 through l2l3, the switch is told `swap PROG ENTRIES` twice on its standard input: to a
# different program (l2l3 decrementing the TTL by 2) and back. The same stream runs first without
# swaps, as the reference. Checks every swap is answered, iperf3 counts no datagram lost or out of
# order across the swaps, and the switch sent every frame it took in and dropped none. Prints what
# the receiver counted each time and when each program took over. Needs root, ip, iperf3.
# Usage: tests/live/swap.sh [path/to/p4forge] [packets/s (20000)] [seconds (4)]
set -euo pipefail
source "$(dirname "$0")/netns.sh"
rate=${2:-20000}
seconds=${3:-4}

variant="$log/l2l3_ttl2.p4"
sed 's/hdr.ipv4.ttl = hdr.ipv4.ttl - 1;/hdr.ipv4.ttl = hdr.ipv4.ttl - 2;/' "$root/examples/l2l3/l2l3.p4" > "$variant"
grep -q "hdr.ipv4.ttl - 2;" "$variant" || fail "could not make the TTL-2 variant of l2l3.p4"
entries="$root/examples/l2l3/entries.txt"

# swap N PROG: sends command line N and waits (10 s at most) for its answer.
swap() {
    echo "swap $2 $entries" >&3
    for _ in $(seq 1 100); do
        grep -q "^stdin:$1: " "$log/switch.err" && break
        sleep 0.1
    done
    grep "^stdin:$1: " "$log/switch.err" | grep -q "swapped to $2 after" || fail "swap $1 to $2 was not answered 'swapped to'"
    grep "^stdin:$1: " "$log/switch.err"
}

# stream SWAPS: the stream through a fresh switch, swapping twice if SWAPS is 1; sets $lost.
stream() {
    rm -f "$log/commands" "$log/switch.out" "$log/switch.err"
    # The switch reads its commands from a FIFO held open here (so it never sees the end of input).
    mkfifo "$log/commands"
    exec 3<> "$log/commands"
    ip netns exec "$sw" "$p4forge" switch "$root/examples/l2l3/l2l3.p4" --entries "$entries" \
        --port 1=p1 --port 2=p2 --io packet < "$log/commands" > "$log/switch.out" 2> "$log/switch.err" &
    switch_pid=$!
    for _ in $(seq 1 100); do grep -q "^switching" "$log/switch.err" 2>/dev/null && break; sleep 0.1; done
    grep -q "^switching" "$log/switch.err" || fail "p4forge switch did not start"
    # As the switch starts it may see p1 go down and up once (the veth's carrier settling).
    sleep 2
    ip netns exec "$h2" iperf3 -s -1 -B 10.1.2.10 > "$log/iperf-server.out" 2>&1 &
    local server=$!
    sleep 0.5
    ip netns exec "$h1" iperf3 -c 10.1.2.10 -u -l 64 -b $((rate * 64 * 8)) -t "$seconds" > "$log/iperf.out" 2>&1 &
    local client=$!
    if [ "$1" = 1 ]; then
        sleep 1; swap 1 "$variant"
        sleep 1; swap 2 "$root/examples/l2l3/l2l3.p4"
    fi
    wait "$client" || { cat "$log/iperf.out" >&2; fail "iperf3 client"; }
    wait "$server" || true
    kill -INT "$switch_pid"; local status=0; wait "$switch_pid" || status=$?; switch_pid=""
    exec 3>&-
    [ "$status" = 130 ] || fail "p4forge switch exited $status on Ctrl-C (130 expected)"
    local receiver; receiver=$(grep receiver "$log/iperf.out" | tail -n 1)
    echo "$receiver"
    # "... LOST/TOTAL (PCT%)  receiver".
    lost=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) { split($i, n, "/"); print n[1] } }' <<< "$receiver")
    ! grep -qi "out-of-order" "$log/iperf-server.out" || { grep -i "out-of-order" "$log/iperf-server.out" >&2; fail "datagrams out of order"; }
    # Every frame the switch took in went out (the stream, and iperf3's control connection).
    local total_in total_out
    total_in=$(awk '$1 == "total" { print $2 }' "$log/switch.out"); total_out=$(awk '$1 == "total" { print $4 }' "$log/switch.out")
    [ -n "$total_in" ] && [ "$total_in" = "$total_out" ] || fail "the switch took $total_in frames and sent $total_out"
    grep -qx "dropped: 0" "$log/switch.out" || fail "the switch dropped frames"
    echo "switch: $total_in frames in, $total_out out, none dropped"
}

echo "--- without swaps: 64-byte UDP at $rate packets/s for $seconds s ---"
stream 0
echo "--- with two swaps, the same stream ---"
stream 1
[ "$lost" = 0 ] || fail "$lost datagrams lost across the swaps"
echo "swap: PASS"
