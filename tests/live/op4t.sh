#!/usr/bin/env bash
# OP4T-SST in `p4forge switch` on live ports (see netns.sh): port 1 (h1) cross-connected to port 2
# (h2), UDP to h2 a stream of interest. h1 sends numbered datagrams straight to h2's MAC; the
# switch stamps t1 (the kernel's receive time of the frame, on the switch's clock) and leaves room
# for t2, which it writes as it sends the frame. h2 receives `t2 | t1 | payload` as the datagram's
# data and checks every datagram came, in order, with 0 < t2 - t1 < 1 s; prints the distribution.
# Needs root, ip, python3.
# Usage: tests/live/op4t.sh [path/to/p4forge] [datagrams (1000)]
set -euo pipefail
source "$(dirname "$0")/netns.sh"
count=${2:-1000}
command -v python3 >/dev/null || fail "python3 is missing"

# h1 reaches h2 directly (the SST program does not route): h2's MAC for its address, on-link.
ip -n "$h1" route add 10.1.2.10/32 dev h0
ip -n "$h1" neigh replace 10.1.2.10 lladdr 00:00:00:00:00:02 dev h0 nud permanent
cat > "$log/entries.txt" <<ENTRIES
table_add SstProcessor.port_map SstProcessor.forward 1 => 2
table_add SstProcessor.ts_streams SstProcessor.ts 10.1.2.10/32 =>
ENTRIES
ip netns exec "$sw" "$p4forge" switch "$root/examples/op4t-sst/sst.p4" --entries "$log/entries.txt" \
    --port 1=p1 --port 2=p2 --io packet < /dev/null > "$log/switch.out" 2> "$log/switch.err" &
switch_pid=$!
for _ in $(seq 1 100); do grep -q "^switching" "$log/switch.err" 2>/dev/null && break; sleep 0.1; done
grep -q "^switching" "$log/switch.err" || fail "p4forge switch did not start"

ip netns exec "$h2" python3 - "$count" > "$log/receiver.out" 2>&1 <<'PY' &
import socket, struct, sys, statistics
count = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.1.2.10", 5678))
s.settimeout(5)
ns = lambda t: (t >> 10) * 1000 + (t & 1023)
latencies, numbers = [], []
try:
    while len(numbers) < count:
        data = s.recv(2048)
        t2, t1, n = struct.unpack("!QQI", data[:20])
        latencies.append(ns(t2) - ns(t1))
        numbers.append(n)
except socket.timeout:
    pass
print(f"received {len(numbers)} of {count}")
if numbers != list(range(count)):
    print("FAIL: datagrams missing or out of order"); sys.exit(1)
bad = [l for l in latencies if not 0 < l < 1_000_000_000]
if bad:
    print(f"FAIL: t2 - t1 outside (0, 1 s): {bad[:5]}"); sys.exit(1)
q = statistics.quantiles(latencies, n=100)
print(f"t2 - t1 (ns): min {min(latencies)}, median {statistics.median(latencies):.0f}, 99th percentile {q[98]:.0f}, max {max(latencies)}")
PY
receiver=$!
# The switch may see p1 go down and up once as it starts (the veth's carrier settling), and reads
# nothing from a down port meanwhile: the stream starts once that is over.
sleep 2
ip netns exec "$h1" python3 - "$count" <<'PY'
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for n in range(int(sys.argv[1])):
    s.sendto(struct.pack("!I", n) + bytes(28), ("10.1.2.10", 5678))
    time.sleep(0.0005)
PY
status=0; wait "$receiver" || status=$?
kill -INT "$switch_pid"; wait "$switch_pid" || true; switch_pid=""
cat "$log/receiver.out"
[ "$status" = 0 ] || fail "the receiver on h2"
echo "op4t: PASS"
