#!/usr/bin/env bash
# Throughput of `p4forge switch` l2l3 between network namespaces (see netns.sh), by --io mode.
# Each round runs every mode in turn, so the modes share whatever else loads the machine:
#   TCP:  iperf3 -c 10.1.2.10 -t SECONDS                 (h1 -> h2; receiver Gb/s)
#   UDP:  iperf3 -c 10.1.2.10 -u -l 64 -b 0 -t SECONDS   (64-byte payloads, 106-byte frames, as fast
#         as the sender can; packets/s that reached h2, and the switch process's CPU time per
#         packet that reached h2)
# Prints one line per mode and test, then the medians. Needs root, ip, iperf3.
# Modes: an --io of p4forge switch, or `linux`: no switch, the namespace's own IPv4 forwarding
# between the same ports (the reference). PROGRAM and ENTRIES choose the switch's program.
# Usage: tests/live/bench.sh [path/to/p4forge] [rounds (3)] [seconds (5)] [modes ("packet xdp")]
set -euo pipefail
source "$(dirname "$0")/netns.sh"
rounds=${2:-3}
seconds=${3:-5}
modes=${4:-packet xdp}

# iperf3 IO ARGS...: one transfer h1 -> h2 through the switch; prints iperf3's receiver line.
iperf() {
    local io=$1; shift
    ip netns exec "$h2" iperf3 -s -1 -B 10.1.2.10 > "$log/iperf-server.out" 2>&1 &
    local server=$!
    sleep 0.5
    ip netns exec "$h1" iperf3 -c 10.1.2.10 -t "$seconds" "$@" > "$log/iperf.out" 2>&1 || { cat "$log/iperf.out" >&2; fail "iperf3 $* (--io $io)"; }
    wait "$server" || true
    grep -E "receiver" "$log/iperf.out" | tail -n 1
}

# cpu_ticks PID: user + system CPU time of process PID so far, in clock ticks (/proc/PID/stat
# fields 14 and 15, counted after the parenthesised command name, which may hold spaces).
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
# The running switch's CPU ticks (0 without one).
switch_cpu() { if [ -n "$switch_pid" ]; then cpu_ticks "$switch_pid"; else echo 0; fi; }

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

for round in $(seq 1 "$rounds"); do
    for io in $modes; do
        if [ "$io" = linux ]; then
            # No switch process: the kernel forwards in softirq context.
            linux_forwarding on
        else
            start_switch "$io" || fail "p4forge switch --io $io did not start"
        fi
        tcp=$(iperf "$io")
        gbps=$(awk '{ for (i = 1; i < NF; i++) if ($(i + 1) == "Gbits/sec") print $i; else if ($(i + 1) == "Mbits/sec") print $i / 1000 }' <<< "$tcp")
        cpu_before=$(switch_cpu)
        udp=$(iperf "$io" -u -l 64 -b 0)
        cpu_after=$(switch_cpu)
        # "... jitter ms  LOST/TOTAL (PCT%)  receiver": packets that arrived, per second.
        pps=$(awk -v s="$seconds" '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) { split($i, n, "/"); printf "%d\n", (n[2] - n[1]) / s } }' <<< "$udp")
        # The switch's own CPU time (user + system) per UDP packet delivered: what each packet costs
        # it, which other load on the machine changes less than the rates.
        ns_per_packet=$(awk -v t=$((cpu_after - cpu_before)) -v hz="$(getconf CLK_TCK)" -v p="$pps" -v s="$seconds" 'BEGIN { printf "%d\n", t / hz * 1e9 / (p * s) }')
        if [ "$io" = linux ]; then
            linux_forwarding off
        else
            kill -INT "$switch_pid"; status=0; wait "$switch_pid" || status=$?; switch_pid=""
            [ "$status" = 130 ] || fail "p4forge switch --io $io exited $status on Ctrl-C (130 expected)"
        fi
        [ "$io" = linux ] && ns_per_packet="n/a"
        echo "round $round  --io $io  TCP $gbps Gb/s  UDP-64 $pps packets/s received, switch CPU $ns_per_packet ns per packet   [$udp]"
        echo "$gbps" >> "$log/tcp-$io"; echo "$pps" >> "$log/udp-$io"; [ "$io" = linux ] || echo "$ns_per_packet" >> "$log/cpu-$io"
    done
done
for io in $modes; do
    cpu="n/a"; [ -s "$log/cpu-$io" ] && cpu=$(median < "$log/cpu-$io")
    echo "median --io $io: TCP $(median < "$log/tcp-$io") Gb/s, UDP 64-byte $(median < "$log/udp-$io") packets/s at $cpu ns of switch CPU each (over $rounds rounds of ${seconds} s)"
done
