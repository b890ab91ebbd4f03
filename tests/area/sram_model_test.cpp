// The SRAM model against the published OpenRAM sky130 macro outlines it cites.
#include <catch2/catch.hpp>
#include <cmath>

#include "sw/area/sram_model.hpp"

using namespace cello::area;

TEST_CASE("SRAM model reproduces every cited macro within its stated error", "[area][sram]") {
  const auto& macros = published_sram_macros();
  REQUIRE(macros.size() >= 4);
  for (const auto& m : macros) {
    INFO(m.name);
    // LEF outline: non-trivial and consistent with the name (e.g. 32x256 = 1 KB).
    REQUIRE(m.area_um2() > 1e5);
    REQUIRE(m.bits() / 8 == (m.words * 32) / 8);
    auto e = sram_estimate(m.words, m.width, 1, 1);
    CHECK(e.macros == 1);
    CHECK_FALSE(e.extrapolated);
    CHECK(std::abs(e.area_um2 - m.area_um2()) / m.area_um2() <= kSramStatedError);
  }
  CHECK(sram_fit().max_rel_error <= kSramStatedError);
  CHECK(sram_fit().per_bit_um2 > 0);
  CHECK(sram_fit().fixed_um2 > 0);
}

TEST_CASE("SRAM model scales with words, width and ports", "[area][sram]") {
  auto a = sram_estimate(2048, 32, 1, 1);
  auto deeper = sram_estimate(4096, 32, 1, 1);
  auto wider = sram_estimate(2048, 64, 1, 1);
  auto two_w = sram_estimate(2048, 32, 2, 1);
  CHECK(deeper.area_um2 == Approx(2 * a.area_um2));  // two banks of the largest macro
  CHECK(deeper.macros == 2);
  CHECK(wider.area_um2 == Approx(2 * a.area_um2));
  CHECK(two_w.area_um2 == Approx(2 * a.area_um2));  // one copy per write port
  CHECK(sram_estimate(64, 32).extrapolated);
  CHECK(sram_estimate(64, 32).area_um2 < a.area_um2);
  // Energy grows with width and rows; a 1 KB access is the characterised point.
  auto k1 = sram_estimate(256, 32);
  CHECK(k1.read_pj == Approx(4.600056));
  CHECK(sram_estimate(1024, 32).read_pj > k1.read_pj);
  CHECK(sram_estimate(256, 64).read_pj == Approx(2 * k1.read_pj));
  CHECK(sram_estimate(0, 32).area_um2 == 0);
}
