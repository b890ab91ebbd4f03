// Randomised test of one generated register file against a model: a stream of
// row loads under random stalls (including row indices past the last row, which
// must be dropped) while every cycle reads a random row and checks the broadcast
// vector word for word; resets in between check that rows read as zero until
// loaded. Built once per configuration under configs/tb/regfile/ as Vrf; the
// sizes come from that file (harness/tb_config.hpp).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <vector>

#include "Vrf.h"
#include "tb/harness/checked.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/tb_config.hpp"
#include "tb/harness/stream.hpp"
#include "tb/harness/port_words.hpp"

using namespace cello::tb;

namespace {

const cello::gen::RegfileConfig& config() { return tb_block(tb_hw_config().regfiles); }

struct Load {
  unsigned row = 0;
  std::vector<uint32_t> data;
};

void run(uint64_t seed, int segments, int cycles) {
  const unsigned rows = static_cast<unsigned>(config().rows);
  const int cols = config().cols, row_bits = config().row_width();
  CELLO_SEEDED_RNG(rng, seed);
  Sim<Vrf> sim;
  auto& d = sim.dut();
  std::vector<std::vector<uint32_t>> model;
  std::vector<bool> loaded;
  uint64_t reads = 0, loads = 0;
  try {
    for (int s = 0; s < segments; ++s) {
      d.ld_valid = 0;
      sim.reset();
      model.assign(rows, std::vector<uint32_t>(cols, 0));
      loaded.assign(rows, false);
      Source<Load> src(rng, s % 3 == 0 ? 1.0 : 0.1 + 0.9 * static_cast<double>(rng.below(100)) / 100.0);
      for (int c = 0; c < cycles; ++c) {
        while (src.pending() < 2) {
          Load l;
          l.row = static_cast<unsigned>(rng.below(1u << row_bits));  // may be past the last row
          for (int w = 0; w < cols; ++w) l.data.push_back(static_cast<uint32_t>(rng.bits(32)));
          src.push(l);
        }
        bool v = src.drive();
        d.ld_valid = v;
        if (v) {
          d.ld_row = src.item().row;
          put_words(d.ld_data, src.item().data);
        }
        unsigned rd = static_cast<unsigned>(rng.below(1u << row_bits));
        d.rd_row = rd;
        sim.settle();
        if (!d.ld_ready) throw Failure("ld_ready low");
        std::vector<uint32_t> want(cols, 0);
        if (rd < rows && loaded[rd]) want = model[rd];
        auto got = get_words(d.rd_data, cols);
        if (got != want) throw Failure(fmt::format("cycle {}: row {} word 0 = {:08x}, expected {:08x}", c, rd, got[0], want[0]));
        ++reads;
        if (v && src.item().row < rows) {
          model[src.item().row] = src.item().data;
          loaded[src.item().row] = true;
          ++loads;
        }
        src.complete(true);
        sim.note("cycle checked", static_cast<uint64_t>(c));
        sim.tick();
      }
    }
  } catch (const Failure& f) {
    FAIL(f.what());
  }
  CHECK(reads == static_cast<uint64_t>(segments) * static_cast<uint64_t>(cycles));
  CHECK(loads > 0);
}

}  // namespace

TEST_CASE("stream loads and broadcast reads match the model", "[regfile]") { run(1, 9, 4000); }
TEST_CASE("short segments: rows read zero after reset until loaded", "[regfile]") { run(2, 200, 12); }
