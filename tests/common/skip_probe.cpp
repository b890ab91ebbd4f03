// A test binary for tests/common/skip_probe.sh: one test case that fails and
// one that skips. Run as a whole it must fail (exit 1), not report "skipped";
// the skipping case alone must still exit 77.
#include <catch2/catch.hpp>

#include "sw/common/skip_test.hpp"

TEST_CASE("a failing check", "[probe]") { CHECK(1 + 1 == 3); }

TEST_CASE("a skip", "[probe]") { cello::skip_test("the probe skips"); }
