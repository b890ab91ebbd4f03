#!/usr/bin/env bash
# Refused and failed outputs leave every file as it was (issue 59):
#   output_safety.sh CELLO DIR
# 1. an output that names an input (plainly, through a symlink, through ..) is
#    refused and the input keeps its bytes;
# 2. a report whose write fails half-way (a file size limit: the write gets
#    EFBIG) is an error, the report written before stays as it was, and no
#    temporary file is left beside it.
set -uo pipefail
cello=$1
d=$2
rm -rf "$d" && mkdir -p "$d/sub" && cd "$d" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
printf '%%%%MatrixMarket matrix coordinate real general\n4 4 4\n1 1 1\n2 2 1\n3 3 1\n4 4 1\n' > in.mtx
cp in.mtx in.orig
ln -s in.mtx link.json
for out in in.mtx link.json sub/../in.mtx "$PWD/in.mtx"; do
  err=$(timeout 20 "$cello" model --matrix in.mtx --iters 1 --json "$out" --out o 2>&1 >/dev/null); rc=$?
  [ "$rc" = 2 ] || fail "--json $out: exit $rc, not 2 ($err)"
  [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "--json $out: more than one line: $err"
  cmp -s in.mtx in.orig || fail "--json $out changed the input"
  [ -L link.json ] || fail "--json $out replaced the symlink"
done
echo "good report" > report.json
# `ulimit -f 4`: files of at most 4 KB; model.json is larger. SIGXFSZ ignored, so write() fails with EFBIG.
err=$( (ulimit -f 4; trap '' XFSZ; timeout 20 "$cello" model --matrix in.mtx --iters 1 --json report.json --out o) 2>&1 >/dev/null); rc=$?
[ "$rc" = 2 ] || fail "failed write: exit $rc, not 2 ($err)"
printf '%s\n' "$err" | grep -q '^cello: error: report\.json: --json: write failed (File too large); the file was left as it was$' ||
  fail "failed write: message: $err"
[ "$(cat report.json)" = "good report" ] || fail "the failed write changed report.json"
leftover=$(ls -A | grep '\.tmp\.' || true)
[ -z "$leftover" ] || fail "temporary files left: $leftover"
echo "PASS"
