// Randomised differential test of one generated buffet configuration. Built once
// per configs/tb/buffet/<name>.json by tb/buffet/CMakeLists.txt, which verilates
// the generated RTL as class Vbuffet and names the module (CELLO_TB_MODULE) and
// the parameter header `cello gen` wrote beside it (CELLO_TB_PARAMS): every size
// and option below comes from that header.
#include <catch2/catch.hpp>

#include CELLO_TB_PARAMS
#include "sw/common/bits.hpp"
#include "Vbuffet.h"
// A buffet with a runtime region (base/bound ports) gets the RAM inspection test.
#if CELLO_HAS_PORT(CELLO_TB_MODULE, cfg_base)
#define BUFFET_BASE_BOUND 1
#include "Vbuffet___024root.h"
// The verilated RAM array of the module (visible through --public-flat-rw).
#define BUFFET_MEM_OF(module) BUFFET_MEM_OF_I(module)
#define BUFFET_MEM_OF_I(module) module##__DOT__u_ram__DOT__mem
#define BUFFET_MEM BUFFET_MEM_OF(CELLO_TB_MODULE)
#else
#define BUFFET_BASE_BOUND 0
#endif
#include "tb/buffet/buffet_bench.hpp"
#include "tb/harness/checked.hpp"
#include "sw/common/skip_test.hpp"

using namespace cello::tb;

namespace {

namespace P = cello::params::CELLO_TB_MODULE;
static_assert(P::base_bound == (BUFFET_BASE_BOUND != 0), "base_bound and the cfg_base port disagree");

constexpr BuffetFeatures kFeatures = CELLO_BUFFET_FEATURES(P);
using Bench = BuffetBench<Vbuffet, kFeatures>;

// Runtime region used when the buffet has base/bound: a strict sub-range when the
// RAM is big enough, so that slot arithmetic is offset and wraps early.
constexpr unsigned kBase = kFeatures.base_bound ? 1 : 0;
constexpr unsigned kBound = kFeatures.base_bound && kFeatures.depth >= 4 ? kFeatures.depth - 1 : kFeatures.depth;

// A program for this configuration's features (a CAM config caps the
// outstanding will_update reads at its entries).
BuffetProgram program(unsigned size, Rng& rng) {
  return BuffetProgram(size, kFeatures.width, kFeatures.update, kFeatures.scoreboard, kFeatures.shrink_sync, rng,
                       kFeatures.sb_entries);
}

size_t ops_per_mix() {
  const char* s = std::getenv("CELLO_BUFFET_OPS");
  return s ? std::strtoull(s, nullptr, 0) : 50000;
}

// Runs a mix in segments, each with its own random stall rates (sometimes none).
void run_mix(BuffetMix mix, uint64_t seed) {
  Bench bench(seed_from_env(seed), kBase, kBound);
  CELLO_SEED_INFO(bench.seed());
  INFO("mix " << to_string(mix));
  auto& rng = bench.rng();
  const size_t total = ops_per_mix(), segments = 10;
  BuffetRunStats sum;
  try {
    for (size_t s = 0; s < segments; ++s) {
      BuffetProgram prog = program(bench.size(), rng);
      append_mix(prog, mix, total / segments, rng);
      BuffetRates rates;
      if (s % 3 != 0) {  // two segments in three stall every port at random rates
        auto r = [&] { return 0.15 + 0.85 * static_cast<double>(rng.below(1000)) / 1000.0; };
        rates = {r(), r(), r(), r(), r(), r()};
      }
      auto st = bench.run(prog.take(), rates);
      sum.reads += st.reads;
      sum.updates += st.updates;
      sum.shrinks += st.shrinks;
      sum.responses += st.responses;
    }
    bench.drain_credits(sum);
  } catch (const Failure& f) {
    FAIL(f.what());
  }
  CHECK(bench.status() == 0);  // legal traffic never raises an error
  CHECK(sum.responses == sum.reads);
  CHECK(sum.reads + sum.updates + sum.shrinks >= total);
  CHECK(sum.credits_received == sum.credits_expected);
}

// Runs a short stalled random mix and fails on any mismatch: used after illegal
// operations to show that they left the buffet intact.
void still_works(Bench& bench) {
  BuffetProgram prog = program(bench.size(), bench.rng());
  append_mix(prog, BuffetMix::Random, 3000, bench.rng());
  bench.run(prog.take(), BuffetRates{0.7, 0.8, 0.8, 0.8, 0.7, 0.6});
}


}  // namespace

TEST_CASE("streaming", "[buffet]") { run_mix(BuffetMix::Streaming, 1); }
TEST_CASE("sliding window", "[buffet]") { run_mix(BuffetMix::SlidingWindow, 2); }
TEST_CASE("in-place update with RAW hazards", "[buffet]") { run_mix(BuffetMix::UpdateRaw, 3); }
TEST_CASE("shrinks at full and empty", "[buffet]") { run_mix(BuffetMix::FullEmpty, 4); }
TEST_CASE("random mix", "[buffet]") { run_mix(BuffetMix::Random, 5); }

