#!/usr/bin/env bash
# `cello bench buffet --out 'dir with space;touch PWNED;'` must write its Yosys
# logs into that very folder and never run `touch PWNED`.
#   no_injection.sh CELLO WORKDIR
set -euo pipefail
cello=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work"
out='out dir;touch PWNED;'
"$cello" bench buffet --elements 1000 --out "$out"
if [ -e PWNED ] || [ -e "out dir/PWNED" ]; then echo "FAIL: the injected command ran"; exit 1; fi
ls "$out"/*.yosys.log >/dev/null || { echo "FAIL: no Yosys log in '$out'"; exit 1; }
echo "ok: no command injected, logs in '$out'"
