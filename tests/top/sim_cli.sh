#!/usr/bin/env bash
# `cello sim` end to end (docs/sim.md).
#   sim_cli.sh CELLO WORKDIR prebuilt        CG N=1 and N=4 on the default top's prebuilt simulator:
#                                             PASS, report, counters CSV, Matrix Market dump
#   sim_cli.sh CELLO WORKDIR runtime CONFIG  a config the build did not verilate: the simulator is
#                                             built into the cache once, then reused; CONFIG is
#                                             CHORD-less, so DRAM bytes per region equal the executor's
#                                             (with GEMM passes and SPMM column blocks)
#   sim_cli.sh CELLO WORKDIR failures        a flipped result bit, a runaway and bad options fail
#                                             with the right exit code and message
set -uo pipefail
cello=$1 work=$2 mode=$3
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
# expect CODE REGEX -- ARGS...: run cello sim, check the exit code and that the output matches REGEX.
expect() {
  local code=$1 regex=$2; shift 3
  "$cello" sim --cache "$work/cache" "$@" >"$work/out.txt" 2>&1
  local rc=$?
  cat "$work/out.txt"
  [ "$rc" = "$code" ] || fail "exit $rc, expected $code: cello sim $*"
  grep -Eq -- "$regex" "$work/out.txt" || fail "no line matching '$regex': cello sim $*"
}

# Every memory region's DRAM bytes equal the executor's prediction for this top.
same='^  DRAM per memory region: ([0-9]+) of \1 equal to the executor'"'"'s prediction$'
case $mode in
prebuilt)
  expect 0 'simulator: .*\(prebuilt\)' -- --workload cg --grid 4 --n 1 --iters 3 --dram-latency 1:40 --seed 9 \
    --json "$work/r.json" --counters "$work/c.csv" --dump "$work/dump" --timeline "$work/t.csv" --timeline-every 500
  grep -q 'equal the executor bit for bit$' "$work/out.txt" || fail "no bit-exact line"
  grep -q '^cello sim: PASS$' "$work/out.txt" || fail "no PASS"
  grep -q '"pass": true' "$work/r.json" || fail "report does not say pass"
  grep -Eq '^    SPMM +[1-9][0-9]* \( *[0-9.]+%\)  executor +[1-9]' "$work/out.txt" || fail "no SPMM row in the cycles by kind"
  grep -q '"cycles_by_kind"' "$work/r.json" || fail "report has no cycles_by_kind"
  grep -Eq '^    GEMM +[1-9][0-9]* cycles running, +[1-9][0-9]* FMA steps \([0-9]+ on row pairs\), +[0-9]+ product steps  issue [0-9.]+%' "$work/out.txt" ||
    fail "no GEMM row in the engine table by kind"
  grep -q '"engine_by_kind"' "$work/r.json" || fail "report has no engine_by_kind"
  grep -Eq '^fma,[1-9][0-9]*$' "$work/c.csv" || fail "counters CSV has no FMA count"
  # The timeline: one row per 500 cycles, its columns the counters of the
  # counters CSV; no window grows a counter past its final value, no window
  # has more than 500 cycles, and in each window the engine's cycle classes
  # (issue .. wait_store) add up to its engine_cycles.
  grep -Eq '^  timeline -> .*t\.csv \([1-9][0-9]* windows of 500 cycles\)$' "$work/out.txt" || fail "no timeline line"
  [ "$(head -1 "$work/t.csv")" = "cycle,record,$(tail -n +2 "$work/c.csv" | cut -d, -f1 | paste -sd,)" ] ||
    fail "timeline header differs from the counters CSV"
  awk -F, -v csv="$work/c.csv" '
    BEGIN { while ((getline l < csv) > 0) { split(l, f, ","); final[f[1]] = f[2] } }
    NR == 1 { for (k = 1; k <= NF; k++) col[$k] = k; n = NF; next }
    {
      if ($1 != (NR - 1) * 500) { print "row " NR ": cycle " $1; bad = 1 }
      if ($(col["cycles"]) > 500) { print "row " NR ": more than 500 cycles"; bad = 1 }
      s = 0
      split("issue wait_walker wait_port_a wait_port_b wait_operand wait_store", cls, " ")
      for (c in cls) s += $(col[cls[c]])
      if (s != $(col["engine_cycles"])) { print "row " NR ": classes " s " engine_cycles " $(col["engine_cycles"]); bad = 1 }
      for (k = 3; k <= n; k++) sum[k] += $k
      rows++
    }
    END {
      if (rows < 10) { print "only " rows " rows"; bad = 1 }
      for (name in col) if (col[name] > 2 && sum[col[name]] > final[name]) { print name ": " sum[col[name]] " > " final[name]; bad = 1 }
      if (sum[col["fma"]] == 0) { print "no FMA step in the timeline"; bad = 1 }
      exit bad
    }' "$work/t.csv" || fail "timeline CSV"
  # The default top: 4x4 array split into 8 engine lanes and 8 product lanes, a gather buffer that holds X (64 rows) 16 columns at a time.
  grep -Eq '^  datapath: 16 of the 4x4 array.s PEs: 1 tile of 8 FMA lanes and 8 more for fused Gram products and GEMM row pairs; max\(MACs / 16, RTL bytes / 16 B per cycle\) = [1-9][0-9]* cycles, RTL at [0-9.]+x$' \
    "$work/out.txt" || fail "no datapath line"
  grep -q '^  SPMM: ' "$work/out.txt" && fail "an SPMM column-block note where X fits the gather buffer"
  grep -q '"spmm_column_blocks": 1' "$work/r.json" || fail "report has no single SPMM column block"
  for f in B X0 X; do [ -s "$work/dump/$f.mtx" ] || fail "no $f.mtx in the dump"; done
  # CHORD is on the default top's datapath: R.3 is a CHORD-bound intermediate,
  # which may end in CHORD, so it is neither checked nor dumped; CHORD's
  # counters are reported beside the executor's.
  [ -e "$work/dump/R.3.mtx" ] && fail "R.3, which may end in CHORD, in the dump"
  grep -Eq '^  CHORD on the datapath: .*rd_hit [0-9]+ \([0-9]+\)' "$work/out.txt" || fail "no CHORD counters line"
  head -1 "$work/dump/X.mtx" | grep -q '^%%MatrixMarket matrix array real general$' || fail "X.mtx header"
  # N = 4: GEMM results that update their streamed operand in place. The
  # executor's prediction for this top (CHORD on its datapath, the fused
  # GRAMs' Z on chip, the N x N tensors through DRAM) is exact here: every
  # region's bytes and every CHORD counter equal it.
  expect 0 '^cello sim: PASS$' -- --workload cg --grid 4 --n 4 --iters 2 --seed 2
  grep -Eq "$same" "$work/out.txt" || fail "DRAM bytes per region differ from the executor's"
  grep '^  CHORD on the datapath: ' "$work/out.txt" | grep -oE '[a-z_]+ [0-9]+ \([0-9]+\)' | tr -d '()' |
    awk '$2 != $3 { bad = 1 } END { exit bad || NR < 5 }' || fail "CHORD counters differ from the executor's walk"
  ;;
