// `<top>_tile_dispatch` (docs/top.md, "Tiles") against the mapping rule it
// implements (exec::launch_on_tiles, arch::tile_rows): on random launches
// (every kind, flags, result shapes from 1 to 70,000 rows, dense operands that
// fit one gather block, several or none) the tiles it starts and the rows it
// gives each must be the rule's; then, with the started tiles finishing in a
// random order over random cycles (some at once, some with err), done must
// pulse exactly once, in the cycle the last of them is done, and err with it
// exactly when one of them reported err.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "Vtiles.h"
#include "gen/hw_config.hpp"
#include "gen/top/load_unit_gen.hpp"
#include "gen/top/stream_engine_gen.hpp"
#include "sw/exec/check.hpp"
#include "tb/harness/checked.hpp"
#include "tb/harness/port_words.hpp"
#include "tb/harness/sim.hpp"

using namespace cello;
using namespace cello::tb;

namespace {

struct Launch {
  unsigned kind;  // 0 GEMM, 1 GRAM, 2 SPMM, 3 ELTW (the engine's codes)
  bool pipe_gram, pipe_gram_x;
  uint64_t z_rows, z_cols, b_rows;
};

stream::Opcode opcode(unsigned kind) {
  constexpr stream::Opcode k[] = {stream::Opcode::Gemm, stream::Opcode::Gram, stream::Opcode::Spmm, stream::Opcode::Eltw};
  return k[kind];
}

}  // namespace

TEST_CASE("tile dispatch: the tiles and rows of the mapping rule, and done once every started tile is done", "[top][tiles]") {
  const gen::HwConfig cfg = gen::load_hw_config(TOP_CONFIG);
  const arch::Arch a = gen::arch_of(cfg, TOP_CONFIG);
  const int tiles = arch::engine_tiles(a);
  REQUIRE(tiles > 1);
  const size_t CW = static_cast<size_t>(gen::engine_count_bits(gen::load_unit_shape(a).addr_bits));
  CELLO_SEEDED_RNG(rng, 7);
  Sim<Vtiles> sim;
  auto& d = sim.dut();
  d.start = 0;
  d.t_done = 0;
  d.t_err = 0;
  sim.reset();
  size_t split = 0, single = 0, errs = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    Launch l{static_cast<unsigned>(rng.below(4)), rng.chance(0.2), rng.chance(0.2), 0, 0, 0};
    l.z_rows = rng.chance(0.3) ? 1 + rng.below(64) : 1 + rng.below(70000);
    l.z_cols = 1 + rng.below(20);
    l.b_rows = rng.chance(0.5) ? l.z_rows : 1 + rng.below(2 * a.gather_words);
    const uint64_t flags = (l.pipe_gram ? stream::kLaunchPipeGram : 0) | (l.pipe_gram_x ? stream::kLaunchPipeGramX : 0);
    const bool on_tiles = exec::launch_on_tiles(opcode(l.kind), flags, l.b_rows, l.z_cols, a.gather_words);
    INFO("trial " << trial << ": kind " << l.kind << ", flags " << flags << ", " << l.z_rows << " x " << l.z_cols
                  << ", X rows " << l.b_rows << ", on tiles " << on_tiles);
    d.kind = l.kind;
    d.pipe_gram = l.pipe_gram;
    d.pipe_gram_x = l.pipe_gram_x;
    d.z_rows = static_cast<uint32_t>(l.z_rows);
    d.z_cols = static_cast<uint32_t>(l.z_cols);
    d.b_rows = static_cast<uint32_t>(l.b_rows);
    d.start = 1;
    sim.settle();
    const std::vector<uint32_t> lo = get_words(d.row_lo, (static_cast<size_t>(tiles) * CW + 31) / 32);
    const std::vector<uint32_t> hi = get_words(d.row_hi, (static_cast<size_t>(tiles) * CW + 31) / 32);
    std::vector<int> started;
    for (int t = 0; t < tiles; ++t) {
      const arch::RowSlice want = on_tiles ? arch::tile_rows(l.z_rows, tiles, t, a.granule_bytes)
                                           : arch::RowSlice{0, t == 0 ? l.z_rows : 0};
      const bool start = t == 0 || (on_tiles && want.lo < want.hi);
      INFO("tile " << t);
      REQUIRE(((d.t_start >> t) & 1u) == start);
      if (!start) continue;
      started.push_back(t);
      REQUIRE(get_slice(lo, static_cast<size_t>(t) * CW, CW) == want.lo);
      REQUIRE(get_slice(hi, static_cast<size_t>(t) * CW, CW) == want.hi);
    }
    (started.size() > 1 ? split : single) += 1;
    sim.tick();
    d.start = 0;
    // The started tiles finish in a random order, some in the same cycle.
    for (size_t k = started.size(); k > 1; --k) std::swap(started[k - 1], started[rng.below(k)]);
    bool any_err = false;
    size_t next = 0;
    while (next < started.size()) {
      const size_t n = rng.chance(0.7) ? 0 : 1 + rng.below(started.size() - next);
      uint32_t done = 0, err = 0;
      for (size_t k = 0; k < n; ++k, ++next) {
        done |= 1u << started[next];
        if (rng.chance(0.05)) err |= 1u << started[next];
      }
      any_err = any_err || err != 0;
      d.t_done = done;
      d.t_err = err;
      sim.settle();
      const bool last = next == started.size();
      REQUIRE(static_cast<bool>(d.done) == last);
      REQUIRE(static_cast<bool>(d.err) == (last && any_err));
      sim.tick();
    }
    errs += any_err;
    d.t_done = 0;
    d.t_err = 0;
    for (int idle = 0; idle < 2; ++idle) {  // no second done
      sim.settle();
      REQUIRE(!d.done);
      sim.tick();
    }
  }
  INFO("launches on several tiles " << split << ", on one " << single << ", with err " << errs);
  CHECK(split > 100);
  CHECK(single > 100);
  CHECK(errs > 10);
}
