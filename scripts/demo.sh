#!/usr/bin/env bash
# Installs what is missing, builds the `cello` program and runs `cello demo` on the
# embedded default problem.   scripts/demo.sh [BUILD_DIR] [extra demo options]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
bash scripts/setup.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j "$(nproc)" --target cello
"$build/sw/cli/cello" demo --out "$build/cello_demo_out" "$@"