TEST_CASE("unstalled streaming sustains one fill and one read per cycle", "[buffet]") {
  if (kBound - kBase < 8) {
    cello::skip_test("region smaller than the credit round trip; full throughput is not expected");
  }
  Bench bench(seed_from_env(6), kBase, kBound);
  INFO("seed " << bench.seed());
  BuffetProgram prog(bench.size(), kFeatures.width, false, kFeatures.scoreboard, kFeatures.shrink_sync, bench.rng());
  for (int i = 0; i < 20000; ++i) {
    prog.read(0);
    prog.shrink(1);
  }
  BuffetRunStats st;
  try {
    st = bench.run(prog.take(), BuffetRates{});
  } catch (const Failure& f) {
    FAIL(f.what());
  }
  double reads_per_cycle = static_cast<double>(st.reads) / static_cast<double>(st.cycles);
  double fills_per_cycle = static_cast<double>(st.fills) / static_cast<double>(st.cycles);
  INFO("reads/cycle " << reads_per_cycle << ", fills/cycle " << fills_per_cycle);
  CHECK(reads_per_cycle >= 0.99);
  CHECK(fills_per_cycle >= 0.99);
}

#if BUFFET_BASE_BOUND
// Buffets that share a RAM must stay inside their region: fill sentinels outside
// it, run every mix, and check that no sentinel changed.
TEST_CASE("base/bound: the RAM outside the region is never written", "[buffet]") {
  Bench bench(seed_from_env(7), kBase, kBound);
  INFO("seed " << bench.seed() << ", region [" << kBase << ", " << kBound << ") of " << kFeatures.depth);
  auto& mem = bench.sim().dut().rootp->BUFFET_MEM;
  auto sentinel = [](unsigned i) { return static_cast<uint64_t>(0x5a5a5a5a5a5a5a5aULL ^ i) & ((kFeatures.width >= 64) ? ~0ULL : ((1ULL << kFeatures.width) - 1)); };
  unsigned outside = 0;
  for (unsigned i = 0; i < kFeatures.depth; ++i)
    if (i < kBase || i >= kBound) mem[i] = sentinel(i), ++outside;
  REQUIRE(outside > 0);
  try {
    for (auto mix : {BuffetMix::Streaming, BuffetMix::SlidingWindow, BuffetMix::UpdateRaw, BuffetMix::FullEmpty,
                     BuffetMix::Random}) {
      BuffetProgram prog = program(bench.size(), bench.rng());
      append_mix(prog, mix, 2000, bench.rng());
      bench.run(prog.take(), BuffetRates{0.7, 0.8, 0.8, 0.8, 0.7, 0.6});
    }
  } catch (const Failure& f) {
    FAIL(f.what());
  }
  for (unsigned i = 0; i < kFeatures.depth; ++i)
    if (i < kBase || i >= kBound) CHECK(static_cast<uint64_t>(mem[i]) == sentinel(i));
}
#endif

TEST_CASE("illegal commands are dropped, reported in status_err and harmless", "[buffet]") {
  const unsigned size = kBound - kBase;
  auto check = [&](const char* what, BuffetOp op, unsigned bit) {
    Bench bench(seed_from_env(8), kBase, kBound);
    INFO(what << ", seed " << bench.seed());
    REQUIRE(bench.status() == 0);
    CHECK(bench.issue_unchecked(op));  // accepted (dropped), never left hanging
    CHECK(bench.status() == (1u << bit));
    try {
      still_works(bench);
    } catch (const Failure& f) {
      FAIL(f.what());
    }
    CHECK(bench.status() == (1u << bit));  // sticky, and nothing else was flagged
  };
  int checked = 0;
  if ((1ull << kFeatures.index_width) > size) {
    BuffetOp op{BuffetOp::Read};
    op.idx = size;
    check("read index == size", op, 0), ++checked;
  }
  BuffetOp shr{BuffetOp::Shrink};
  if (!kFeatures.shrink_sync) {
    shr.num = 1;  // occupancy is 0 right after reset
    check("unsynchronised shrink beyond occupancy", shr, 1), ++checked;
  } else if ((1u << cello::bits_for(kFeatures.depth)) - 1 > size) {
    shr.num = size + 1;
    check("shrink beyond the size", shr, 1), ++checked;
  }
  if (kFeatures.update) {
    BuffetOp upd{BuffetOp::Update};
    upd.idx = 0;  // nothing filled yet
    check("update outside the window", upd, 2), ++checked;
  }
#if BUFFET_BASE_BOUND
  {
    Bench bad(seed_from_env(9), 1, 1);  // empty region
    bad.idle(1);
    CHECK(bad.status() == 8);
    CHECK(bad.sim().dut().credit_valid == 0);
    CHECK(bad.sim().dut().fill_ready == 0);
    ++checked;
  }
#endif
  INFO("configuration offers " << checked << " representable illegal commands");
  CHECK(checked >= 1);
}
