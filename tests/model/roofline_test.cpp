#include <catch2/catch.hpp>

#include "sw/common/error.hpp"
#include "sw/perf/roofline.hpp"

using namespace cello::perf;

TEST_CASE("roofline: hand-computed memory- and compute-bound points", "[perf]") {
  Machine m;  // 16384 MACs at 1 GHz, 250 GB/s, 4 pJ/bit
  // 1e9 MACs over 1e9 bytes: compute 1e9 / 1.6384e13 = 61 us, memory 1e9 / 2.5e11 = 4 ms.
  auto p = roofline(1'000'000'000, 1'000'000'000, m);
  CHECK(p.memory_bound);
  CHECK(p.time_s == Approx(4e-3));
  CHECK(p.macs_per_s == Approx(2.5e11));
  CHECK(p.energy_j == Approx(1e9 * 8 * 4e-12));
  // Ridge point: 1.6384e13 / 2.5e11 = 65.536 MACs per byte (the paper's figure at 250 GB/s).
  CHECK(m.ridge_macs_per_byte() == Approx(65.536));
  m.bandwidth_bytes_per_s = 1000e9;
  CHECK(m.ridge_macs_per_byte() == Approx(16.384));
  // 1e12 MACs over 1e9 bytes at 1 TB/s: compute 61 ms > memory 1 ms -> compute bound at peak.
  auto q = roofline(1'000'000'000'000, 1'000'000'000, m);
  CHECK_FALSE(q.memory_bound);
  CHECK(q.macs_per_s == Approx(1.6384e13));
  m.bandwidth_bytes_per_s = 0;
  CHECK_THROWS_AS(roofline(1, 1, m), cello::Error);
}
