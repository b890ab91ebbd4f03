// The accelerator as the compiler, the executor and the models see it: one plain
// value derived from the hardware JSON that `cello gen` reads (gen/top/arch_of.hpp
// builds it from the config's `top` section and the blocks it names). Everything
// that needs a hardware size takes it from here, so there is one source of truth.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include "sw/common/bits.hpp"
#include "sw/score/schedule.hpp"
#include "sw/traffic/models.hpp"

namespace cello::arch {

struct Arch {
  std::string name = "cello";  // hardware config name
  uint64_t config_hash = 0;    // FNV-1a of the canonical config JSON (manifest.json's config_hash)

  // MAC array (mac_arrays entry named by top.mac_array).
  int pe_rows = 4, pe_cols = 4;  // R x C processing elements
  int fma_stages = 3;            // L: FMA depth = accumulation lanes per PE
  int rf_rows = 16;              // register file rows: largest K of one GEMM pass
  bool gram = true, spmm = true; // modes the array was built with

  // CHORD (chord entry named by top.chord); chord_bytes = 0: no CHORD (every
  // tensor that is not pipelined goes to DRAM, the Flexagon-like baseline).
  uint64_t chord_bytes = 0;
  uint32_t chord_entries = 64, chord_extents = 4;
  bool riff = true;
  chord::Victim chord_victim = chord::Geometry{}.victim;  // RIFF's priority key
  bool chord_reserve = chord::Geometry{}.reserve;         // writers keep their own spare space
  bool chord_inplace = chord::Geometry{}.inplace;         // in-place updates take over the old entry
  bool chord_claim = chord::Geometry{}.claim;             // an op's tensors take their space when it starts
  bool chord_clean = chord::Geometry{}.clean;             // fills are clean: no write-back of an input's words

  // Pipeline buffer (pipeline_buffers entry named by top.pipeline_buffer).
  int64_t pipeline_buffer_words = 128;  // words it holds (tile x (hold_tiles + 2))
  int pipeline_hold_tiles = 0;          // delayed-hold depth it supports

  // Memory system and host.
  unsigned word_bytes = 4;             // fp32 words and 32-bit CSR indices
  unsigned granule_bytes = 16;         // DRAM burst = CHORD line = traffic unit
  double dram_bytes_per_cycle = 16;    // DRAM bandwidth
  unsigned dram_latency = 100;         // cycles from request to first response
  double clock_ghz = 1.0;
  unsigned host_cycles = 2000;         // accelerator cycles one HOST round trip costs
  uint64_t memory_bytes = 1ull << 30;  // largest DRAM image a stream may address
  unsigned load_window = 16;           // granules the top's load units keep for reuse within one op
  unsigned store_window = 16;          // granules the top's store unit keeps open for merging within one op
  uint64_t gather_words = 131072;      // the top's SPMM gather buffer: words of the dense operand staged on chip
  uint64_t tensor_table = 65536;       // tensor descriptors the top holds: a stream's ids are below it

  // The top's CHORD holds the CHORD-bound tensors (docs/config.md, `top.chord`);
  // otherwise the top runs every tensor from DRAM and its CHORD commands have no effect.
  bool chord_on_datapath = false;

