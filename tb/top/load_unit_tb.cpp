// Randomised test of the top's load unit (`<top>_load_unit`) with the testbench
// DRAM model: word-read streams of every shape (sequential runs, strides,
// random words, one word again and again, and SPMM's CSR order: rows of a group
// interleaved, each row's start pinned), with random pinned reads, under random
// stalls on the read and word ports, DRAM latency fixed or random, responses in
// or out of order, and several bandwidths. Every word must equal the image's
// word; the DRAM reads must equal the reference count of the reuse window and
// the pins (a read misses when its granule is neither among the last `window`
// granules fetched nor among the last `pins` granules pinned since the last
// inval); between phases the image changes and inval must make the new data
// visible (pinned copies included).
// Built once per top config (Vload), and on a top with word pairs once more
// for the operand ports' `<top>_pair_load_unit` (Vpload, CELLO_LOAD_TB_PAIRS):
// beside each word it must return the odd word of the word's aligned pair
// (the engine's GEMM row pairs read those). The operand ports never pin, so
// that build reads without pins.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#ifdef CELLO_LOAD_TB_PAIRS
#include "Vpload.h"
using Vunit = Vpload;
constexpr bool kPairs = true;
#else
#include "Vload.h"
using Vunit = Vload;
constexpr bool kPairs = false;
#endif
#include "tb/top/access_patterns.hpp"
#include "sw/exec/engine_reads.hpp"
#include "tb/harness/dram_model.hpp"
#include "tb/harness/checked.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/stream.hpp"
#include "tb/harness/port_words.hpp"
#include "gen/top/load_unit_gen.hpp"
#include "gen/top/top_config.hpp"

using namespace cello;
using namespace cello::tb;
using exec::ReuseWindow;

