#!/usr/bin/env bash
# Installs what is missing, configures, builds and runs the whole CTest suite,
# then the sanitizer pass: the host code (sw/, gen/, the CLI; no verilated
# models) built again with -fsanitize=address,undefined (at -O0, which compiles
# in half the time of -O1) in its own folder, and its unit and CLI tests run
# under it. Labels gate, fuzz, formal and yosys (the tests that spend their time
# in Yosys, not in our code) and data (real matrices: the same code paths as the
# small inputs, at 100x the run time under ASan -O0) and long (the policy
# options' family runs, the default family test's code three times over) are
# left to the main pass, as is slurm (the one-node Slurm cluster of
# docs/sweep.md, which runs the sweep code the cli tests run); see docs/hardening.md.
#   scripts/test.sh [BUILD_DIR]      (default: build; the sanitizer build is BUILD_DIR-asan)
#   CELLO_SANITIZE_PASS=0 scripts/test.sh     skip the sanitizer pass
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bash scripts/setup.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build" -j "$(nproc)"
(cd "$build" && ctest --output-on-failure -j "$(nproc)" --timeout 900)

if [ "${CELLO_SANITIZE_PASS:-1}" = 1 ]; then
  san="$build-asan"
  t0=$(date +%s)
  cmake -S . -B "$san" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g" -DCELLO_SANITIZE=ON
  cmake --build "$san" -j "$(nproc)"
  (cd "$san" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ctest --output-on-failure -j "$(nproc)" --timeout 300 -LE 'gate|fuzz|formal|yosys|^data$|^long$|^slurm$')
  echo "sanitizer pass: $(( $(date +%s) - t0 )) s"
fi
