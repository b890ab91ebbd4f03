// rtl/rr_pick.sv against its rule, exhaustively: for every mask of N valid
// bits and every value of `last` (the CB-bit values past N included, which
// grant `last`), `grant` is the first valid requester after `last` in the
// order last+1 .. last+N modulo N, or `last` when none is valid.
#include <catch2/catch.hpp>

#include <memory>

#include "Vrr_pick.h"

namespace {

constexpr int kN = PICK_N;
constexpr int kCB = PICK_CB;

unsigned expected_grant(unsigned valid, unsigned last) {
  if (last >= static_cast<unsigned>(kN)) return last;
  for (int k = 1; k <= kN; ++k) {
    const unsigned c = (last + static_cast<unsigned>(k)) % kN;
    if ((valid >> c) & 1u) return c;
  }
  return last;
}

}  // namespace

TEST_CASE("rr_pick grants the first valid requester after last, for every mask and last", "[prim][rr_pick]") {
  auto ctx = std::make_unique<VerilatedContext>();
  auto dut = std::make_unique<Vrr_pick>(ctx.get());
  for (unsigned last = 0; last < (1u << kCB); ++last)
    for (unsigned valid = 0; valid < (1u << kN); ++valid) {
      dut->valid = valid;
      dut->last = last;
      dut->eval();
      INFO("valid " << valid << " last " << last);
      REQUIRE(static_cast<unsigned>(dut->grant) == expected_grant(valid, last));
    }
  dut->final();
}
