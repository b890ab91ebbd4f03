// Randomised differential test of one generated buffet group (an L2 buffet
// filling K L1 buffets through the multicast unit) against the composed model.
// Built once per configs/tb/buffet_group/<name>.json; every size comes from the
// parameter header `cello gen` wrote for the same file.
#include <catch2/catch.hpp>

#include CELLO_TB_PARAMS
#include "Vgroup.h"
#include "sw/common/skip_test.hpp"
#include "tb/buffet_group/buffet_group_bench.hpp"
#include "tb/harness/checked.hpp"

using namespace cello::tb;

namespace {

namespace P = cello::params::CELLO_TB_MODULE;
constexpr GroupFeatures kF = CELLO_GROUP_FEATURES(P);
constexpr unsigned K = kF.targets;
using Bench = GroupBench<Vgroup, kF>;

uint64_t reads_per_segment() {
  const char* s = std::getenv("CELLO_GROUP_READS");
  return s ? std::strtoull(s, nullptr, 0) : 4000;
}

// Each L1's reader over the elements the L2 program sends it, shrinking at its own rate.
std::vector<GroupProgram> l1_programs(const GroupProgram& l2, const std::vector<double>& shrink_rates, Rng& rng) {
  std::vector<GroupProgram> out;
  for (unsigned k = 0; k < K; ++k)
    out.push_back(random_l1_program(kF.l1_depth, K > 1 ? l2.reads_for(k) : l2.reads(), shrink_rates[k], rng));
  return out;
}

GroupRates random_rates(Rng& rng) {
  auto r = [&] { return 0.15 + 0.85 * static_cast<double>(rng.below(1000)) / 1000.0; };
  GroupRates g{r(), r(), r(), r(), {}, {}, {}};
  for (unsigned k = 0; k < K; ++k) {
    g.l1_read.push_back(r());
    g.l1_shrink.push_back(r());
    g.l1_rsp.push_back(r());
  }
  return g;
}

// Segments of random traffic, each with new stall rates (a third without
// stalls) and shrink rates that differ per L1 (0.05 to 0.6).
void run_mix(MaskMix mix, uint64_t seed) {
  Bench bench(seed_from_env(seed));
  CELLO_SEED_INFO(bench.seed());
  auto& rng = bench.rng();
  GroupRunStats sum;
  uint64_t expected_fills = 0;
  try {
    for (int s = 0; s < 6; ++s) {
      GroupProgram l2 = random_l2_program(kF.l2_depth, K, reads_per_segment(), mix, 0.2, rng);
      std::vector<double> shrink(K);
      for (unsigned k = 0; k < K; ++k) shrink[k] = 0.05 + 0.55 * (K > 1 ? double((k + s) % K) / (K - 1) : 0.5);
      for (unsigned k = 0; k < K; ++k) expected_fills += K > 1 ? l2.reads_for(k) : l2.reads();
      auto st = bench.run(l2, l1_programs(l2, shrink, rng), s % 3 == 0 ? GroupRates{} : random_rates(rng));
      sum.l2_reads += st.l2_reads;
      sum.l1_fills += st.l1_fills;
      sum.credit_stall_cycles += st.credit_stall_cycles;
      sum.l1_shrinks += st.l1_shrinks;
    }
  } catch (const Failure& f) {
    FAIL(f.what());
  }
  CHECK(bench.status() == 0);
  CHECK(sum.l2_reads == 6 * reads_per_segment());
  CHECK(sum.l1_fills == expected_fills);  // every masked target got every element once
  INFO("cycles an L2 read waited for a masked L1's credit: " << sum.credit_stall_cycles);
  if (K > 1) CHECK(sum.credit_stall_cycles > 0);  // the stimulus ran L1s out of credit
  for (unsigned k = 0; k < K; ++k) CHECK(bench.model().l1(k).occupancy() == 0);
}

}  // namespace