runtime)
  config=$4
  # A CHORD-less config (the executor then predicts the bytes of a machine that
  # keeps nothing on chip): every memory region's bytes equal the prediction.
  expect 0 'simulator: .*\(built\)' -- --config "$config" --workload bicgstab --grid 4 --n 2 --iters 1 --dram-latency 3:30
  grep -q '^cello sim: PASS$' "$work/out.txt" || fail "no PASS"
  grep -Eq "$same" "$work/out.txt" || fail "DRAM bytes per region differ from the executor's"
  grep -q "^  datapath: 4 of the 2x2 array's PEs: 1 tile of 4 FMA lanes;" "$work/out.txt" || fail "no 4-lane datapath line"
  expect 0 'simulator: .*\(cached\)' -- --config "$config" --workload gcn --grid 4 --n 4 --o 2 --iters 1
  grep -Eq "$same" "$work/out.txt" || fail "DRAM bytes per region differ from the executor's"
  # 216 rows: SPMM in three one-column blocks, GEMM in two register-file passes.
  expect 0 "$same" -- --config "$config" --workload cg --grid 6 --n 3 --iters 2 --dram-latency 1:200 --seed 4
  grep -q '^  SPMM: a dense operand of 216 rows fits the 256-word gather buffer 1 column at a time: 3 column blocks' \
    "$work/out.txt" || fail "no SPMM column-block line"
  ;;
failures)
  export CELLO_SIM_FLIP=1
  expect 1 '^  MISMATCH X\.2\[0,0\] \(element 0\): RTL .* executor ' -- --workload cg --grid 4 --n 2 --iters 2
  grep -q '^cello sim: FAIL$' "$work/out.txt" || fail "no FAIL line"
  unset CELLO_SIM_FLIP
  expect 1 'FAIL: no END after 2000 cycles \(--max-cycles\); record [0-9]+ was running' -- --workload cg --grid 4 --max-cycles 2000
  expect 2 '^cello: error: --dram-latency: .0. is not L or MIN:MAX' -- --dram-latency 0
  expect 2 '^cello: error: --dram-latency: .9:3. is not' -- --dram-latency 9:3
  expect 2 '^cello: error: --timeline-every requires --timeline$' -- --timeline-every 100
  # The default top's DRAM port moves one 16-byte granule per cycle.
  expect 2 '^cello: error: --dram-bw: 64 bytes per cycle exceed the top.s DRAM port, which moves one 16-byte granule per cycle' -- --dram-bw 64
  expect 2 '^cello: error: --timeline-every: ' -- --timeline "$work/t.csv" --timeline-every 0
  echo '{"name": "no_top", "buffets": [{"name": "b", "depth": 8}]}' >"$work/no_top.json"
  expect 2 '^cello: error: .*no_top.json' -- --config "$work/no_top.json"
  [ "$(wc -l <"$work/out.txt")" = 1 ] || fail "the error is not one line"
  ;;
*) fail "unknown mode $mode" ;;
esac
echo "sim_cli $mode: ok"
