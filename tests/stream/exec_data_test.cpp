// Executor checks on ../shared/data's fv1 (CG, N = 1, 4, 8, 10 iterations). When
// the data folder is absent the program prints why and exits 77: CTest skipped.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>

#include "tests/stream/exec_checks.hpp"

using namespace cello;
using namespace cello::test;

namespace {
const std::string kFv1 = std::string(CELLO_SHARED_DATA) + "/suitesparse/fv1.mtx";
}

TEST_CASE("CG on fv1: bit-exact, converges like double, traffic equal to the model", "[exec][data]") {
  const arch::Arch a = test::arch_from();
  for (int n : {1, 4, 8}) {
    INFO("N=" << n);
    check_solver_run({.workload = "cg", .matrix = kFv1, .n = n, .iters = 10}, a);
  }
}

int main(int argc, char** argv) {
  if (!std::filesystem::exists(kFv1)) {
    std::printf("SKIPPED: %s not found (the shared data folder is not present)\n", kFv1.c_str());
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
