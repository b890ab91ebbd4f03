// Skipping a test that cannot run. CTest shows a test that exits with 77 as
// skipped when the test has SKIP_RETURN_CODE 77, so a missing data folder or a
// configuration too small for a measurement never shows as "passed".
// Header-only, for the tests and testbenches.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace cello {

// Prints "SKIPPED: <why>" and exits with 77.
[[noreturn]] inline void skip_test(const std::string& why) {
  std::printf("SKIPPED: %s\n", why.c_str());
  std::fflush(stdout);
  std::exit(77);
}

}  // namespace cello
