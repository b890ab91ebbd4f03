#!/usr/bin/env bash
# Lint and synthesis gate.
#   scripts/check_rtl.sh CELLO_BIN CONFIG.json OUT_DIR [REGEX]
#                                     generate a config, check every block (or those whose module name matches REGEX)
#   scripts/check_rtl.sh --sv FILE.sv TOP                 check one hand-written module
# Each module must pass `verilator --lint-only -Wall` with no warning at all, and
# Yosys must synthesise it without inferring a latch.
# CELLO_GATE_SYNTH=coarse stops Yosys after the coarse-grain passes (elaboration,
# processes, latch inference, memories, FSMs, arithmetic) and skips technology
# mapping and ABC, which take 15x as long on the top's engine, and skips `share`
# (merging of exclusive multipliers and shifters: an area optimisation that
# cannot add or remove a latch, and 60% of the coarse time of the engine). The
# top's extra configs use it; each module is mapped in full, `share` included,
# on at least one config.
# CELLO_GATE_COARSE=REGEX does the same for the modules whose name matches REGEX
# (the default config's 8-lane engine; the 2x2 config maps its engine in full).
# Lint reads a block's whole hierarchy. Yosys reads the design's *other* blocks
# as blackboxes (read_verilog -lib): each block is synthesised once, by its own
# check, so the composed top synthesises its own logic (registers, the register
# port, the events) and not the whole accelerator a second time.
set -euo pipefail

check_top() {  # check_top FILELIST TOP LOGDIR LABEL [BLACKBOX_FILE...]
  local filelist=$1 top=$2 logs=$3 label=$4
  local blackboxes=("${@:5}")
  if ! verilator --lint-only -Wall -f "$filelist" --top-module "$top" >"$logs/$top.lint.log" 2>&1; then
    echo "check_rtl: lint failed for $top ($label):"; cat "$logs/$top.lint.log"; return 1
  fi
  local files="" lib="" synth="synth -top $top" f
  while read -r f; do
    [[ " ${blackboxes[*]} " == *" $f "* ]] || files+="$f "
  done <"$filelist"
  [ ${#blackboxes[@]} -gt 0 ] && lib="read_verilog -sv -lib ${blackboxes[*]};"
  local mode=${CELLO_GATE_SYNTH:-full}
  [[ -n "${CELLO_GATE_COARSE:-}" && "$top" =~ ${CELLO_GATE_COARSE} ]] && mode=coarse
  [ "$mode" = coarse ] && synth="synth -noshare -run begin:fine -top $top"
  if ! yosys -q -l "$logs/$top.yosys.log" -p "$lib read_verilog -sv $files; hierarchy -check -top $top; $synth; select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr t:\$_DLATCH_* t:\$_DLATCHSR_* t:\$_SR_*; stat" >/dev/null 2>&1; then
    echo "check_rtl: yosys failed or inferred a latch for $top ($label):"; grep -iE "error|latch|assert" "$logs/$top.yosys.log" | tail -5; return 1
  fi
  local cells
  cells=$(grep -E "^ +Number of cells:" "$logs/$top.yosys.log" | tail -1 | awk '{print $4}')
  echo "check_rtl: $top lint clean, synthesised ($mode) without latches ($cells cells)"
}

if [ "${1:-}" = "--sv" ]; then
  file=$(readlink -f "$2") top=$3
  logs=$(mktemp -d)
  echo "$file" >"$logs/files.f"
  check_top "$logs/files.f" "$top" "$logs" "$file"
  exit
fi

cello=$1 config=$2 out=$3 only=${4:-}
rm -rf "$out"
"$cello" gen --config "$config" --out "$out" >/dev/null
mapfile -t tops < <(grep -o '"module": *"[^"]*"' "$out/manifest.json" | sed 's/.*"module": *"\([^"]*\)"/\1/')
[ ${#tops[@]} -gt 0 ] || { echo "check_rtl: $config generated no blocks"; exit 1; }
for top in "${tops[@]}"; do
  if [ -n "$only" ] && ! [[ $top =~ $only ]]; then continue; fi
  others=()
  for block in "${tops[@]}"; do
    if [ "$block" != "$top" ] && grep -qx "$out/$block.sv" "$out/files.f"; then others+=("$out/$block.sv"); fi
  done
  check_top "$out/files.f" "$top" "$out" "$config" "${others[@]}"
done
