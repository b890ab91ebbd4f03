// Randomised test of one generated register file against a model: a stream of
// row loads under random stalls (including row indices past the last row, which
// must be dropped) while every cycle reads a random row and checks the broadcast
// vector word for word; resets in between check that rows read as zero until
// loaded. With word_writes each load carries a random word mask (single words,
// as the top's engine writes, and arbitrary masks), and a word reads as zero
// until it is written. Built once per configuration under configs/tb/regfile/ as Vrf; the
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
  uint32_t mask = 0;  // word_writes: the words written
  std::vector<uint32_t> data;
};

// The port exists only in word_writes builds.
template <class Dut>
constexpr bool kWordWrites = requires(Dut& d) { d.ld_mask; };

// A template, so that a build without the port never compiles the assignment.
template <class Dut>
void drive_mask(Dut& d, uint32_t mask) {
  if constexpr (kWordWrites<Dut>) d.ld_mask = mask;
}

uint32_t random_mask(Rng& rng, int cols) {
  const uint32_t all = (1u << cols) - 1;  // cols <= 16
  switch (rng.below(3)) {
    case 0: return 1u << rng.below(static_cast<uint64_t>(cols));  // one word, as the engine writes
    case 1: return all;
    default: return static_cast<uint32_t>(rng.bits(32)) & all;  // any mask, empty included
  }
}

void run(uint64_t seed, int segments, int cycles) {
  const unsigned rows = static_cast<unsigned>(config().rows);
  const int cols = config().cols, row_bits = config().row_width();
  CELLO_SEEDED_RNG(rng, seed);
  Sim<Vrf> sim;
  auto& d = sim.dut();
  constexpr bool words = kWordWrites<Vrf>;
  std::vector<std::vector<uint32_t>> model;
  std::vector<std::vector<bool>> written;  // per word (row loads write every word)
  uint64_t reads = 0, loads = 0;
  try {
    for (int s = 0; s < segments; ++s) {
      d.ld_valid = 0;
      sim.reset();
      model.assign(rows, std::vector<uint32_t>(cols, 0));
      written.assign(rows, std::vector<bool>(cols, false));
      Source<Load> src(rng, s % 3 == 0 ? 1.0 : 0.1 + 0.9 * static_cast<double>(rng.below(100)) / 100.0);
      for (int c = 0; c < cycles; ++c) {
        while (src.pending() < 2) {
          Load l;
          l.row = static_cast<unsigned>(rng.below(1u << row_bits));  // may be past the last row
          l.mask = words ? random_mask(rng, cols) : (1u << cols) - 1;
          for (int w = 0; w < cols; ++w) l.data.push_back(static_cast<uint32_t>(rng.bits(32)));
          src.push(l);
        }
        bool v = src.drive();
        d.ld_valid = v;
        if (v) {
          d.ld_row = src.item().row;
          drive_mask(d, src.item().mask);
          put_words(d.ld_data, src.item().data);
        }
        unsigned rd = static_cast<unsigned>(rng.below(1u << row_bits));
        d.rd_row = rd;
        sim.settle();
        if (!d.ld_ready) throw Failure("ld_ready low");
        std::vector<uint32_t> want(cols, 0);
        for (int w = 0; w < cols && rd < rows; ++w)
          if (written[rd][w]) want[w] = model[rd][w];
        auto got = get_words(d.rd_data, cols);
        for (int w = 0; w < cols; ++w)
          if (got[w] != want[w])
            throw Failure(fmt::format("cycle {}: row {} word {} = {:08x}, expected {:08x}", c, rd, w, got[w], want[w]));
        ++reads;
        if (v && src.item().row < rows) {
          for (int w = 0; w < cols; ++w) {
            if (!((src.item().mask >> w) & 1u)) continue;
            model[src.item().row][w] = src.item().data[w];
            written[src.item().row][w] = true;
          }
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
