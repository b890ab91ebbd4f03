// The stream engine's sizes and the parts of its generator that have files of
// their own (gen/top/stream_engine_*.cpp only): SPMM's CSR streams and entry
// fetcher (stream_engine_spmm.cpp), Gram's read cursor
// (stream_engine_gram.cpp), the C cursor (stream_engine_creads.cpp), the
// write cursor (stream_engine_writes.cpp) and GEMM row pairs
// (stream_engine_pairs.cpp). Each adds its signals and one section to the
// engine's module; stream_engine_gen.cpp composes them.
#pragma once

#include <string>

#include <fmt/format.h>

#include "gen/sv_module.hpp"
#include "gen/top/stream_engine_gen.hpp"

namespace cello::gen::engine {

// Sizes and index widths shared by the parts of the engine.
struct EngineDims {
  int WA, CW;         // word address, counts and indices
  int S, L, RFR;      // FMA stages, Gram lanes, register-file rows
  int NB, LB, RB;     // block columns, Gram lane index, register-file row index
  int ACC, XB, PB;    // accumulators and their index, register-file/breg index
  int RFB;            // register-file index
  int Q, QB, TI, V;   // micro-op queue and its index, FMA destination index, FMA lanes
  int GW, GWL, VL;    // gather buffer words, its word index, the lane index
  int XL;             // gather buffer line index
  int AUX;            // the queue's aux field: a gather buffer word, or the port B word's breg entry
  int GRW;            // words per DRAM granule
  bool SPLIT;         // a second set of V lanes runs fused Z^T Z products (stream_engine_products.cpp)
  bool PAIRS;         // GEMM row pairs on those lanes, word pairs on the ports (stream_engine_pairs.cpp)
  bool RANGE;         // inputs row_lo, row_hi: the rows of the result a GEMM or ELTW walks (a tile's)
};

EngineDims engine_dims(const StreamEngineShape& s);

// Gram's partial sum p[l][i][j] in the accumulators: the SystemVerilog call of
// the engine's gram_acc function with the given terms.
std::string gram_acc(const EngineDims& d, const std::string& l, const std::string& i, const std::string& j);

// The position of cursor `c` in a row group of up to 4 rows: c_i0_q (its first
// row), c_r_q, c_j_q (jbits bits), and c_rlast, its last row given `rows` rows
// in all. Declares them and returns the SystemVerilog of c_rem and c_rlast.
inline std::string cursor_position(SvModule& m, const std::string& c, const std::string& who,
                                   const std::string& rows, int jbits, int CW,
                                   const std::string& column = "column in the block") {
  m.signal(c + "_i0_q", CW, who + ": first row of its group");
  m.signal(c + "_r_q", 2, who + ": row in the group");
  m.signal(c + "_j_q", jbits, who + ": " + column);
  m.signal(c + "_rem", CW, who + ": rows left from its group's first");
  m.signal(c + "_rlast", 2, who + ": last row of its group");
  return fmt::format(
      "assign {0}_rem   = {1} - {0}_i0_q;\n"
      "assign {0}_rlast = ({0}_rem >= {2}'d4) ? 2'd3 : {0}_rem[1:0] - 2'd1;\n",
      c, rows, CW);
}

// The step of cursor `c` (registers c_r_q, c_j_q of jbits bits) to its next
// word of a row group, rows r <= c_rlast and columns j <= `jlast`, in storage
// order (`col_major`: rows fastest). SystemVerilog text for an always_ff.
inline std::string cursor_step(const std::string& c, const std::string& col_major, const std::string& jlast,
                               int jbits, const std::string& row_major_step = "") {
  return fmt::format(R"(if ({cm}) begin
      if ({c}_r_q == {c}_rlast) begin {c}_r_q <= '0; {c}_j_q <= {c}_j_q + {jb}'d1; end
      else {c}_r_q <= {c}_r_q + 2'd1;
    end else if ({c}_j_q == {jl}) begin {c}_j_q <= '0; {c}_r_q <= {c}_r_q + 2'd1; end
    else {c}_j_q <= {c}_j_q + {st};)",
                     fmt::arg("c", c), fmt::arg("cm", col_major), fmt::arg("jl", jlast), fmt::arg("jb", jbits),
                     fmt::arg("st", row_major_step.empty() ? fmt::format("{}'d1", jbits) : row_major_step));
}

// A sequential read stream `s` (SPMM's row pointers): once per column block the
// words base .. base+count-1, issued as fast as its load unit takes them.
void csr_stream(SvModule& m, const std::string& s, const std::string& what, const std::string& base,
                const std::string& count, int WA, int CW);

// SPMM's entry fetcher: the row pointers of each group of up to 4 rows, then the
// group's column index and value reads with the rows interleaved, and a tag per
// entry for the walker.
void entry_fetcher(SvModule& m, int WA, int CW, int Q, int QB);

// Gram's read cursor: a row group's operand words into one of two areg/breg
// buffers, riding on the previous group's product steps.
void gram_cursor(SvModule& m, const EngineDims& d);

// GEMM's and SPMM's C cursor: a row group's C words into breg on port B,
// riding on the previous group's MAC steps (SPMM: entry and write steps).
void c_cursor(SvModule& m, const EngineDims& d);

// V pipelined fp32_fma lanes u_<name>_v: operands a[v], b[v], c[v] (array
// signals of the module), result y[v].
void fma_lanes(SvModule& m, const EngineDims& d, const std::string& name, const std::string& a,
               const std::string& b, const std::string& c, const std::string& y);

// The Gram product unit of a split array: a fused Z^T Z's products of each
// finished row group on V lanes of their own, beside the producer's steps.
// Declares its signals and FMAs and adds its section; gram_products_writeback
// is its part of the executor's accumulator writes.
void gram_products(SvModule& m, const EngineDims& d);
std::string gram_products_writeback(const EngineDims& d);

// GEMM row pairs: the launch condition, the walker's row count g_rows, and
// the odd row's hazards, forwarding and write (no row pairs: g_rows alone).
void row_pairs(SvModule& m, const EngineDims& d);

// The expression `plain`, or with row pairs `paired` while pr_q.
inline std::string with_pairs(const EngineDims& d, const std::string& paired, const std::string& plain) {
  return d.PAIRS ? fmt::format("(pr_q ? {} : {})", paired, plain) : plain;
}

// Row pairs: the result row of a cursor's walker row i0 + r, column j (row
// 2(i0 + r) + j / V), and its column (j0 + j mod V). SystemVerilog. (A
// column-major cursor's j stays below V: row 2(i0 + r), column j0 + j.)
std::string pair_row(const EngineDims& d, const std::string& i0, const std::string& r, const std::string& j);
std::string pair_col(const EngineDims& d, const std::string& j);

// Row pairs: a cursor's last column (row-major with row pairs: 2V - 2, its
// steps taking two adjacent columns; column-major: the plain one, its steps
// taking rows 2m and 2m + 1 of one column) and its row-major step (2 with row
// pairs). `cm` is the operand's storage order.
std::string pair_jlast(const EngineDims& d, const std::string& cm, const std::string& plain);
std::string pair_jstep(const EngineDims& d);

// Row pairs: the step's micro-op takes the A cursor's pair on port A.
std::string a_ride_text(const EngineDims& d);

// GEMM's and SPMM's write cursor: a row group's results in the result's storage
// order, riding on the next GEMM group's steps or as steps of their own (F_W).
void write_cursor(SvModule& m, const EngineDims& d);

}  // namespace cello::gen::engine
