#include "tb/buffet_group/group_sim_runs.hpp"

#include <fmt/format.h>

#include <chrono>

#include "Vbench_group4.h"
#include "bench_group4_params.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "tb/buffet_group/buffet_group_bench.hpp"

namespace cello::tb {

namespace {
constexpr GroupFeatures kGroup = CELLO_GROUP_FEATURES(cello::params::bench_group4);

// Partitions (L1s) whose input tile holds input x.
uint64_t input_mask(const ConvStream& s, unsigned targets, unsigned x) {
  uint64_t m = 0;
  for (unsigned k = 0; k < targets; ++k)
    if (x >= k * s.outputs && x < k * s.outputs + s.outputs + s.filter - 1) m |= 1ULL << k;
  return m;
}

void send(GroupProgram& p, uint64_t idx, uint64_t mask, unsigned targets, bool multicast) {
  if (multicast) return p.read(idx, mask);
  for (unsigned k = 0; k < targets; ++k)
    if (mask >> k & 1) p.read(idx, 1ULL << k);
}
}  // namespace

unsigned conv_l2_pass(const ConvStream& s, unsigned targets) { return s.filter + targets * s.outputs + s.filter - 1; }
unsigned conv_l1_pass(const ConvStream& s) { return s.filter + s.outputs + s.filter - 1; }
unsigned bench_group_targets() { return kGroup.targets; }
unsigned bench_group_l2_depth() { return kGroup.l2_depth; }
unsigned bench_group_l1_depth() { return kGroup.l1_depth; }

ConvFigures bench_group_conv(const ConvStream& s) {
  const unsigned K = kGroup.targets;
  if (s.filter < 1 || s.outputs < 1 || conv_l2_pass(s, K) > kGroup.l2_depth || conv_l1_pass(s) > kGroup.l1_depth)
    throw Error("bench buffet --multicast", fmt::format("--filter {} --outputs {}", s.filter, s.outputs),
                fmt::format("a pass stages {} elements in the L2 (depth {}) and {} in each L1 (depth {})",
                            conv_l2_pass(s, K), kGroup.l2_depth, conv_l1_pass(s), kGroup.l1_depth));
  GroupProgram l2;
  std::vector<GroupProgram> l1(K);
  const uint64_t all = (1ULL << K) - 1;
  for (unsigned p = 0; p < s.passes; ++p) {
    for (unsigned f = 0; f < s.filter; ++f) send(l2, f, all, K, s.multicast);
    for (unsigned x = 0; x < conv_l2_pass(s, K) - s.filter; ++x)
      send(l2, s.filter + x, input_mask(s, K, x), K, s.multicast);
    l2.shrink(conv_l2_pass(s, K));
    for (auto& r : l1) {
      for (unsigned f = 0; f < s.filter; ++f) {
        r.read(f);  // the weight, held in the PE's register
        for (unsigned o = 0; o < s.outputs; ++o) r.read(s.filter + o + f);
      }
      r.shrink(conv_l1_pass(s));
    }
  }
  ConvFigures out;
  out.targets = K;
  out.l2_depth = kGroup.l2_depth;
  out.l1_depth = kGroup.l1_depth;
  GroupBench<Vbench_group4, kGroup> bench(s.multicast ? 11 : 12);
  bench.set_dram_budget(uint64_t(s.passes) * conv_l2_pass(s, K));  // DRAM holds exactly the stream
  auto t0 = std::chrono::steady_clock::now();
  try {
    auto st = bench.run(l2, l1, GroupRates{});
    out.cycles = st.cycles;
    out.l2_reads = st.l2_reads;
    out.dram_fills = st.dram_fills;
    out.l1_fills = st.l1_fills;
    out.l1_reads = st.l1_reads;
    out.credit_stall_cycles = st.credit_stall_cycles;
    out.passed = bench.status() == 0;
    if (!out.passed) out.failure = "status_err raised";
  } catch (const Failure& f) {
    out.failure = f.what();
  }
  out.seconds = seconds_since(t0);
  return out;
}

}  // namespace cello::tb
