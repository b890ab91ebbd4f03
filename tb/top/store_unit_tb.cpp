// Randomised test of the top's store unit (`<top>_store_unit`) with the
// testbench DRAM model: write streams of every shape (sequential runs,
// strides, random words, one word again and again) with flushes at random
// points, random stalls on the write port, DRAM bandwidth and acknowledgement
// latency fixed or random. After each phase (flush held until idle) the image
// must equal the reference (every write applied in order, no other byte
// touched), and the number of DRAM writes must equal the reference count (one
// per granule opened: the last store_window granules opened since a flush stay
// open for merging). On a top with word pairs (the engine's GEMM row pairs),
// a random share of the writes are aligned pairs (wr_pair: data2 goes to the
// even word's odd neighbour), applied by the reference as two writes. Built
// once per top config (Vstore).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <cstring>
#include <vector>

#include "Vstore.h"
#include "tb/top/access_patterns.hpp"
#include "sw/exec/engine_reads.hpp"
#include "tb/harness/dram_model.hpp"
#include "tb/harness/checked.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/stream.hpp"
#include "tb/harness/port_words.hpp"
#include "gen/top/top_config.hpp"

using namespace cello;
using namespace cello::tb;
using exec::ReuseWindow;

namespace {

constexpr uint64_t kImageWords = 1 << 14;

struct Write {
  uint64_t word = 0;
  uint32_t data = 0;
  bool flush_before = false;  // hold flush for a while before offering this write
  bool pair = false;          // an aligned pair: word is even, data2 goes to word + 1
  uint32_t data2 = 0;
};

// The store unit's writes: a word pattern with random data, and now and then
// a flush before a write; with pairs, a share pair_rate of them become the
// aligned pair of their word.
std::vector<Write> phase_writes(Rng& rng, double pair_rate) {
  std::vector<Write> w;
  for (uint64_t word : word_pattern(rng, kImageWords)) {
    Write x{word, static_cast<uint32_t>(rng.bits(32)), rng.chance(0.02)};
    if (rng.chance(pair_rate)) {
      x.pair = true;
      x.word &= ~uint64_t{1};
      x.data2 = static_cast<uint32_t>(rng.bits(32));
    }
    w.push_back(x);
  }
  return w;
}

// The DUT has the pair port (a top whose engine runs GEMM row pairs).
template <class D>
constexpr bool kHasPairs = requires(D& v) { v.wr_pair; };
constexpr bool kPairs = kHasPairs<Vstore>;
template <class D>
void drive_pair(D& d, bool pair, uint32_t data2) {
  if constexpr (requires { d.wr_pair; }) {
    d.wr_pair = pair;
    d.wr_data2 = data2;
  }
}

void run(uint64_t seed, int segments) {
  const arch::Arch a = gen::load_arch(TOP_CONFIG);
  const unsigned G = a.granule_bytes, GW = G / 4;
  CELLO_SEEDED_RNG(rng, seed);
  Sim<Vstore> sim;
  auto& d = sim.dut();
  uint64_t writes_total = 0, pairs_total = 0;
  run_checked(sim, [&] {
    for (int seg = 0; seg < segments; ++seg) {
      std::vector<uint8_t> image(kImageWords * 4);
      for (auto& b : image) b = static_cast<uint8_t>(rng.bits(8));
      std::vector<uint8_t> want = image;
      DramModel dram(image, random_dram_timing(rng, G), rng);
      const double wr_rate = random_rate(rng);
      d.wr_valid = 0;
      d.flush = 0;
      d.dram_rsp_valid = 0;
      sim.reset();
      uint64_t expect_writes = 0;
      ReuseWindow open(a.store_window);
      for (int phase = 0; phase < 3; ++phase) {
        const std::vector<Write> writes = phase_writes(rng, kPairs ? std::vector<double>{0, 0.5, 1}[rng.below(3)] : 0.0);
        // Reference: apply in order; a DRAM write per granule opened, where the
        // last store_window granules opened since the last flush stay open (the
        // reuse window's rule, sw/exec/engine_reads.hpp), and a flush closes them all.
        for (const auto& w : writes) {
          if (w.flush_before) open.inval();
          expect_writes += open.miss(w.word / GW);
          std::memcpy(&want[4 * w.word], &w.data, 4);
          if (w.pair) std::memcpy(&want[4 * (w.word + 1)], &w.data2, 4);
        }
        open.inval();
        size_t next = 0, flushed_for = SIZE_MAX;
        for (uint64_t guard = 0;; ++guard) {
          if (guard > 10000000) throw Failure("phase did not finish");
          // Flush (held until idle) before a write marked flush_before, and at the end.
          const bool draining = next == writes.size();
          const bool flushing = draining || (writes[next].flush_before && flushed_for != next);
          const bool offer = !flushing && rng.chance(wr_rate);
          d.wr_valid = offer;
          if (offer) {
            d.wr_word = writes[next].word;
            d.wr_data = writes[next].data;
          }
          drive_pair(d, offer && writes[next].pair, offer ? writes[next].data2 : 0);
          d.flush = flushing;
          d.dram_req_ready = dram.req_ready();
          const DramResponse* r = dram.response();
          d.dram_rsp_valid = r != nullptr;
          sim.settle();
          if (d.dram_req_valid && d.dram_req_ready) {
            DramRequest q{d.dram_req_addr, true, std::vector<uint8_t>(G), 0, std::vector<bool>(G)};
            std::vector<uint32_t> words = get_words(d.dram_req_data, GW);
            std::memcpy(q.data.data(), words.data(), G);
            for (unsigned b = 0; b < G; ++b) q.strb[b] = (get_word(d.dram_req_strb, b / 32) >> (b % 32)) & 1;
            dram.accept(q);
            sim.note("dram write", d.dram_req_addr);
          }
          if (r && d.dram_rsp_ready) dram.taken();
          if (offer && d.wr_ready) {
            pairs_total += writes[next].pair;
            ++next;
            ++writes_total;
            sim.note("write", next);
          }
          if (flushing && d.idle) {
            if (draining) break;
            flushed_for = next;
          }
          sim.tick();
          dram.tick();
        }
        d.flush = 0;
        if (image != want) {
          for (size_t i = 0; i < image.size(); ++i)
            if (image[i] != want[i])
              throw Failure(fmt::format("phase {}: image byte {:#x} = {:02x}, expected {:02x}", phase, i, image[i], want[i]));
        }
      }
      const uint64_t got = dram.bytes_written() / G;
      if (got != expect_writes)
        throw Failure(fmt::format("segment {}: {} DRAM writes, the reference says {}", seg, got, expect_writes));
    }
  });
  fmt::print("store unit: {} writes checked, {} of them pairs\n", writes_total, pairs_total);
  CHECK(writes_total > 0);
  CHECK((pairs_total > 0) == kPairs);
}

}  // namespace

TEST_CASE("store unit: every write stream shape, flushes, DRAM timing and stalls", "[top][store_unit]") { run(21, 60); }
