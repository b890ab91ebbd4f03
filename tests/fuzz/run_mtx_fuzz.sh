#!/usr/bin/env bash
# Short libFuzzer pass of the Matrix Market reader, seeded from the data folder
# (matrices are never committed): the smallest plain and gzip matrices of
# $CELLO_DATA/suitesparse (default ../shared/data beside the source tree).
#   run_mtx_fuzz.sh FUZZER CORPUS_DIR SOURCE_DIR RUNS
# Exits 77 (CTest: skipped) with a message when the data folder is absent.
set -euo pipefail
fuzzer=$1 corpus=$2 src=$3 runs=$4
data=${CELLO_DATA:-$src/../shared/data}/suitesparse
plain=$(ls -S "$data"/*.mtx 2>/dev/null | tail -1 || true)
gz=$(ls -S "$data"/*.mtx.gz 2>/dev/null | tail -1 || true)
if [ -z "$plain" ] || [ -z "$gz" ]; then
  echo "SKIPPED: no .mtx and .mtx.gz matrices in $data (set CELLO_DATA)"
  exit 77
fi
seeds="$corpus-seeds"
rm -rf "$seeds" && mkdir -p "$seeds" "$corpus"
cp "$plain" "$gz" "$seeds"/
exec env ASAN_OPTIONS=detect_leaks=0 "$fuzzer" -runs="$runs" -seed=1 -max_len=4096 -max_total_time=60 \
  -rss_limit_mb=2048 "$corpus" "$seeds"