TEST_CASE("random masks with back-pressure on every port and shrinks at different rates per L1", "[buffet_group]") {
  run_mix(MaskMix::Random, 1);
}
TEST_CASE("unicast only", "[buffet_group]") { run_mix(MaskMix::Unicast, 2); }
TEST_CASE("broadcast only", "[buffet_group]") { run_mix(MaskMix::Broadcast, 3); }

TEST_CASE("a target that never shrinks stalls only the reads that name it", "[buffet_group]") {
  if (K == 1) cello::skip_test("one target: every read names it");
  Bench bench(seed_from_env(4));
  CELLO_SEED_INFO(bench.seed());
  auto& rng = bench.rng();
  const unsigned stuck = K - 1;
  const uint64_t others = (1ULL << stuck) - 1;
  // The stuck L1 receives exactly as many elements as it holds, then the L2
  // program only names the other targets.
  GroupProgram l2;
  for (unsigned i = 0; i < kF.l1_depth; ++i) l2.read(rng.below(kF.l2_depth), (1ULL << K) - 1);
  GroupProgram rest = random_l2_program(kF.l2_depth, K - 1, reads_per_segment(), MaskMix::Random, 0.2, rng);
  l2.ops.insert(l2.ops.end(), rest.ops.begin(), rest.ops.end());
  std::vector<double> shrink(K, 0.3);
  shrink[stuck] = 0;  // reads only
  try {
    auto st = bench.run(l2, l1_programs(l2, shrink, rng), random_rates(rng));
    CHECK(st.l2_reads == l2.reads());
    CHECK(bench.model().credits().credits(stuck) == 0);
    CHECK(bench.model().l1(stuck).occupancy() == kF.l1_depth);
    // A read naming the stuck target waits for as long as it does not shrink;
    // the model agreed with rd_req_ready on every one of those cycles.
    CHECK(bench.offer_blocked_read(1ULL << stuck | (others & 1), 3000) == 3000);
  } catch (const Failure& f) {
    FAIL(f.what());
  }
  CHECK(bench.status() == 0);
}

TEST_CASE("unstalled broadcast streaming sustains one L2 read per cycle", "[buffet_group]") {
  // The credit round trip (reserve, fill, read, shrink, credit back) is 4 cycles.
  if (kF.l1_depth < 5) cello::skip_test("L1 smaller than the credit round trip; full throughput is not expected");
  Bench bench(seed_from_env(5));
  GroupProgram l2;
  const uint64_t n = 20000;
  for (uint64_t i = 0; i < n; ++i) {
    l2.read(0, (1ULL << K) - 1);
    l2.shrink(1);
  }
  std::vector<GroupProgram> l1(K);
  for (auto& p : l1)
    for (uint64_t i = 0; i < n; ++i) {
      p.read(0);
      p.shrink(1);
    }
  GroupRunStats st;
  try {
    st = bench.run(l2, l1, GroupRates{});
  } catch (const Failure& f) {
    FAIL(f.what());
  }
  double per_cycle = double(st.l2_reads) / double(st.cycles);
  INFO("L2 reads per cycle " << per_cycle << ", L1 fills per cycle " << double(st.l1_fills) / double(st.cycles));
  CHECK(per_cycle >= 0.99);
  CHECK(st.l1_fills == n * K);
}

TEST_CASE("an L2 read index beyond the depth is dropped and flagged", "[buffet_group]") {
  if ((1ULL << kF.l2_iw) == kF.l2_depth) cello::skip_test("the L2 depth is a power of two: no index is out of range");
  Bench bench(seed_from_env(6));
  CELLO_SEED_INFO(bench.seed());
  GroupProgram l2;
  l2.read(kF.l2_depth, 1);
  l2.read(0, 1);
  std::vector<GroupProgram> l1(K);
  l1[0].read(0);
  l1[0].shrink(1);
  try {
    auto st = bench.run(l2, l1, GroupRates{});
    CHECK(st.l2_reads == 1);  // the bad one never reached the L2 or the credits
  } catch (const Failure& f) {
    FAIL(f.what());
  }
  CHECK(bench.status() == 1);  // bit 0: read index >= size
}
