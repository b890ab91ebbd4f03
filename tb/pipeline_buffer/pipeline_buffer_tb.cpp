// Randomised test of one generated pipeline buffer against PipelineBufferModel
// (sw/mac/pipeline_buffer_model.hpp), with random back-pressure on every port:
// producer, and each consumer's requests and responses.
// Checks: every response equals the model's element, in request order; no read
// is accepted before its element can be in the buffer; the producer never gets
// more than DEPTH + TILE * (tiles finished by every consumer) elements in, i.e.
// no tile is shrunk (and overwritten) before the delayed consumer read it.
// Built per configs/tb/pipeline_buffer/<name>.json as Vpb; the tile, hold depth
// and width come from the parameter header `cello gen` wrote beside the RTL
// (CELLO_TB_PARAMS, namespace of module CELLO_TB_MODULE).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <vector>

#include CELLO_TB_PARAMS
#include "sw/common/bits.hpp"
#include "Vpb.h"
#include "tb/harness/checked.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/stream.hpp"
#include "sw/common/error.hpp"
#include "sw/common/skip_test.hpp"
#include "sw/mac/pipeline_buffer_model.hpp"

using namespace cello;
using namespace cello::tb;

namespace {

namespace P = cello::params::CELLO_TB_MODULE;
constexpr int kTile = P::tile, kHold = P::hold_tiles, kWidth = P::data_width;
// The delayed consumer's ports (del_*) exist only when tiles are held.
#define PB_DELAYED_PORTS CELLO_HAS_PORT(CELLO_TB_MODULE, del_req_valid)

constexpr bool kDelayed = kHold > 0;
#if PB_DELAYED_PORTS
static_assert(kDelayed, "a pipeline buffer that holds no tile has no del_* ports");
#else
static_assert(!kDelayed, "a pipeline buffer that holds tiles has del_* ports");
#endif
constexpr int kConsumers = kDelayed ? 2 : 1;
constexpr int kIdxBits = std::max(1, cello::ceil_log2(kTile));
constexpr uint64_t kDataMask = kWidth >= 64 ? ~0ULL : ((1ULL << kWidth) - 1);

struct Req {
  int idx = 0;
  bool last = false;
};

enum class Pattern { Sequential, Permuted, Subset };

// Requests for one tile: all elements in order, a permutation, or a random
// subset with repeats; the final request carries last.
std::vector<Req> tile_requests(Rng& rng, Pattern p) {
  std::vector<Req> out;
  if (p == Pattern::Subset) {
    int n = static_cast<int>(rng.range(1, 2 * kTile));
    for (int i = 0; i < n; ++i) out.push_back({static_cast<int>(rng.below(kTile)), false});
  } else {
    for (int i = 0; i < kTile; ++i) out.push_back({i, false});
    if (p == Pattern::Permuted)
      for (int i = kTile - 1; i > 0; --i) std::swap(out[static_cast<size_t>(i)], out[rng.below(static_cast<uint64_t>(i + 1))]);
  }
  out.back().last = true;
  return out;
}

struct Rates {
  double prod = 1;
  std::array<double, 2> req{1, 1}, rsp{1, 1};
};

struct Stats {
  uint64_t cycles = 0, reads = 0, max_lead = 0;
};

class PbBench {
 public:
  explicit PbBench(uint64_t seed) : rng(seed_from_env(seed)), model_(kTile, kHold) {
    auto& d = sim.dut();
    d.prod_valid = 0;
    d.imm_req_valid = 0;
    d.imm_rsp_ready = 0;
#if PB_DELAYED_PORTS
    d.del_req_valid = 0;
    d.del_rsp_ready = 0;
#endif
    sim.reset();
  }

