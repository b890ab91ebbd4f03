// Differential test of rtl/fp32_fma.sv (through fp32_fma_rv) against
// cello::fp::fma32 under random back-pressure on both handshakes. Built once per
// pipeline depth by tb/fma/CMakeLists.txt, which passes the depth it verilates
// with (-GSTAGES) as FMA_STAGES. The depth of the MAC array's default (3) runs
// 2.5 million random vectors in each of four classes (10^7 in total) plus the
// extremes class and the directed corners; other depths a reduced volume.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <deque>
#include <vector>

#include "Vfma.h"
#include "tb/fma/fma_vectors.hpp"
#include "tb/harness/checked.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/stream.hpp"

using namespace cello::tb;
using cello::fp::fma32_bits;

namespace {

constexpr bool kFullVolume = FMA_STAGES == 3;  // the MAC array's default FMA depth

uint64_t vectors_per_class() {
  if (const char* s = std::getenv("CELLO_FMA_VECTORS")) return std::strtoull(s, nullptr, 0);
  return kFullVolume ? 2500000 : 200000;
}

struct Expected {
  FmaOperands in;
  uint32_t y;
};

// Streams the operands through the DUT and checks every result in order.
// Returns the number of cycles used.
uint64_t run_vectors(Rng& rng, const std::vector<FmaOperands>& vecs, double in_rate, double out_rate) {
  Sim<Vfma> sim;
  auto& d = sim.dut();
  d.in_valid = 0;
  d.out_ready = 0;
  sim.reset();
  Source<FmaOperands> src(rng, in_rate);
  Sink sink(rng, out_rate);
  HoldChecker<uint32_t> hold("out");
  std::deque<Expected> expected;
  size_t next = 0, done = 0;
  uint64_t idle = 0;
  const uint64_t start = sim.cycle();
  while (done < vecs.size()) {
    // Keep the source a few items ahead so stalls come only from its rate.
    while (next < vecs.size() && src.pending() < 4) src.push(vecs[next++]);
    bool v = src.drive();
    d.in_valid = v;
    if (v) {
      d.in_a = src.item().a;
      d.in_b = src.item().b;
      d.in_c = src.item().c;
    }
    d.out_ready = sink.drive();
    sim.settle();
    hold.sample(d.out_valid, d.out_ready, d.out_data);
    if (d.out_valid && d.out_ready) {
      if (expected.empty()) throw Failure("result without an accepted operand");
      const Expected& e = expected.front();
      if (d.out_data != e.y)
        throw Failure(fmt::format("vector #{}: fma({:08x}, {:08x}, {:08x}) = {:08x}, reference {:08x}", done, e.in.a,
                                  e.in.b, e.in.c, d.out_data, e.y));
      expected.pop_front();
      ++done;
      idle = 0;
      sim.note("fma result", done);
    } else if (++idle > 1000) {
      throw Failure("no result for 1000 cycles");
    }
    if (v && d.in_ready) expected.push_back({src.item(), fma32_bits(src.item().a, src.item().b, src.item().c)});
    src.complete(d.in_ready);
    sim.tick();
  }
  return sim.cycle() - start;
}

// Splits `count` vectors of one class into segments with fresh stall rates;
// one segment in three runs without stalls.
void run_class(FmaClass k, uint64_t seed, uint64_t count) {
  Rng rng(seed_from_env(seed));
  CELLO_SEED_INFO(rng.seed());
  INFO("class " << to_string(k) << ", STAGES " << FMA_STAGES);
  FmaVectorGen gen(rng);
  const uint64_t segments = 8;
  uint64_t cycles = 0, total = 0;
  try {
    for (uint64_t s = 0; s < segments; ++s) {
      uint64_t n = count / segments + (s < count % segments ? 1 : 0);
      std::vector<FmaOperands> vecs;
      vecs.reserve(n);
      for (uint64_t i = 0; i < n; ++i) vecs.push_back(gen.next(k));
      double in_rate = 1.0, out_rate = 1.0;
      if (s % 3 != 0) {
        in_rate = 0.2 + 0.8 * static_cast<double>(rng.below(1000)) / 1000.0;
        out_rate = 0.2 + 0.8 * static_cast<double>(rng.below(1000)) / 1000.0;
      }
      uint64_t c = run_vectors(rng, vecs, in_rate, out_rate);
      if (s % 3 == 0 && n > 1000) {
        // Without stalls the pipeline accepts one operation per cycle.
        CHECK(static_cast<double>(n) / static_cast<double>(c) > 0.99);
      }
      cycles += c;
      total += n;
    }
  } catch (const Failure& f) {
    FAIL(f.what());
  }
  CHECK(total == count);
}

}  // namespace

TEST_CASE("random bit patterns", "[fma]") { run_class(FmaClass::RandomBits, 11, vectors_per_class()); }
TEST_CASE("aligned exponents across the window", "[fma]") { run_class(FmaClass::Aligned, 12, vectors_per_class()); }
TEST_CASE("near cancellation", "[fma]") { run_class(FmaClass::Cancellation, 13, vectors_per_class()); }
TEST_CASE("rounding ties and mantissa carries", "[fma]") { run_class(FmaClass::TiesCarries, 14, vectors_per_class()); }
TEST_CASE("overflow, underflow and special operands", "[fma]") {
  run_class(FmaClass::Extremes, 15, vectors_per_class() / 2);
}

