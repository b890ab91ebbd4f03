#!/usr/bin/env bash
# skip_probe.sh PROBE: a skip after a failed assertion fails the run (exit 1),
# a skip alone exits 77 (tests/common/skip_probe.cpp).
set -u
probe=$1
out=$("$probe" --order decl 2>&1); code=$?
if [ "$code" != 1 ] || ! grep -q "assertion(s) failed before it" <<<"$out"; then
  echo "skip_probe: the whole binary exited $code, expected 1 with the failure named:"; echo "$out"; exit 1
fi
out=$("$probe" "a skip" 2>&1); code=$?
if [ "$code" != 77 ] || ! grep -q "SKIPPED: the probe skips" <<<"$out"; then
  echo "skip_probe: the skipping test case alone exited $code, expected 77:"; echo "$out"; exit 1
fi
echo "skip_probe: a skip after a failure exits 1, a skip alone 77"
