#!/usr/bin/env bash
# Lint and synthesis gate for one generated design:
#   scripts/check_rtl.sh CELLO_BIN CONFIG.json OUT_DIR
# Generates the RTL, runs `verilator --lint-only -Wall` on every generated module
# (any warning fails), then synthesises each one with Yosys and fails on latches.
set -euo pipefail
cello=$1 config=$2 out=$3
rm -rf "$out"
"$cello" gen --config "$config" --out "$out" --json "$out.gen.json" >/dev/null
mapfile -t tops < <(grep -o '"module": *"[^"]*"' "$out/manifest.json" | sed 's/.*"module": *"\([^"]*\)"/\1/')
[ ${#tops[@]} -gt 0 ] || { echo "check_rtl: $config generated no blocks"; exit 1; }
for top in "${tops[@]}"; do
  if ! verilator --lint-only -Wall -f "$out/files.f" --top-module "$top" >"$out/$top.lint.log" 2>&1; then
    echo "check_rtl: lint failed for $top ($config):"; cat "$out/$top.lint.log"; exit 1
  fi
  files=$(tr '\n' ' ' <"$out/files.f")
  if ! yosys -q -l "$out/$top.yosys.log" -p "read_verilog -sv $files; hierarchy -check -top $top; synth -top $top; select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr t:\$_DLATCH_* t:\$_DLATCHSR_* t:\$_SR_*; stat" >/dev/null 2>&1; then
    echo "check_rtl: yosys failed or inferred a latch for $top ($config):"; tail -20 "$out/$top.yosys.log"; exit 1
  fi
  cells=$(grep -E "^ +Number of cells:" "$out/$top.yosys.log" | tail -1 | awk '{print $4}')
  echo "check_rtl: $top lint clean, synthesised without latches ($cells cells)"
done
