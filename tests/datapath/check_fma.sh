#!/usr/bin/env bash
# Lint and synthesis gate for the hand-written fp32 FMA primitive at one depth:
#   tests/datapath/check_fma.sh RTL_DIR STAGES OUT_DIR
# verilator --lint-only -Wall must be silent for fp32_fma and fp32_fma_rv, and
# Yosys must synthesise fp32_fma_rv without latches.
set -euo pipefail
rtl=$1 stages=$2 out=$3
mkdir -p "$out"
files="$rtl/fp32_fma.sv $rtl/fp32_fma_rv.sv"
for top in fp32_fma fp32_fma_rv; do
  if ! verilator --lint-only -Wall -GSTAGES="$stages" --top-module "$top" $files >"$out/$top.lint.log" 2>&1; then
    echo "check_fma: lint failed for $top STAGES=$stages:"; cat "$out/$top.lint.log"; exit 1
  fi
done
if ! yosys -q -l "$out/yosys.log" -p "read_verilog -sv $files; chparam -set STAGES $stages fp32_fma_rv; hierarchy -check -top fp32_fma_rv; synth -top fp32_fma_rv; select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr t:\$_DLATCH_* t:\$_DLATCHSR_* t:\$_SR_*; stat" >/dev/null 2>&1; then
  echo "check_fma: yosys failed or inferred a latch (STAGES=$stages):"; tail -20 "$out/yosys.log"; exit 1
fi
cells=$(grep -E "^ +Number of cells:" "$out/yosys.log" | tail -1 | awk '{print $4}')
echo "check_fma: STAGES=$stages lint clean, synthesised without latches ($cells cells)"
