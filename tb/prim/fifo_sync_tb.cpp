// rtl/fifo_sync.sv against a C++ queue of DEPTH entries, cycle by cycle:
// random pushes (only with `space`, as its callers do) and pops (only with
// `valid`) at rates drawn per run, from empty to full and back; every cycle
// `space`, `valid` and the head entry must equal the model's. Then the two
// assertions: a push into a full FIFO and a pop from an empty one each stop
// the simulation with an error.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <deque>

#include "Vfifo_sync.h"
#include "tb/harness/rng.hpp"
#include "tb/harness/sim.hpp"

using namespace cello::tb;

namespace {

constexpr int kDepth = FIFO_DEPTH;
constexpr int kWidth = FIFO_WIDTH;
constexpr uint64_t kMask = kWidth >= 64 ? ~uint64_t{0} : (uint64_t{1} << kWidth) - 1;

// The entry's bits; widths above 32 and up to 64 are a QData in the model.
uint64_t rdata_of(const Vfifo_sync& d) { return static_cast<uint64_t>(d.rdata); }

}  // namespace

TEST_CASE("fifo_sync equals a queue under random pushes and pops", "[prim][fifo]") {
  Rng rng(0xf1f0 + kDepth * 131 + kWidth);
  uint64_t fulls = 0, empties = 0;  // cycles spent at either end, over all runs
  for (int run = 0; run < 20; ++run) {
    Sim<Vfifo_sync> sim;
    auto& d = sim.dut();
    d.push = 0;
    d.pop = 0;
    d.wdata = 0;
    sim.reset();
    // Rates from starved to flooded, so runs spend time both empty and full.
    const double push_rate = 0.1 + 0.1 * static_cast<double>(rng.below(9));
    const double pop_rate = 0.1 + 0.1 * static_cast<double>(rng.below(9));
    std::deque<uint64_t> model;
    for (int cycle = 0; cycle < 4000; ++cycle) {
      sim.settle();
      INFO("run " << run << " cycle " << cycle);
      REQUIRE(static_cast<bool>(d.space) == (model.size() < kDepth));
      REQUIRE(static_cast<bool>(d.valid) == !model.empty());
      if (!model.empty()) REQUIRE((rdata_of(d) & kMask) == model.front());
      fulls += model.size() == kDepth;
      empties += model.empty();
      const bool push = d.space && rng.chance(push_rate);
      const bool pop = d.valid && rng.chance(pop_rate);
      const uint64_t value = rng.bits(kWidth);
      d.push = push;
      d.pop = pop;
      d.wdata = value;
      sim.settle();
      sim.tick();
      sim.note("fifo", cycle);
      if (pop) model.pop_front();
      if (push) model.push_back(value);
    }
    CHECK(sim.context().errorCount() == 0);
  }
  CHECK(fulls > 0);
  CHECK(empties > 0);
}

TEST_CASE("fifo_sync reaches full and empty, and a full FIFO refuses a push while it pops", "[prim][fifo]") {
  Sim<Vfifo_sync> sim;
  auto& d = sim.dut();
  d.push = 0;
  d.pop = 0;
  sim.reset();
  for (int i = 0; i < kDepth; ++i) {
    sim.settle();
    REQUIRE(d.space);
    d.push = 1;
    d.wdata = static_cast<uint64_t>(i + 1) & kMask;
    sim.tick();
  }
  d.push = 0;
  sim.settle();
  CHECK(!d.space);
  CHECK(d.valid);
  CHECK((rdata_of(d) & kMask) == (1 & kMask));
  // Popping a full FIFO does not make room in the same cycle: space is a
  // registered count.
  d.pop = 1;
  sim.settle();
  CHECK(!d.space);
  sim.tick();
  d.pop = 0;
  sim.settle();
  CHECK(d.space);
  for (int i = 1; i < kDepth; ++i) {
    REQUIRE(d.valid);
    CHECK((rdata_of(d) & kMask) == (static_cast<uint64_t>(i + 1) & kMask));
    d.pop = 1;
    sim.tick();
    d.pop = 0;
    sim.settle();
  }
  CHECK(!d.valid);
}

TEST_CASE("fifo_sync's assertions stop the simulation on a push into a full FIFO or a pop from an empty one",
          "[prim][fifo]") {
  for (const bool overflow : {true, false}) {
    INFO((overflow ? "push into a full FIFO" : "pop from an empty FIFO"));
    Sim<Vfifo_sync> sim;
    sim.context().fatalOnError(false);
    auto& d = sim.dut();
    d.push = 0;
    d.pop = 0;
    sim.reset();
    if (overflow) {
      d.push = 1;
      for (int i = 0; i < kDepth; ++i) {
        sim.settle();
        sim.tick();
      }
      sim.settle();
      REQUIRE(!d.space);
      CHECK(sim.context().errorCount() == 0);
    } else {
      d.pop = 1;
    }
    sim.settle();
    sim.tick();  // the breach
    CHECK(sim.context().errorCount() > 0);
  }
}
