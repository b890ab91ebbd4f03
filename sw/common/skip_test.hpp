// Skipping a test that cannot run. CTest shows a test that exits with 77 as
// skipped when the test has SKIP_RETURN_CODE 77, so a missing data folder or a
// configuration too small for a measurement never shows as "passed".
// For the tests and testbenches, which link tests/catch_failures.cpp.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace cello {

// The assertions that failed so far in this process: tests/catch_failures.cpp,
// linked into every Catch2 test binary (the cello_catch library).
int failed_assertions_so_far();

// Prints "SKIPPED: <why>" and exits with 77. When an assertion has already
// failed in this process (a binary run as a whole, failing in an earlier test
// case), it says so and exits with 1 instead, so the failure is not hidden.
[[noreturn]] inline void skip_test(const std::string& why) {
  const int failed = failed_assertions_so_far();
  if (failed > 0)
    std::printf("SKIPPED: %s; but %d assertion(s) failed before it, so the run fails\n", why.c_str(), failed);
  else
    std::printf("SKIPPED: %s\n", why.c_str());
  std::fflush(stdout);
  std::exit(failed > 0 ? 1 : 77);
}

}  // namespace cello