TEST_CASE("every triple of special values, both signs", "[fma]") {
  std::vector<uint32_t> vals;
  for (uint32_t s : kFmaSpecials) {
    vals.push_back(s);
    vals.push_back(s | 0x80000000u);
  }
  std::vector<FmaOperands> vecs;
  for (uint32_t a : vals)
    for (uint32_t b : vals)
      for (uint32_t c : vals) vecs.push_back({a, b, c});
  Rng rng(seed_from_env(16));
  INFO("seed " << rng.seed() << ", " << vecs.size() << " triples");
  try {
    run_vectors(rng, vecs, 0.7, 0.6);
  } catch (const Failure& f) {
    FAIL(f.what());
  }
}

TEST_CASE("directed corners", "[fma]") {
  // Each entry: operands and the result fixed by hand (not by the reference),
  // so these also pin down the reference's rules.
  struct Corner {
    const char* what;
    uint32_t a, b, c, y;
  };
  const std::vector<Corner> corners = {
      {"1 + 2^-24 is a tie: stays 1", 0x39800000, 0x39800000, 0x3f800000, 0x3f800000},
      {"1 + 3*2^-24 is a tie: rounds up to even", 0x39800000, 0x3a400000, 0x3f800000, 0x3f800002},
      {"(2 - 2^-23) + 2^-24 carries into the exponent", 0x39800000, 0x39800000, 0x3fffffff, 0x40000000},
      {"(1+2^-23)^2 - 1 = 2^-22 + 2^-46, a tie at 2^-22", 0x3f800001, 0x3f800001, 0xbf800000, 0x34800000},
      {"1*1 - 1 is +0", 0x3f800000, 0x3f800000, 0xbf800000, 0x00000000},
      {"-1*1 + 1 is +0", 0xbf800000, 0x3f800000, 0x3f800000, 0x00000000},
      {"(-0)*1 + (-0) is -0", 0x80000000, 0x3f800000, 0x80000000, 0x80000000},
      {"(+0)*(-1) + (-0) is -0", 0x00000000, 0xbf800000, 0x80000000, 0x80000000},
      {"(+0)*1 + (-0) is +0", 0x00000000, 0x3f800000, 0x80000000, 0x00000000},
      {"subnormal input reads as -0: (-sub)*1 + (-0) is -0", 0x80000001, 0x3f800000, 0x80000000, 0x80000000},
      {"subnormal addend is ignored", 0x3f800000, 0x3f800000, 0x007fffff, 0x3f800000},
      {"max*2 overflows to +inf", 0x7f7fffff, 0x40000000, 0x00000000, 0x7f800000},
      {"max + max overflows to +inf", 0x7f7fffff, 0x3f800000, 0x7f7fffff, 0x7f800000},
      {"-max - max overflows to -inf", 0x7f7fffff, 0xbf800000, 0xff7fffff, 0xff800000},
      {"max + half ulp is a tie that rounds to infinity", 0x73000000, 0x3f800000, 0x7f7fffff, 0x7f800000},
      {"max + quarter ulp stays max", 0x72800000, 0x3f800000, 0x7f7fffff, 0x7f7fffff},
      {"2^-63 * 2^-63 is exactly the smallest normal", 0x20000000, 0x20000000, 0x00000000, 0x00800000},
      {"2^-64 * 2^-63 is subnormal: flushed to +0", 0x1f800000, 0x20000000, 0x00000000, 0x00000000},
      {"-2^-64 * 2^-63 flushes to -0", 0x9f800000, 0x20000000, 0x00000000, 0x80000000},
      {"2^-126 - 2^-150 (a tie) rounds up to the smallest normal and is kept", 0x21118e00, 0x1f612000, 0x80800000,
       0x00800000},
      {"2^-126 - 2^-149 is an exact subnormal: flushed", 0x20800000, 0x1fffffff, 0x80800000, 0x00000000},
      {"(2^25-1)*2^-150 rounds to 2^-125 (tie to even)", 0x21118e00, 0x1f612000, 0x00000000, 0x01000000},
      {"inf * 0 is the canonical NaN", 0x7f800000, 0x00000000, 0x3f800000, 0x7fc00000},
      {"0 * -inf + NaN is the canonical NaN", 0x00000000, 0xff800000, 0xffc00123, 0x7fc00000},
      {"inf - inf is the canonical NaN", 0x7f800000, 0x3f800000, 0xff800000, 0x7fc00000},
      {"inf + inf is inf", 0x7f800000, 0x3f800000, 0x7f800000, 0x7f800000},
      {"-inf * -1 + 5 is +inf", 0xff800000, 0xbf800000, 0x40a00000, 0x7f800000},
      {"finite + -inf is -inf", 0x7f7fffff, 0x7f7fffff, 0xff800000, 0xff800000},
      {"NaN payloads are not propagated", 0x3f800000, 0x7f812345, 0x00000000, 0x7fc00000},
      {"negative NaN becomes the canonical positive NaN", 0xffffffff, 0x3f800000, 0x3f800000, 0x7fc00000},
      {"subnormal * inf is NaN (flushed to 0 first)", 0x00000001, 0x7f800000, 0x00000000, 0x7fc00000},
      {"1.5 * 1.5 + 0.75 = 3", 0x3fc00000, 0x3fc00000, 0x3f400000, 0x40400000},
  };
  // Check the hand-derived values against the reference first, then the RTL.
  for (const auto& k : corners) {
    INFO(k.what);
    CHECK(fma32_bits(k.a, k.b, k.c) == k.y);
  }
  std::vector<FmaOperands> vecs;
  for (int rep = 0; rep < 3; ++rep)
    for (const auto& k : corners) vecs.push_back({k.a, k.b, k.c});
  Rng rng(seed_from_env(17));
  INFO("seed " << rng.seed());
  try {
    run_vectors(rng, vecs, 0.5, 0.5);
  } catch (const Failure& f) {
    FAIL(f.what());
  }
}
