// Randomised differential test of one generated buffet configuration. Built once
// per configuration by tb/buffet/CMakeLists.txt, which passes the configuration
// as BUFFET_* macros and verilates the matching RTL as class Vbuffet.
#include <catch2/catch.hpp>

#include "Vbuffet.h"
#include "buffet/buffet_bench.hpp"

using namespace cello::tb;

namespace {

constexpr BuffetFeatures kFeatures{BUFFET_DEPTH,         BUFFET_WIDTH,       BUFFET_INDEX_WIDTH,
                                   BUFFET_UPDATE != 0,   BUFFET_SCOREBOARD != 0, BUFFET_SHARED != 0,
                                   BUFFET_SHRINK_SYNC != 0, BUFFET_BASE_BOUND != 0, BUFFET_SRAM != 0};
using Bench = BuffetBench<Vbuffet, kFeatures>;

// Runtime region used when the buffet has base/bound: a strict sub-range when the
// RAM is big enough, so that slot arithmetic is offset and wraps early.
constexpr unsigned kBase = BUFFET_BASE_BOUND && BUFFET_DEPTH >= 4 ? 1 : 0;
constexpr unsigned kBound = BUFFET_BASE_BOUND && BUFFET_DEPTH >= 4 ? BUFFET_DEPTH - 1 : BUFFET_DEPTH;

size_t ops_per_mix() {
  const char* s = std::getenv("CELLO_BUFFET_OPS");
  return s ? std::strtoull(s, nullptr, 0) : 50000;
}

// Runs a mix in segments, each with its own random stall rates (sometimes none).
void run_mix(BuffetMix mix, uint64_t seed) {
  Bench bench(seed_from_env(seed), kBase, kBound);
  INFO("seed " << bench.seed() << " (replay with CELLO_SEED), mix " << to_string(mix));
  auto& rng = bench.rng();
  const size_t total = ops_per_mix(), segments = 10;
  BuffetRunStats sum;
  try {
    for (size_t s = 0; s < segments; ++s) {
      BuffetProgram prog(bench.size(), kFeatures.width, kFeatures.update, kFeatures.scoreboard,
                         kFeatures.shrink_sync, rng);
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
  CHECK(sum.responses == sum.reads);
  CHECK(sum.reads + sum.updates + sum.shrinks >= total);
  CHECK(sum.credits_received == sum.credits_expected);
}

}  // namespace

TEST_CASE("streaming", "[buffet]") { run_mix(BuffetMix::Streaming, 1); }
TEST_CASE("sliding window", "[buffet]") { run_mix(BuffetMix::SlidingWindow, 2); }
TEST_CASE("in-place update with RAW hazards", "[buffet]") { run_mix(BuffetMix::UpdateRaw, 3); }
TEST_CASE("shrinks at full and empty", "[buffet]") { run_mix(BuffetMix::FullEmpty, 4); }
TEST_CASE("random mix", "[buffet]") { run_mix(BuffetMix::Random, 5); }

TEST_CASE("unstalled streaming sustains one fill and one read per cycle", "[buffet]") {
  if (kBound - kBase < 8) {
    SUCCEED("region smaller than the credit round trip; throughput not expected");
    return;
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
