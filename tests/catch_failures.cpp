// Counts the failed assertions of a Catch2 test binary, for skip_test()
// (sw/common/skip_test.hpp): a binary run as a whole, not one test case at a
// time as CTest runs it, must not report "skipped" after a failure. Every test
// binary links this through the cello_catch library (tests/CMakeLists.txt).
// The listener base is part of Catch2's external interfaces.
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <catch2/catch.hpp>

#include "sw/common/skip_test.hpp"

namespace {

int g_failed_assertions = 0;

struct FailureCounter : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  bool assertionEnded(const Catch::AssertionStats& stats) override {
    if (!stats.assertionResult.isOk()) ++g_failed_assertions;
    return true;
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(FailureCounter)

int cello::failed_assertions_so_far() { return g_failed_assertions; }