  bool has_chord() const { return chord_bytes > 0; }
  uint64_t macs_per_cycle() const { return static_cast<uint64_t>(pe_rows) * static_cast<uint64_t>(pe_cols); }
};

// Granules a pinned read keeps a copy of in the top's load units (SPMM's
// column-index and value units pin a group's row starts; docs/top.md, "Load unit").
inline constexpr unsigned kLoadUnitPins = 4;

// SPMM's column block on the top: the widest power of two from 1 to 16
// columns whose `rows` rows fit the gather buffer, as the engine's walker
// picks it (gen/top, xb_lg); 0 when not even one column fits (the dense
// operand is then gathered word by word from DRAM).
inline int spmm_block_cols(uint64_t rows, uint64_t gather_words) {
  int width = 0;
  for (int w = 1; w <= 16; w *= 2)
    if (rows > 0 && rows * static_cast<uint64_t>(w) <= gather_words) width = w;
  return width;
}

// The stream engine's FMA lanes V on a top whose MAC array has `pes` PEs (rows
// x columns): the largest of 8, 4, 2, 1 that is at most `pes` (they must
// divide the 8-wide Gram and 16-wide GEMM/SPMM blocks), and with a gather
// buffer of at least 16 lines (gen/top/stream_engine_gen.cpp).
inline int engine_lanes(int pes, int gather_words) {
  int v = 8;
  while (v > 1 && (v > pes || 16 * v > gather_words)) v /= 2;
  return v;
}

// Whether the engine splits the MAC array between a launch and its pipelined
// GRAM: with at least 2 V PEs, a second set of V lanes runs a fused Z^T Z's
// products beside the producer's steps (gen/top/stream_engine_products.cpp).
inline bool engine_split_gram(int pes, int lanes) { return pes >= 2 * lanes; }
// The same two rules for a machine's array and gather buffer.
inline int engine_lanes(const Arch& a) {
  return engine_lanes(static_cast<int>(a.pe_rows * a.pe_cols), static_cast<int>(a.gather_words));
}
inline bool engine_split_gram(const Arch& a) {
  return engine_split_gram(static_cast<int>(a.pe_rows * a.pe_cols), engine_lanes(a));
}
// The engine's tiles (docs/top.md, "Tiles"): the MAC array's PEs taken as
// whole tiles of one engine each (2V PEs on a split array, else V), as many
// as fit, rounded down to a power of two, at least 1 and at most kMaxTiles.
inline constexpr int kMaxTiles = 16;
inline int engine_tiles(int pes, int gather_words) {
  const int lanes = engine_lanes(pes, gather_words);
  const int per_tile = engine_split_gram(pes, lanes) ? 2 * lanes : lanes;
  int tiles = 1;
  while (tiles < kMaxTiles && 2 * tiles * per_tile <= pes) tiles *= 2;
  return tiles;
}
inline int engine_tiles(const Arch& a) {
  return engine_tiles(static_cast<int>(a.pe_rows * a.pe_cols), static_cast<int>(a.gather_words));
}
// Tile t's result rows [lo, hi) of a launch on `tiles` tiles over `rows`
// rows: slices of ceil(rows / (tiles q)) q rows in tile order, q = 8 rows
// (a row-pair group) or a granule's words if more, the last ones short or
// empty.
struct RowSlice {
  uint64_t lo, hi;
};
inline uint64_t tile_row_quantum(uint64_t granule_bytes) { return std::max<uint64_t>(8, granule_bytes / 4); }
inline RowSlice tile_rows(uint64_t rows, int tiles, int t, uint64_t granule_bytes) {
  const uint64_t q = tile_row_quantum(granule_bytes), n = static_cast<uint64_t>(tiles) * q;
  const uint64_t slice = (rows + n - 1) / n * q;
  const uint64_t lo = std::min(rows, static_cast<uint64_t>(t) * slice);
  return {lo, std::min(rows, lo + slice)};
}

// ... and whether that product unit also takes an SPMM's fused X^T Z: X is
// staged in the gather buffer in blocks of `block_cols` columns (0: too
// tall), and X's row of the result's `cols` columns lies in one line of the
// buffer's `lanes` lanes. The unit then reads X's rows from the buffer, and
// the products read no memory.
inline bool engine_xz_from_buffer(int block_cols, uint32_t cols, int lanes) {
  return block_cols != 0 && (block_cols <= lanes || cols <= static_cast<uint32_t>(lanes));
}

// The stream engine's accumulators (gen/top/stream_engine_gen.cpp): a row
// group's two halves of 64 words beside Gram's L = fma_stages lanes of 8 x 8
// partial sums. An ELTW runs through them in element groups of this size.
inline int engine_accumulators(int fma_stages) {
  const int lane_bits = bits_for(fma_stages > 1 ? fma_stages - 1 : 1);
  int acc = std::max(64, 64 << lane_bits);
  if (fma_stages >= 2) acc = std::max(acc, static_cast<int>(std::bit_ceil(64u * static_cast<unsigned>(fma_stages + 1))));
  return acc;
}

// What SCORE may assume (its Target) and what the traffic models simulate
// (their ModelParams), both derived from the architecture.
score::Target target_of(const Arch& a);
traffic::ModelParams model_params_of(const Arch& a);

// Takes a CHORD's table and policy from its geometry: entries, runs, RIFF, the
// victim key, reserve, inplace, claim and clean (not its size, which depends
// on the word the caller maps to a granule).
// (Inline: the generator, which builds without sw/arch's sources, uses it.)
inline void set_chord_policy(Arch& a, const chord::Geometry& g) {
  a.chord_entries = g.entries;
  a.chord_extents = g.extents;
  a.riff = g.riff;
  a.chord_victim = g.victim;
  a.chord_reserve = g.reserve;
  a.chord_inplace = g.inplace;
  a.chord_claim = g.claim;
  a.chord_clean = g.clean;
}

}  // namespace cello::arch