namespace {

constexpr uint64_t kImageWords = 1 << 14;  // 64 KiB of the address space

// SPMM's entry fetcher's order (exec::csr_entry_order) on a CSR array of 1 to 6
// groups of 4 rows of random lengths.
void csr_pattern(Rng& rng, uint64_t image_words, std::vector<uint64_t>& reads, std::vector<bool>& pins) {
  const uint64_t at = rng.below(image_words / 2);
  const uint64_t max_len = std::vector<uint64_t>{4, 30, 120}[rng.below(3)];
  std::vector<uint64_t> row_ptr{0};
  for (int r = 0, rows = 4 * (1 + static_cast<int>(rng.below(6))); r < rows; ++r)
    row_ptr.push_back(std::min(image_words - at, row_ptr.back() + rng.below(max_len + 1)));
  exec::csr_entry_order(row_ptr, [&](uint64_t e, bool pin) {
    reads.push_back(at + e);
    pins.push_back(pin);
  });
}

void run(uint64_t seed, int segments) {
  const arch::Arch a = gen::load_arch(TOP_CONFIG);
  const unsigned G = a.granule_bytes, GW = G / 4;
  INFO("reuse window " << a.load_window << " granules");
  CELLO_SEEDED_RNG(rng, seed);
  Sim<Vunit> sim;
  auto& d = sim.dut();
  uint64_t words_checked = 0, dram_reads = 0;
  run_checked(sim, [&] {
    for (int seg = 0; seg < segments; ++seg) {
      std::vector<uint8_t> image(kImageWords * 4);
      for (auto& b : image) b = static_cast<uint8_t>(rng.bits(8));
      DramModel dram(image, random_dram_timing(rng, G), rng);
      const double req_rate = random_rate(rng), rsp_rate = random_rate(rng);
      d.req_valid = 0;
      d.req_pin = 0;
      d.inval = 0;
      d.dram_rsp_valid = 0;
      sim.reset();
      uint64_t expect_reads = 0;
      std::vector<uint64_t> last_words;
      ReuseWindow window(a.load_window, static_cast<size_t>(gen::load_unit_shape(a).pins));
      for (int phase = 0; phase < 4; ++phase) {
        // Either a word pattern with a random share of pinned reads, or the
        // entry fetcher's CSR order (rows interleaved, each row's start pinned).
        std::vector<uint64_t> reads;
        std::vector<bool> pins;
        if (kPairs || rng.chance(0.5)) {
          reads = word_pattern(rng, kImageWords);
          const double pin_rate = kPairs ? 0.0 : std::vector<double>{0, 0.05, 0.3}[rng.below(3)];
          for (size_t i = 0; i < reads.size(); ++i) pins.push_back(rng.chance(pin_rate));
        } else {
          csr_pattern(rng, kImageWords, reads, pins);
        }
        // Often start on the words the last phase read last, which just changed:
        // only inval stops those reads from hitting stale lines of the window.
        if (phase > 0 && rng.chance(0.5)) {
          reads.insert(reads.begin(), last_words.begin(), last_words.end());
          pins.insert(pins.begin(), last_words.size(), !kPairs);
        }
        last_words.assign(reads.end() - static_cast<std::ptrdiff_t>(std::min<size_t>(reads.size(), 24)), reads.end());
        window.inval();  // each phase starts after inval (the first with an empty window)
        for (size_t i = 0; i < reads.size(); ++i) expect_reads += window.miss(reads[i] / GW, pins[i]);
        Source<std::pair<uint64_t, bool>> src(rng, req_rate);
        for (size_t i = 0; i < reads.size(); ++i) src.push({reads[i], pins[i]});
        size_t returned = 0;
        bool inval = phase > 0;  // pulse once at the start of every later phase
        while (returned < reads.size()) {
          const bool v = src.drive();
          d.req_valid = v;
          if (v) {
            d.req_word = src.item().first;
            d.req_pin = src.item().second;
          }
          d.inval = inval;
          d.rsp_ready = rng.chance(rsp_rate);
          d.dram_req_ready = dram.req_ready();
          const DramResponse* r = dram.response();
          d.dram_rsp_valid = r != nullptr;
          if (r) {
            std::vector<uint32_t> words(GW);
            std::memcpy(words.data(), r->data.data(), G);
            put_words(d.dram_rsp_data, words);
            d.dram_rsp_tag = static_cast<uint32_t>(r->tag);
          }
          sim.settle();
          if (d.dram_req_valid && d.dram_req_ready) {
            dram.accept({d.dram_req_addr, false, {}, d.dram_req_tag});
            ++dram_reads;
          }
          if (r && d.dram_rsp_ready) dram.taken();
          if (d.rsp_valid && d.rsp_ready) {
            const uint64_t w = reads[returned];
            uint32_t want;
            std::memcpy(&want, &image[4 * w], 4);
            if (d.rsp_data != want)
              throw Failure(fmt::format("read {} of phase {} (word {:#x}): {:08x}, expected {:08x}", returned, phase, w,
                                        d.rsp_data, want));
#ifdef CELLO_LOAD_TB_PAIRS
            uint32_t odd;
            std::memcpy(&odd, &image[4 * (w | 1)], 4);
            if (d.rsp_data2 != odd)
              throw Failure(fmt::format("read {} of phase {} (word {:#x}): data2 {:08x}, expected word {:#x}'s {:08x}",
                                        returned, phase, w, d.rsp_data2, w | 1, odd));
#endif
            ++returned;
            ++words_checked;
            sim.note("word", w);
          }
          if (src.complete(d.req_ready)) sim.note("read");
          inval = false;
          sim.tick();
          dram.tick();
        }
        // Idle between phases: then the image changes (as stores would change it).
        sim.settle();
        if (!d.idle) throw Failure("not idle after every word returned");
        for (int k = 0; k < 64; ++k) image[rng.below(image.size())] ^= static_cast<uint8_t>(1 + rng.below(255));
        for (uint64_t w : last_words) image[4 * w] ^= static_cast<uint8_t>(1 + rng.below(255));
      }
      const uint64_t got = dram.bytes_read() / G;
      if (got != expect_reads)
        throw Failure(fmt::format("segment {}: {} DRAM reads, the coalescing reference says {}", seg, got, expect_reads));
    }
  });
  fmt::print("load unit: {} words checked, {} DRAM reads\n", words_checked, dram_reads);
  CHECK(words_checked > 0);
}

}  // namespace

#ifdef CELLO_LOAD_TB_PAIRS
TEST_CASE("pair load unit: every read stream shape, DRAM timing and stall pattern, each word's pair word", "[top][load_unit]") {
  run(12, 60);
}
#else
TEST_CASE("load unit: every read stream shape, DRAM timing and stall pattern", "[top][load_unit]") { run(11, 60); }
#endif