  // Streams `tiles` tiles through; `del_pause` cycles of no delayed requests first.
  Stats run(uint64_t tiles, const Rates& rates, Pattern pat, uint64_t del_pause = 0) {
    auto& d = sim.dut();
    Source<uint64_t> prod(rng, rates.prod);
    for (uint64_t i = 0; i < tiles * kTile; ++i) prod.push(rng.bits(64) & kDataMask);
    std::array<Source<Req>*, 2> req{};
    Source<Req> r0(rng, rates.req[0]), r1(rng, rates.req[1]);
    req[0] = &r0;
    req[1] = &r1;
    for (int c = 0; c < kConsumers; ++c)
      for (uint64_t t = 0; t < tiles; ++t)
        for (const Req& q : tile_requests(rng, pat)) req[static_cast<size_t>(c)]->push(q);
    std::array<Sink, 2> rsp{Sink(rng, rates.rsp[0]), Sink(rng, rates.rsp[1])};
    std::array<std::deque<uint64_t>, 2> expect;
    HoldChecker<uint64_t> hold_imm("imm_rsp"), hold_del("del_rsp");
    Stats st;
    const uint64_t start = sim.cycle(), base_done = model_.tiles_shrinkable();
    uint64_t idle = 0;
    auto busy = [&] {
      for (int c = 0; c < kConsumers; ++c)
        if (req[static_cast<size_t>(c)]->pending() || !expect[static_cast<size_t>(c)].empty()) return true;
      return prod.pending() > 0;
    };
    while (busy()) {
      bool pv = prod.drive();
      d.prod_valid = pv;
      if (pv) d.prod_data = prod.item();
      bool qv[2] = {false, false};
      for (int c = 0; c < kConsumers; ++c) {
        bool paused = c == 1 && sim.cycle() - start < del_pause;
        qv[c] = !paused && req[static_cast<size_t>(c)]->drive();
      }
      d.imm_req_valid = qv[0];
      if (qv[0]) {
        d.imm_req_idx = static_cast<unsigned>(req[0]->item().idx);
        d.imm_req_last = req[0]->item().last;
      }
      d.imm_rsp_ready = rsp[0].drive();
#if PB_DELAYED_PORTS
      d.del_req_valid = qv[1];
      if (qv[1]) {
        d.del_req_idx = static_cast<unsigned>(req[1]->item().idx);
        d.del_req_last = req[1]->item().last;
      }
      d.del_rsp_ready = rsp[1].drive();
#endif
      sim.settle();

      bool progress = false;
      // Responses (checked before this cycle's requests are recorded).
      auto check_rsp = [&](int c, bool valid, bool ready, uint64_t data, HoldChecker<uint64_t>& hold) {
        hold.sample(valid, ready, data);
        if (!(valid && ready)) return;
        auto& q = expect[static_cast<size_t>(c)];
        if (q.empty()) throw Failure(fmt::format("consumer {}: response without a request", c));
        if (data != q.front())
          throw Failure(fmt::format("consumer {} read #{}: {:#x}, expected {:#x}", c, st.reads, data, q.front()));
        q.pop_front();
        ++st.reads;
        progress = true;
        sim.note("consumer response", st.reads);
      };
      check_rsp(0, d.imm_rsp_valid, d.imm_rsp_ready, d.imm_rsp_data, hold_imm);
#if PB_DELAYED_PORTS
      check_rsp(1, d.del_rsp_valid, d.del_rsp_ready, d.del_rsp_data, hold_del);
#else
      (void)hold_del;
#endif
      if (pv && d.prod_ready) {
        model_.produce(prod.item());
        progress = true;
        if (model_.produced() > model_.credit_bound())
          throw Failure(fmt::format("element {} accepted with room for only {}: a tile was freed before every "
                                    "consumer finished it",
                                    model_.produced(), model_.credit_bound()));
      }
      prod.complete(d.prod_ready);
      bool rr[2] = {static_cast<bool>(d.imm_req_ready), false};
#if PB_DELAYED_PORTS
      rr[1] = d.del_req_ready;
#endif
      for (int c = 0; c < kConsumers; ++c) {
        if (qv[c] && rr[c]) {
          const Req& q = req[static_cast<size_t>(c)]->item();
          expect[static_cast<size_t>(c)].push_back(model_.read(c, q.idx, q.last));
          progress = true;
        }
        req[static_cast<size_t>(c)]->complete(rr[c]);
      }
      if (kDelayed) st.max_lead = std::max(st.max_lead, model_.tiles_done(0) - model_.tiles_done(1));
      if (d.status_err) throw Failure(fmt::format("status_err = {:#x}", static_cast<unsigned>(d.status_err)));
      idle = progress ? 0 : idle + 1;
      if (idle > 2000 + del_pause)
        throw Failure(fmt::format(
            "no progress for 2000 cycles (produced {}, tiles done {}/{}, requests left {}/{}, responses owed {}/{}, "
            "room {})",
            model_.produced(), model_.tiles_done(0), model_.tiles_done(kConsumers - 1), req[0]->pending(),
            req[static_cast<size_t>(kConsumers - 1)]->pending(), expect[0].size(),
            expect[static_cast<size_t>(kConsumers - 1)].size(), model_.credit_bound()));
      sim.tick();
    }
    if (model_.tiles_shrinkable() - base_done != tiles) throw Failure("not every tile was finished");
    st.cycles = sim.cycle() - start;
    return st;
  }

  Sim<Vpb> sim;
  Rng rng;

 private:
  mac::PipelineBufferModel model_;
};

Rates random_rates(Rng& rng, int seg) {
  Rates r;
  if (seg % 3 == 0) return r;
  auto x = [&] { return 0.15 + 0.85 * static_cast<double>(rng.below(1000)) / 1000.0; };
  r.prod = x();
  r.req = {x(), x()};
  r.rsp = {x(), x()};
  return r;
}

}  // namespace

TEST_CASE("tiles stream producer -> consumer(s) under random back-pressure", "[pipeline_buffer]") {
  PbBench b(1);
  run_checked(b, [&] {
    for (int seg = 0; seg < 24; ++seg) {
      Pattern p = seg % 3 == 0 ? Pattern::Sequential : (seg % 3 == 1 ? Pattern::Permuted : Pattern::Subset);
      b.run(static_cast<uint64_t>(std::max(6, 6000 / kTile)), random_rates(b.rng, seg), p);
    }
  });
}

#if PB_DELAYED_PORTS
TEST_CASE("delayed hold: a paused delayed consumer holds DEPTH_TILES tiles, then catches up", "[pipeline_buffer]") {
  PbBench b(2);
  run_checked(b, [&] {
    Rates r;  // no stalls except the pause
    uint64_t tiles = kHold + 6;
    auto st = b.run(tiles, r, Pattern::Sequential, 200 + 4 * kTile * (kHold + 2));
    INFO("immediate consumer led by up to " << st.max_lead << " tiles");
    // The immediate consumer gets exactly hold + 2 tiles ahead, never more.
    CHECK(st.max_lead == static_cast<uint64_t>(kHold + 2));
  });
}
#endif

TEST_CASE("unstalled streaming moves one element per cycle", "[pipeline_buffer]") {
  if (kTile < 8) {
    cello::skip_test("tiles shorter than the shrink/credit round trip are not expected to stream at full rate");
  }
  PbBench b(3);
  run_checked(b, [&] {
    uint64_t tiles = static_cast<uint64_t>(std::max(8, 8000 / kTile));
    auto st = b.run(tiles, Rates{}, Pattern::Sequential);
    double per_cycle = static_cast<double>(tiles * kTile) / static_cast<double>(st.cycles);
    INFO("elements per cycle " << per_cycle);
    // One buffet read port serves both consumers, so each gets half when delayed.
    CHECK(per_cycle >= (kDelayed ? 0.45 : 0.9));
  });
}
