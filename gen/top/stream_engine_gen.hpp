// `<top>_engine`: the top's datapath for one launch (GEMM pass, GRAM, SPMM or
// ELTW), in exactly the accumulation order of docs/commands.md ("What each
// launch computes"), so its results equal the executor's bit for bit.
//
// It is a decoupled access/execute machine (docs/top.md, "Stream engine"):
// - the *walker* runs the launch's loop nest (row groups x column blocks, Gram
//   blocks, element groups), issues every operand word read to one of two load
//   units (port A; port B for GEMM's C, Gram's B and the second word of SPMM's
//   gather fill) as far ahead as the micro-op queue allows, and pushes one
//   micro-op per step;
// - the *executor* pops micro-ops in order, takes each one's words (at most one
//   per port) from the units' in-order responses, issues one step per cycle into V pipelined
//   fp32_fma lanes (a GEMM or Gram step updates V adjacent result columns),
//   and keeps independent accumulations (a row group's columns, Gram's lanes,
//   an element group) in flight together; a scoreboard holds a step back only
//   while its own accumulator is still in the pipe;
// - reads and writes ride on the FMA steps: a step may also take operand
//   words for a later row group (Gram's A and B, GEMM's C: the read cursors)
//   and store one result of the previous row group (GEMM, SPMM: the write
//   cursor), so words and results cost no issue slot of their own where there
//   are steps to carry them;
// - SPMM's row pointers, column indices and values arrive on three sequential
//   read streams (their own load units), so the walker never waits for DRAM to
//   know where a row ends; a second FMA scales each value by beta on its way in.
// - SPMM's dense operand is staged, one column block at a time, in a gather
//   buffer (V RAM lanes in the top) when the block fits: it is then read from
//   DRAM once, in storage order, two words per step, and each stored entry's
//   gather reads V columns per cycle from the buffer; a dense operand too tall
//   for even one column is gathered word by word from DRAM.
// A damaged CSR operand (a row pointer past nnz or falling, a column index past
// the dense operand) stops it with `err` instead of reading outside the tensor.
#pragma once

#include <string>

#include "gen/design.hpp"
#include "sw/arch/arch.hpp"
#include "gen/sv_module.hpp"

namespace cello::gen {

struct StreamEngineShape {
  int addr_bits = 30;   // byte address width (as in the load and store units)
  int granule_bytes = 16;  // DRAM granule (as in the load and store units)
  int fma_stages = 3;   // pipeline depth of the fp32_fma
  int gram_lanes = 3;   // GRAM partial sums (the MAC array's fma_stages)
  int rf_rows = 16;     // largest K of one GEMM pass (rows of the engine's register file)
  int queue = 128;      // micro-ops between the walker and the executor (covers the DRAM latency)
  int lanes = 4;        // FMA lanes V (1, 2, 4 or 8): a GEMM/Gram step updates V adjacent columns at once
  int gather_words = 131072;  // SPMM gather buffer (power of two): its RAM lanes are in the top, on the xb_* ports
  // The MAC array split between a launch and its pipelined GRAM: a second set of
  // V lanes runs the fused Z^T Z products beside the producer's steps
  // (gen/top/stream_engine_products.cpp). Needs 2 V PEs.
  bool split_gram = false;
  // GEMM row pairs on the split array (needs split_gram and granules of 2
  // words or more): the operand ports carry word pairs (ld_rsp_data2,
  // lb_rsp_data2) and the store port takes them (st_pair, st_data2).
  bool pairs = false;
  // One tile of several (docs/top.md, "Tiles"): the inputs row_lo and row_hi
  // bound the result rows a GEMM or ELTW launch walks; without them the engine
  // walks every row.
  bool row_range = false;
};


// Column block of GEMM/SPMM (accumulators per result row) and row group of
// GEMM and GRAM; GRAM blocks are kGramBlockRows x kGramBlockCols outputs (each
// block reads its rows of A and its columns of B once).
inline constexpr int kEngineBlockCols = 16;
inline constexpr int kEngineGroupRows = 4;
inline constexpr int kGramBlockRows = 8;
inline constexpr int kGramBlockCols = 8;

// The engine's count and index width (CW) on a top of `addr_bits` byte address bits.
inline int engine_count_bits(int addr_bits) { return addr_bits - 1; }

// The launch descriptor: the engine's inputs <suffix>, driven by the
// sequencer's outputs eng_<suffix>. WA and CW are the word-address and count widths.
std::vector<Field> engine_descriptor(int WA, int CW);

void add_stream_engine(Design& design, const std::string& module, const StreamEngineShape& s);

}  // namespace cello::gen
