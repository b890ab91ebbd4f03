// `<top>_load_unit`: word reads for the top's address generators, served from
// DRAM a granule at a time. A read of a granule among the last `window` granules
// it fetched shares that line (the reuse window; window 1 coalesces only
// consecutive reads of one granule); requests to different
// granules are in flight together (up to LINES), their responses may return in
// any order (the tag names the line), and words leave in request order.
// `inval` empties the window, so the next read of any granule goes to DRAM
// again (the sequencer pulses it between ops, after writes). A new line's DRAM
// request waits in a four-entry FIFO, so a read never waits on the arbiter's
// grant in the same cycle. docs/top.md.
#pragma once

#include <string>

#include "sw/arch/arch.hpp"
#include "gen/design.hpp"
#include "gen/sv_module.hpp"

namespace cello::gen {

struct LoadUnitShape {
  int granule_bytes = 16;
  int addr_bits = 30;   // byte address width (covers top.memory_mb)
  int lines = 32;       // granules in flight or held (power of two)
  int queue = 128;      // words requested and not yet returned (power of two)
  int window = 1;       // reuse window: the last `window` lines allocated stay readable (< lines)
  int store_window = 1; // the store unit's granules open for merging
  int pins = static_cast<int>(arch::kLoadUnitPins);  // granules a pinned read keeps a copy of (SPMM's row starts, one per row of a group)
  // Word pairs (granules of 2 words or more): a load unit returns beside each
  // word the odd word of its aligned pair (rsp_data2), and the store unit takes
  // an aligned pair in one write (wr_pair, wr_data2). The engine's GEMM row
  // pairs use them (docs/top.md, "Stream engine").
  bool pairs = false;
};

// The top's load units (operand port A, SPMM's row-pointer, column-index and
// value streams, operand port B): the DRAM arbiter's and CHORD's read clients.
constexpr int kTopReadUnits = 5;

// log2 of a power of two >= 2 (the sizes above).
inline int log2_pow2(int v) { return bits_for(v - 1); }

// The granule and address widths the load and store units share.
struct GranuleDims {
  int G;   // granule bytes
  int GB;  // granule offset bits
  int GW;  // words per granule
  int AW;  // byte address
};
inline GranuleDims granule_dims(const LoadUnitShape& s) {
  return {s.granule_bytes, log2_pow2(s.granule_bytes), s.granule_bytes / 4, s.addr_bits};
}

// A load unit's DRAM tag: its line index.
inline int line_tag_bits(const LoadUnitShape& s) { return log2_pow2(s.lines); }

// Granule requests in flight that cover the DRAM latency at full bandwidth
// (the latency in granules, plus 2).
unsigned dram_requests_in_flight(const arch::Arch& a);

// Enough lines to cover the DRAM latency at full bandwidth, within [4, 64], and
// at least twice the reuse window (a.load_window).
LoadUnitShape load_unit_shape(const arch::Arch& a);

// SPMM's value unit (`<top>_value_load_unit`): its words leave when the
// executor takes them, a micro-op queue behind the walker, which runs a DRAM
// latency behind the entry fetcher that requested them; so it keeps twice the
// read queue of the others (at most 1024).
LoadUnitShape value_load_unit_shape(const arch::Arch& a);

void add_load_unit(Design& design, const std::string& module, const LoadUnitShape& s);

// The word offset in a granule of the odd word of an aligned pair, whose word
// offset is bits [offset_bits-1:0] of `word` (SystemVerilog; offset_bits >= 1).
std::string odd_word(int offset_bits, const std::string& word);

}  // namespace cello::gen
