#include "gen/top/stream_engine_gen.hpp"
#include "gen/top/stream_engine_parts.hpp"

#include <algorithm>
#include <stdexcept>

#include <bit>

#include <fmt/format.h>

#include "gen/regfile/regfile_gen.hpp"
#include "gen/sv_module.hpp"
#include "gen/top/load_unit_gen.hpp"
#include "gen/top/top_gen_parts.hpp"

namespace cello::gen {

namespace engine {

EngineDims engine_dims(const StreamEngineShape& s) {
  EngineDims d{};
  d.WA = s.addr_bits - 2;
  d.CW = engine_count_bits(s.addr_bits);
  d.S = s.fma_stages;
  d.L = s.gram_lanes;
  d.RFR = s.rf_rows;
  d.NB = kEngineBlockCols;
  d.LB = bits_for(d.L > 1 ? d.L - 1 : 1);
  d.RB = bits_for(d.RFR > 1 ? d.RFR - 1 : 1);
  // Gram's lanes and a GEMM/SPMM row group's two halves share the accumulators
  // (a fused launch holds both, gram_acc()): 64 << LB, and room for L + 1 blocks of 64.
  d.ACC = arch::engine_accumulators(d.L);
  d.XB = bits_for(d.ACC - 1);
  d.RFB = d.RB + 4;
  d.PB = std::max(d.RFB, 7);  // breg's two 32-word buffers need 6 bits, a fused step's accumulator 7
  d.Q = s.queue;
  d.QB = log2_pow2(d.Q);
  d.TI = std::max(d.XB, d.PB);
  d.V = s.lanes;
  if (d.V != 1 && d.V != 2 && d.V != 4 && d.V != 8) throw std::logic_error("stream engine: lanes must be 1, 2, 4 or 8");
  // The gather buffer: GW words in V lanes of GW/V lines (line address XL bits);
  // word w of the buffer is lane w mod V, line w / V.
  d.GW = s.gather_words;
  d.GWL = std::countr_zero(static_cast<unsigned>(d.GW));
  d.VL = std::countr_zero(static_cast<unsigned>(d.V));
  d.XL = d.GWL - d.VL;
  d.AUX = std::max(d.GWL, 6);
  d.GRW = s.granule_bytes / 4;
  d.SPLIT = s.split_gram;
  d.PAIRS = s.pairs && s.split_gram && d.GRW >= 2 && d.V >= 2;
  d.RANGE = s.row_range;
  if (d.GRW < 1 || (d.GRW & (d.GRW - 1)) != 0) throw std::logic_error("stream engine: granule out of range");
  if (d.GW < 16 * d.V || d.GWL > d.WA) throw std::logic_error("stream engine: gather buffer out of range");
  static_assert(kEngineBlockCols == 16 && kEngineGroupRows == 4 && kGramBlockRows == 8 && kGramBlockCols == 8,
                "the index packing below assumes 16 columns, 4-row groups and 8x8 Gram blocks");
  return d;
}

// Ports: the launch descriptor, done/err, the load unit, the store unit and the gather buffer.
void engine_ports(SvModule& m, const EngineDims& d) {
  const int WA = d.WA, CW = d.CW, V = d.V, XL = d.XL;
  m.clock_reset();
  m.port_group(Dir::In, "", "", engine_descriptor(WA, CW));
  if (d.RANGE) {
    m.input("row_lo", CW, "GEMM/SPMM/ELTW: the first result row this tile walks (held with the descriptor; a multiple of 8)");
    m.input("row_hi", CW, "GEMM/SPMM/ELTW: the result row past its last (the result's rows for a GRAM)");
    m.input("fill_follow", 1, "SPMM: another tile fills the gather buffer (this one reads X from it as the fill passes)");
    m.input("fill_words", d.GWL + 1, "SPMM, following: words of X's block the filling tile has written into the buffer");
  }
  m.output("busy", 1, "a launch is running");
  m.output("done", 1, "pulse: the launch ended (its last write was taken by the store unit)");
  m.output("err", 1, "pulse with done: a damaged CSR operand stopped the launch");
  m.output("fused", 1,
           "with done and until the next start: the launch computed its GRAM's products (pipe_gram taken); "
           "they wait in the accumulators for that GRAM, started with tail");
  m.output("fma_fire", 1, "pulse: the executor issued an FMA");
  m.output("gram_fire", 1, "pulse: the Gram product unit (split array) issued an FMA step");
  m.output("pair_fire", 1, "pulse: a GEMM MAC step on row pairs issued (its odd row on the product unit's lanes)");
  m.output("cycle_class", 6,
           "where a launch's cycle went, one bit per running cycle: {wait_store, wait_operand, wait_port_b, "
           "wait_port_a, wait_walker, issue}");
  m.source({"ld_req", "load unit", "a word read", "taken", {{"word", WA, "word address"}}});
  std::vector<Field> rsp = {{"data", 32, "data"}};
  if (d.PAIRS) rsp.push_back({"data2", 32, "the odd word of its aligned pair (row pairs)"});
  m.sink({"ld_rsp", "load unit", "the word", "taken", rsp});
  m.source({"lb_req", "port B load unit", "a word read (GEMM's C, Gram's B, SPMM's fill)", "taken", {{"word", WA, "word address"}}});
  m.sink({"lb_rsp", "port B load unit", "the word", "taken", rsp});
  std::vector<Field> st = {{"word", WA, "word address"}, {"data", 32, "data"}};
  if (d.PAIRS) {
    st.push_back({"pair", 1, "row pairs: data2 goes to word + 1"});
    st.push_back({"data2", 32, "row pairs: the odd row's word"});
  }
  m.source({"st", "store unit", "a result word (or a pair)", "taken", st});
  m.output("xb_we", V, "gather buffer: write lane v (word w goes to lane w mod V, line w / V)");
  m.output("xb_waddr", XL, "gather buffer: line written");
  m.output("xb_wdata", 32 * V, "gather buffer: the word written to lane v, at [32v +: 32]");
  m.output("xb_re", 1, "gather buffer: read a line (all lanes)");
  m.output("xb_raddr", XL, "gather buffer: line read");
  m.input("xb_rdata", 32 * V, "gather buffer: the line read the cycle before, lane v at [32v +: 32]");

}

// Constants: kind codes, walker phases and micro-op actions.
void engine_localparams(SvModule& m) {
  m.localparam("KIND_GEMM", "2'd0", "kind codes");
  m.localparam("KIND_GRAM", "2'd1", "");
  m.localparam("KIND_SPMM", "2'd2", "(3 is ELTW)");
  // Walker phases: each loop phase pushes one micro-op per step.
  const char* phases[][2] = {
      {"F_IDLE", "waiting for start"},
      {"F_RFL", "GEMM: register file <- scale * B[k0+t, j0+j] (t < k, j in the block)"},
      {"F_C", "GEMM without MAC steps (k = 0): acc[r][j] = fma(alpha, C[i0+r, j0+j], +0)"},
      {"F_CL", "GEMM/SPMM: the C cursor's words C[i0+r, j0+j] into breg[r][j] as steps of their own"},
      {"F_CV", "GEMM/SPMM: acc[r][j|v] = fma(alpha, breg[r][j|v], +0) on lanes v"},
      {"F_Z0", "GEMM/SPMM: acc[r][j] = +0"},
      {"F_MAC", "GEMM: acc[r][j] = fma(A[i0+r, k0+t], rf[t][j], acc[r][j]); the row's first step reads A into areg[r], the others the C cursor's next word; each step carries the write cursor's next write"},
      {"F_W", "GEMM/SPMM: the write cursor's writes Z[i, j0+j] = relu(acc[..][r][j]) as steps of their own"},
      {"F_GZ", "GRAM: p[l][i][j] = +0"},
      {"F_GL", "GRAM: the read cursor's words (A[m, b0+i], then B[m, j0+j] of a row group) as their own steps"},
      {"F_PM", "GRAM: p[lane(m0+t)][i][j] = fma(areg[t][i], breg[t][j], p[..][i][j]), each step taking the cursor's next word"},
      {"F_FOLD", "GRAM: p[0][i][j] = fma(p[0][i][j], 1, p[t][i][j]) for t = 1..L-1"},
      {"F_GW", "GRAM: write Z[b0+i, j0+j] = p[0][i][j]"},
      {"F_EA", "ELTW: acc[x] = fma(alpha, A[e], -0) over an element group"},
      {"F_EB", "ELTW: acc[x] = fma(beta, B[e], acc[x])"},
      {"F_EW", "ELTW: write Z[e] = relu(acc[x])"},
      {"F_SE", "SPMM: next entry tag and column index (rows interleaved), issued with the entry's first step"},
      {"F_SX", "SPMM: acc[j] = fma(beta*val, X[col, j0+j], acc[j]) (X read from DRAM)"},
      {"F_XF", "SPMM: the fill cursor's words as steps of their own: what is left after the block's last group, or X^T Z's rows before their group is handed over"},
      {"F_SG", "SPMM: acc[j|v] = fma(beta*val, xbuf[col][j|v], acc[j|v]) on lanes v"},
      {"F_PF", "fused GEMM/SPMM: p[lane(m)][i][j] = fma(Z[m, i], Z[m, j], p[..][i][j]) for the rows m of a finished row group, from its accumulators"},
      {"F_DRAIN", "wait until every micro-op and FMA has finished"},
      {"F_DONE", "signal done"},
  };
  const int NPH = static_cast<int>(std::size(phases));
  for (int p = 0; p < NPH; ++p) m.localparam(phases[p][0], fmt::format("5'd{}", p), phases[p][1]);
  const char* acts[][2] = {
      {"U_Z0", "acc[x|v] = +0 on lanes v"},
      {"U_C", "acc[x] = fma(alpha (1 if cont), word, +0)"},
      {"U_CV", "acc[x|v] = fma(alpha (1 if cont), breg[p|v], +0) on lanes v"},
      {"U_EA", "acc[x] = fma(alpha, word, -0)"},
      {"U_EB", "acc[x] = fma(beta, word, acc[x])"},
      {"U_RFL", "rf[p] = fma(scale, word, -0)"},
      {"U_GREG", "Gram register w = word (w[6]: breg, else areg; w[5:0] the entry)"},
      {"U_MAC", "acc[x|v] = fma(areg[r], rf[p|v], acc[x|v]) on lanes v, r the row of x (with an A word: areg[r] = word first; with a C word, aux[6]: breg[aux] = word; with st: as U_W of acc[y])"},
      {"U_PM", "acc[x|v] = fma(areg[y], breg[p|v], acc[x|v]) on lanes v (with a word: as U_GREG too)"},
      {"U_FOLD", "acc[x|v] = fma(acc[x|v], 1, acc[y|v]) on lanes v"},
      {"U_X", "acc[x] = fma(mreg, word, acc[x]) (with sv: mreg = the next beta * val first)"},
      {"U_W", "store relu(acc[x]) at word address w"},
      {"U_XF", "a fill step alone: its words go to the gather buffer (xf); nothing else"},
      {"U_XG", "acc[x|v] = fma(mreg, xbuf line w lane v, acc[x|v]) on lanes v (with sv: as U_X)"},
      {"U_MACC", "as U_MAC, with the addend breg[x|v] (C, a zero or subnormal taken as +0) in place of acc[x|v]"},
      {"U_PF", "acc[x|v] = fma(acc[p], acc[y|v], acc[x|v]) on lanes v, the two operands as stored (relu)"},
      {"U_PFX", "acc[x|v] = fma(X word, acc[y|v], acc[x|v]) on lanes v, the word from port A (kept in mreg) or mreg, acc[y|v] as stored"},
  };
  for (int a = 0; a < static_cast<int>(std::size(acts)); ++a)
    m.localparam(acts[a][0], fmt::format("5'd{}", a), fmt::format("micro-op: {}", acts[a][1]));

}

// Gram's partial sum p[l][i][j] in the accumulators (SystemVerilog): lane 0
// in the words a GEMM/SPMM row group of at most 8 columns leaves free (column
// bit 3 set), lanes 1.. above the row group's two halves, so that a fused
// launch holds a row group and Gram's lanes at once (engine_dims sizes ACC).
std::string gram_acc_function(const EngineDims& d) {
  if (d.L == 1)
    return fmt::format("function automatic logic [{0}:0] gram_acc(input logic [2:0] i, input logic [2:0] j);\n"
                       "  gram_acc = {1}'({{i, 1'b1, j}});\nendfunction",
                       d.XB - 1, d.XB);
  return fmt::format(
      "function automatic logic [{0}:0] gram_acc(input logic [{2}:0] l, input logic [2:0] i, input logic [2:0] j);\n"
      "  gram_acc = (l == '0) ? {1}'({{i, 1'b1, j}}) : {1}'(128) + {1}'({{l - {3}'d1, i, j}});\nendfunction",
      d.XB - 1, d.XB, d.LB - 1, d.LB);
}
std::string gram_acc(const EngineDims& d, const std::string& l, const std::string& i, const std::string& j) {
  return d.L == 1 ? fmt::format("gram_acc({}, {})", i, j) : fmt::format("gram_acc({}, {}, {})", l, i, j);
}

// Walker state and loop terms.
void walker_signals(SvModule& m, const EngineDims& d) {
  const int CW = d.CW, LB = d.LB, GWL = d.GWL;
  // ---- walker state
  m.signal("ph_q", 5, "walker phase");
  m.signal("i0_q", CW, "GEMM row group / GRAM row group (m0) / SPMM row");
  m.signal("j0_q", CW, "first column of the block (GEMM/SPMM: 16 wide, GRAM: 8 wide)");
  m.signal("b0_q", CW, "GRAM: first result row of the block");
  m.signal("t_q", CW, "GEMM inner index / GRAM row in group, lane / ELTW element in group");
  m.signal("r_q", 3, "inner loop: row in the group (GRAM: also i in the block)");
  m.signal("j_q", 4, "inner loop: column in the block");
  m.signal("ln_q", LB, "GRAM: lane of row m0+t (m mod L)");
  m.signal("gb_q", 1, "GRAM: the areg/breg buffer of the row group at i0");
  m.signal("ah_q", 1, "GEMM: the accumulator half of the row group at i0 (SPMM: 0)");
  m.signal("sr_q", 2, "SPMM: the entry's row in the group");
  m.signal("sl_q", 1, "SPMM: the entry is the group's last");
  m.signal("col_q", CW, "SPMM: column index of entry e");
  m.signal("spmm_step", 1, "SPMM: an entry's step (F_SE issues the entry's first)");
  m.signal("e_row", 2, "SPMM: the row in the group of the entry being issued");
  m.signal("e_col", CW, "SPMM: its column index (F_SE: the response itself)");
  m.signal("wi_q", CW, "ELTW: element row");
  m.signal("wj_q", CW, "ELTW: element column");
  m.signal("gi_q", CW, "ELTW: row of the group's first element");
  m.signal("gj_q", CW, "ELTW: column of the group's first element");
  m.signal("gn_q", CW, "ELTW: last element index of the group");
  m.signal("glast_q", 1, "ELTW: the group holds the result's last element");
  m.signal("err_q", 1, "a damaged CSR operand stopped the launch");
  m.signal("fz_ok", 1, "GEMM/SPMM start: the launch can compute its result's GRAM (one block of at most 8 columns)");
  m.signal("fz_q", 1, "fused: the launch computes its result's GRAM products, each row group's after it is written");
  m.signal("fzx_q", 1, "... of X^T Z (pipe_gram_x: the first operand is the SPMM's dense operand X, read on port A), else Z^T Z");
  m.signal("pf_cur_q", 1, "F_PF: the products of the group at i0 (the last), else of the group before it");
  m.signal("pf_h", 1, "F_PF: that group's accumulator half");
  m.signal("pf_i0", CW, "F_PF: that group's first row");
  m.signal("pf_rlast", 2, "F_PF: that group's last row");
  m.signal("pf_end", 1, "F_PF: the group's last product step is taken");
  m.signal("grp_adv", 1, "GEMM/SPMM: i0 moves on to the next row group this cycle");
  m.signal("done_q", 1, "done pulse");
  m.signal("col_blocks", CW, "SPMM: column blocks (passes of the CSR streams)");
  m.signal("sbuf_q", 1, "SPMM: the dense operand goes through the gather buffer");
  m.signal("slg_q", 3, "SPMM: log2 of the column block width (16 without the buffer)");
  m.signal("xb_fit", 1, "SPMM start: a block of at least one column of X fits the gather buffer");
  m.signal("xb_lg", 3, "SPMM start: log2 of the widest block (<= 16 columns) that fits");
  m.signal("blk_lg", 3, "log2 of the column block width (GEMM: 16)");
  m.signal("blk_w", CW, "column block width");
  m.signal("xb_word", GWL, "gather buffer word an entry's step reads: col x block width + j");
  m.signal("xc_on_q", 1, "SPMM fill cursor: words of the block still to issue");
  m.signal("xc_t_q", CW, "SPMM fill cursor: row k of X (rows before it are issued whole)");
  m.signal("xc_j_q", 4, "SPMM fill cursor: column in the block (port A's word)");
  m.signal("xf_tail_q", 1, "SPMM: F_XF finishes the fill of a block whose groups are done");
  m.signal("xf_word", GWL, "SPMM fill cursor: gather buffer word of port A's word, k x block width + j");
  m.signal("xf_last", 1, "SPMM fill cursor: the step takes the block's last words");
  m.signal("xf_wait", 1, "SPMM: the entry's row of X is not yet filled whole");
  m.signal("se_fill", 1, "SPMM: F_SE issues a fill step in place of the entry's first step");
  m.signal("se_first", 1, "SPMM: F_SE issues an entry's first step this cycle");
  m.signal("xf_h", 4, "SPMM fill: the column offset of the port B word (column-major X: 1, row-major: min(width, V) / 2)");
  m.signal("xf_dual", 1, "SPMM fill: two words per step (V > 1, a block of 2 or more columns, halves that share no granule)");
  m.signal("xf_jnext", 5, "SPMM fill: the next column port A takes (runs of h columns, every other run)");
  m.signal("xf_lastcol", 1, "SPMM fill: the step's column is port A's last of the block");
  m.signal("rem_rows", CW, "rows left from i0 (GEMM) / m0 (GRAM)");
  m.signal("rem_cols", CW, "columns left from j0");
  m.signal("rem_brows", CW, "GRAM: result rows left from b0");
  m.signal("gr_last", 2, "last row of the group");
  m.signal("nb_last", 4, "last column of the 16-wide block");
  m.signal("bj_last", 3, "GRAM: last column of the 8-wide block");
  m.signal("bi_last", 3, "GRAM: last row of the 8-row block");
  m.signal("rlast", 3, "inner loop bound of r");
  m.signal("jlast", 4, "inner loop bound of j");
  m.signal("jo", 1, "inner loop order: j outer, r inner (a column-major operand's order)");
  m.signal("vec", 1, "a lane-wide phase: j steps by the lane count");
  m.signal("jlast_v", 4, "last j step (lane-aligned in a lane-wide phase)");
  m.signal("last2d", 1, "the inner loop's last step");
  m.signal("r_nx", 3, "next r");
  m.signal("j_nx", 4, "next j");
  m.signal("wi_nx", CW, "ELTW: next element row (result storage order)");
  m.signal("wj_nx", CW, "ELTW: next element column");
  m.signal("elast", 1, "ELTW: the element is the result's last");
  m.signal("grp_end", 1, "ELTW: the element closes its pass over the group");
  m.signal("ph_group", 5, "first phase of a row group: C (GEMM: through breg), or zero without C");
  m.signal("cc_fold", 1, "GEMM: each row's first MAC step takes C from breg as its addend (no F_CV steps)");
  m.signal("rows_next", 1, "GEMM/SPMM: the walker moves on to the block's next row group this cycle");
  m.signal("col_ok", 1, "SPMM: the column index names a row of the dense operand");
}

// The signals that address one element [r, c] of a region: <p>_base, _rows,
// _cols, _cm (storage order), _r, _c, and the offset terms <p>_major,
// _stride, _minor.
void element_address_signals(SvModule& m, const std::string& p, const std::string& what, int WA, int CW) {
  m.signal(p + "_base", WA, what + ": region base");
  m.signal(p + "_rows", CW, what + ": its rows");
  m.signal(p + "_cols", CW, what + ": its columns");
  m.signal(p + "_cm", 1, what + ": its storage order");
  m.signal(p + "_r", CW, what + ": element row");
  m.signal(p + "_c", CW, what + ": element column");
  m.signal(p + "_major", CW, what + ": index along the storage order's outer rank");
  m.signal(p + "_stride", CW, what + ": words per outer index");
  m.signal(p + "_minor", CW, what + ": index along the inner rank");
}

// The word address `word` of element [<p>_r, <p>_c]: c*rows + r column-major,
// r*cols + c row-major, from the region base.
std::string element_word(const std::string& p, const std::string& word, int WA) {
  return fmt::format(R"(assign {0}_major  = {0}_cm ? {0}_c : {0}_r;
assign {0}_stride = {0}_cm ? {0}_rows : {0}_cols;
assign {0}_minor  = {0}_cm ? {0}_r : {0}_c;
assign {1} = {0}_base + {2}'({0}_major * {0}_stride + {0}_minor);
)",
                     p, word, WA);
}

// The step's micro-op, its address, and the micro-op queue.
void step_and_queue_signals(SvModule& m, const EngineDims& d) {
  const int WA = d.WA, CW = d.CW, XB = d.XB, PB = d.PB, V = d.V, Q = d.Q, QB = d.QB;
  // ---- the step's micro-op
  m.signal("em_valid", 1, "the walker has a micro-op to push");
  m.signal("em_rd", 1, "it takes a word from the load unit (port A)");
  m.signal("em_rb", 1, "it takes a word from port B (GEMM's C cursor, Gram's B cursor, SPMM's fill)");
  m.signal("em_xf", 1, "it takes the fill cursor's words (port A, and port B if em_rb) into the gather buffer");
  m.signal("em_sv", 1, "it takes the next scaled value beta * val (an SPMM entry's first step)");
  m.signal("em_st", 1, "it also stores relu(acc[y]) at w (a GEMM or SPMM step carrying a write)");
  m.signal("em_act", 5, "its action");
  m.signal("em_x", XB, "its accumulator");
  m.signal("em_y", XB, "its second register (areg, or the folded accumulator)");
  m.signal("em_p", PB, "its register-file / breg entry");
  m.signal("em_m", V, "its lanes (lane v: column j+v)");
  m.signal("adv", 1, "the walker takes its step this cycle");
  m.signal("step_go", 1, "the step's micro-op (and its read) can enter the queue");
  m.signal("q_space", 1, "the micro-op queue has room");
  m.signal("push", 1, "a micro-op enters the queue");
  element_address_signals(m, "sel", "address of the step's word (port A, or U_W's write)", WA, CW);
  m.signal("step_word", WA, "address of the step's word (read, or write of U_W)");
  element_address_signals(m, "selb", "port B address (C, Gram's B, SPMM's fill)", WA, CW);
  m.signal("step_word_b", WA, "address of the step's port B word");
  // ---- micro-op queue
  m.array("q_act", 5, Q, "queue: action");
  m.array("q_rd", 1, Q, "queue: takes a port A word");
  m.array("q_rb", 1, Q, "queue: takes a port B word");
  m.array("q_sv", 1, Q, "queue: takes a scaled value");
  m.array("q_st", 1, Q, "queue: also stores acc[y]");
  m.array("q_x", XB, Q, "queue: accumulator");
  m.array("q_y", XB, Q, "queue: second register");
  m.array("q_p", PB, Q, "queue: register-file / breg entry");
  m.array("q_w", WA, Q, "queue: write address (U_W, st), Gram register (U_GREG, U_PM), gather buffer word");
  m.array("q_m", V, Q, "queue: lanes");
  m.array("q_xf", 1, Q, "queue: its words go to the gather buffer (the fill)");
  m.array("q_f", d.GWL, Q, "queue: the fill's gather buffer word");
  m.array("q_aux", d.AUX, Q, "queue: gather buffer word (U_XG; its w may carry a write); the port B word's breg entry");
  m.signal("q_wr_q", QB, "queue: write pointer");
  m.signal("q_rd_q", QB, "queue: read pointer");
  m.signal("q_cnt_q", QB + 1, "queue: entries");
}

// Executor: the head micro-op, FMA operands, accumulators, register file, FMA pipe.
void executor_signals(SvModule& m, const EngineDims& d) {
  const int WA = d.WA, S = d.S, XB = d.XB, PB = d.PB, V = d.V, ACC = d.ACC, TI = d.TI;
  // ---- executor
  m.signal("h_valid", 1, "a micro-op is at the head");
  m.signal("h_act", 5, "head: action");
  m.signal("h_rd", 1, "head: takes a port A word");
  m.signal("h_rb", 1, "head: takes a port B word (to breg[aux], or the gather buffer)");
  m.signal("h_sv", 1, "head: takes a scaled value");
  m.signal("h_st", 1, "head: also stores acc[y]");
  m.signal("h_x", XB, "head: accumulator");
  m.signal("h_y", XB, "head: second register");
  m.signal("h_p", PB, "head: register-file / breg entry");
  m.signal("h_m", V, "head: lanes");
  m.signal("h_w", WA, "head: write address (U_W, st), Gram register (U_GREG, U_PM)");
  m.signal("h_xf", 1, "head: its words go to the gather buffer at h_f (and h_f + h)");
  m.signal("h_f", d.GWL, "head: the fill's gather buffer word");
  m.signal("h_aux", d.AUX, "head: gather buffer word (U_XG), or the port B word's breg entry");
  m.signal("words_in", 1, "head: the words it takes have arrived");
  m.signal("xg_q", 1, "the step issued last cycle reads the gather buffer: its b operands are xb_rdata");
  if (d.V > 1) {
    m.signal("xo_q", d.VL, "... from lane xo_q on (a block narrower than V holds several rows per line)");
    m.array("xb_lane", d.VL, d.V, "the gather buffer lane that reaches FMA lane v: v + xo_q mod V");
  }
  m.array("fb_in", 32, V, "FMA operand b as the lanes see it");
  m.signal("x_pend", 1, "an accumulator x|v of an active lane waits for an FMA result");
  m.signal("x_busy", 1, "... and that result is not written back this cycle");
  m.signal("y_busy", 1, "an accumulator y|v of an active lane waits for an FMA result not written back this cycle");
  m.array("fwd_x", 1, V, "lane v's accumulator x|v is written back this cycle");
  m.array("fwd_y", 1, V, "lane v's accumulator y|v is written back this cycle");
  m.array("acc_fx", 32, V, "acc[x|v] as a step issued this cycle sees it (forwarded from fma_y)");
  m.array("acc_fy", 32, V, "acc[y|v] as a step issued this cycle sees it (forwarded from fma_y)");
  m.signal("op_ok", 1, "head: its operands and accumulators are free (the store port aside)");
  m.signal("st_need", 1, "head: it stores a word (U_W, or a step carrying a write)");
  m.signal("st_free", 1, "head: a write it carries (st) reads a final accumulator");
  m.signal("h_ready", 1, "head: it can run (op_ok, and the store unit takes its write)");
  m.signal("fire", 1, "the head micro-op runs this cycle");
  m.signal("ex_fma", 1, "it issues an FMA");
  m.signal("ex_to_rf", 1, "the FMA's result goes to the register file");
  m.array("ex_a", 32, V, "FMA operands a, per lane");
  m.array("ex_b", 32, V, "FMA operands b, per lane");
  m.array("ex_c", 32, V, "FMA operands c, per lane");
  m.array("acc_q", 32, ACC, "accumulators (row group x block, Gram lanes, element group)");
  m.signal("pend_q", ACC, "accumulator waits for an FMA result");
  m.signal("rf_busy_q", PB + 1, "register-file writes in the FMA pipe or not yet taken");
  m.array("areg_q", 32, d.PAIRS ? 128 : 64,
          "GEMM: A[i0+r, k0+t] at [4r] (row pairs: A[2m+b, k0+t] at {buffer, m, b, t}); GRAM: A[m0+r, b0+i] at [32g+8r+i] (g: the group's buffer)");
  m.array("breg_q", 32, 64, "GRAM: B[m0+r, j0+j] at [32g+8r+j] (g: the group's buffer)");
  m.signal("mreg_q", 32, "SPMM: beta * val of the current entry; a fused X^T Z step: its X word");
  m.signal("acc_x", 32, "acc[h_x]");
  m.array("fa_q", 32, V, "FMA operand a, per lane");
  m.array("fb_q", 32, V, "FMA operand b, per lane");
  m.array("fc_q", 32, V, "FMA operand c, per lane");
  m.array("fma_y", 32, V, "FMA results, per lane");
  m.signal("tv_q", S + 1, "FMA pipe: an operation at each level (bit S: result on fma_y)");
  m.signal("trf_q", S + 1, "FMA pipe: its result goes to the register file");
  m.array("tidx_q", TI, S + 1, "FMA pipe: its destination (lane v writes index | v)");
  m.array("tm_q", V, S + 1, "FMA pipe: its lanes");
  m.signal("wb_acc", 1, "a result is written to an accumulator");
  m.signal("wb_rf", 1, "a result is written to the register file");
  m.signal("drained", 1, "no micro-op queued and no FMA in flight");
  m.signal("st_acc", 32, "the accumulator stored: acc[h_x] (U_W), acc[h_y] (a step carrying a write)");
  // ---- SPMM value scaling
  m.signal("sv_valid", 1, "a scaled value beta * val is ready");
  m.signal("sv_ready", 1, "the executor takes it");
  m.signal("sv_data", 32, "beta * val");

}

// V pipelined fp32_fma lanes u_<name>_v on operand arrays a, b, c and results y.
void fma_lanes(SvModule& m, const EngineDims& d, const std::string& name, const std::string& a,
               const std::string& b, const std::string& c, const std::string& y) {
  for (int v = 0; v < d.V; ++v)
    m.instantiate("fp32_fma", fmt::format("u_{}_{}", name, v))
        .param("STAGES", std::to_string(d.S))
        .connect("clk", "clk")
        .connect("en", "1'b1")
        .connect("a", fmt::format("{}[{}]", a, v))
        .connect("b", fmt::format("{}[{}]", b, v))
        .connect("c", fmt::format("{}[{}]", c, v))
        .connect("y", fmt::format("{}[{}]", y, v));
}

// The register file is the regfile generator's block (gen/regfile), rf_rows x 16
// words: U_RFL's results are written into it one word at a time, and a MAC step
// reads the row of h_p, its lanes (and with row pairs the odd row's) taking
// adjacent words of the broadcast row.
void register_file(Design& design, SvModule& m, const EngineDims& d) {
  RegfileConfig rf;
  rf.name = m.name() + "_rf";
  rf.rows = d.RFR;
  rf.cols = d.NB;
  rf.word_writes = true;
  add_regfile(design, rf, false);
  m.signal("rf_ld_ready", 1, "register file: takes the write (always)");
  m.signal("rf_ld_row", d.RB, "register file: the row of the FMA result written");
  m.signal("rf_ld_mask", d.NB, "register file: the word of the FMA result written");
  m.signal("rf_rd_row", d.RB, "register file: the row of the head step (h_p)");
  m.signal("rf_rd_data", 32 * d.NB, "register file: that row, broadcast");
  m.array("rf_word", 32, d.NB, "register file: that row's words");
  m.section("Register file", fmt::format(R"(
assign rf_ld_row  = tidx_q[{S}][{RFB1}:4];
assign rf_ld_mask = {NB}'d1 << tidx_q[{S}][3:0];
assign rf_rd_row  = h_p[{RFB1}:4];
always_comb begin
  for (int w = 0; w < {NB}; w++) rf_word[w] = rf_rd_data[32*w +: 32];
end)",
                                         fmt::arg("S", d.S), fmt::arg("RFB1", d.RFB - 1), fmt::arg("NB", d.NB)));
  m.instantiate(rf.name, "u_rf")
      .connect("clk", "clk")
      .connect("rst_n", "rst_n")
      .connect("ld_valid", "wb_rf")
      .connect("ld_ready", "rf_ld_ready")
      .connect("ld_row", "rf_ld_row")
      .connect("ld_mask", "rf_ld_mask")
      .connect("ld_data", fmt::format("{{{}{{fma_y[0]}}}}", d.NB))
      .connect("rd_row", "rf_rd_row")
      .connect("rd_data", "rf_rd_data");
}

// The FMA lanes and SPMM's value scaler (beta * val).
void fma_instances(SvModule& m, const EngineDims& d) {
  const int S = d.S;
  fma_lanes(m, d, "fma", "fa_q", "fb_in", "fc_q", "fma_y");
  m.instantiate("fp32_fma_rv", "u_val_scale")
      .param("STAGES", std::to_string(S))
      .connect("clk", "clk")
      .connect("rst_n", "rst_n")
      .connect("in_valid", "val_rsp_valid")
      .connect("in_ready", "val_rsp_ready")
      .connect("in_a", "beta")
      .connect("in_b", "val_rsp_data")
      .connect("in_c", "32'h80000000")
      .connect("out_valid", "sv_valid")
      .connect("out_ready", "sv_ready")
      .connect("out_data", "sv_data");
}

// Loop bounds of every phase, ELTW's walk order, and the gather buffer's block width.
void loop_bounds_section(SvModule& m, const EngineDims& d) {
  const int CW = d.CW, ACC = d.ACC, V = d.V, GW = d.GW;
  m.section("Loop bounds", fmt::format(R"(
assign blk_lg     = (kind == KIND_SPMM) ? slg_q : 3'd4;
assign blk_w      = {CW}'d1 << blk_lg;
assign col_blocks = (z_cols + blk_w - {CW}'d1) >> blk_lg;
assign rem_rows   = (kind == KIND_GRAM ? a_rows : g_rows) - i0_q;
assign rem_cols   = z_cols - j0_q;
assign rem_brows  = z_rows - b0_q;
assign gr_last    = (rem_rows >= {CW}'d4) ? 2'd3 : rem_rows[1:0] - 2'd1;
assign nb_last    = (rem_cols >= blk_w) ? 4'(blk_w - {CW}'d1) : rem_cols[3:0] - 4'd1;
assign bj_last    = (rem_cols >= {CW}'d8) ? 3'd7 : rem_cols[2:0] - 3'd1;
assign bi_last    = (rem_brows >= {CW}'d8) ? 3'd7 : rem_brows[2:0] - 3'd1;
// The inner loop of each phase: r < rlast+1, j < jlast+1; jo walks r fastest.
always_comb begin
  rlast = 3'd0;
  jlast = nb_last;
  jo    = 1'b0;
  case (ph_q)
    F_C:    begin rlast = {{1'b0, gr_last}}; jo = c_cm; end
    F_Z0, F_CV: begin rlast = {{1'b0, gr_last}};{PJ} end
    F_MAC:  rlast = {{1'b0, gr_last}};
    F_GZ:   begin rlast = 3'd7; jlast = 4'd7; end
    F_PM, F_FOLD: begin rlast = bi_last; jlast = {{1'b0, bj_last}}; end
    F_PF:   begin rlast = bj_last; jlast = {{1'b0, bj_last}}; end
    F_GW:   begin rlast = bi_last; jlast = {{1'b0, bj_last}}; jo = z_cm; end
    default: ;
  endcase
end
// GEMM's and Gram's FMA steps and the zeroing steps cover {V} adjacent columns
// (never with jo).
assign spmm_step = (ph_q == F_SE) || (ph_q == F_SX) || (ph_q == F_SG);
assign e_row   = (ph_q == F_SE) ? tg_head[1:0] : sr_q;
assign e_col   = (ph_q == F_SE) ? {CW}'(col_rsp_data) : col_q;
assign vec     = (ph_q == F_MAC) || (ph_q == F_PM) || (ph_q == F_PF) || (ph_q == F_FOLD) || (spmm_step && sbuf_q) ||
                 (ph_q == F_Z0) || (ph_q == F_CV) || (ph_q == F_GZ);
assign jlast_v = vec ? (jlast & ~4'd{VM1}) : jlast;
assign last2d = (r_q == rlast) && (j_q == jlast_v);
assign r_nx = jo ? ((r_q == rlast) ? 3'd0 : r_q + 3'd1) : ((j_q == jlast_v) ? r_q + 3'd1 : r_q);
assign j_nx = jo ? ((r_q == rlast) ? j_q + 4'd1 : j_q) : ((j_q == jlast_v) ? 4'd0 : j_q + (vec ? 4'd{V} : 4'd1));
// ELTW walks the result in its storage order.
assign elast = (wi_q + {CW}'d1 == row_hi) && (wj_q + {CW}'d1 == z_cols);
assign wi_nx = z_cm ? ((wi_q + {CW}'d1 == row_hi) ? row_lo : wi_q + {CW}'d1)
                    : ((wj_q + {CW}'d1 == z_cols) ? wi_q + {CW}'d1 : wi_q);
assign wj_nx = z_cm ? ((wi_q + {CW}'d1 == row_hi) ? wj_q + {CW}'d1 : wj_q)
                    : ((wj_q + {CW}'d1 == z_cols) ? '0 : wj_q + {CW}'d1);
assign grp_end = (ph_q == F_EA) ? (t_q == {CW}'d{ACCM1} || elast) : (t_q == gn_q);
// A GEMM with MAC steps takes C through the C cursor (F_CL, F_CV; straight to
// F_CV when the cursor has queued the group's words already). With alpha = 1
// (or a continuation pass) the F_CV step fma(1, C, +0) is C itself, but for a
// zero or subnormal C, which gives +0: each row's first MAC step (t = 0) then
// takes that value from breg as its addend, and the group goes straight to
// F_MAC. The C cursor writes the next group's words into the same breg while
// those steps run, one word per step in C's storage order; a word is written
// no earlier than the step that reads it (which reads the old value) when C
// is row-major, or when a row is one step wide (a column-major C).
assign cc_fold  = (kind == KIND_GEMM) && with_c && (k != '0) && (cont || alpha == 32'h3f800000) &&
                  (!c_cm || nb_last < 4'd{V});
// SPMM takes C through the C cursor too (its entry steps carry the words).
assign ph_group = {PRGROUP}!with_c ? F_Z0
                : ((kind == KIND_GEMM && k != '0) || kind == KIND_SPMM) ? (cc_ready ? (cc_fold ? F_MAC : F_CV) : F_CL)
                : F_C;
assign col_ok  = {{32'd0, col_rsp_data}} < 64'(b_rows);
// The widest block of X (a power of two from 1 to 16 columns) whose rows fit the
// gather buffer; none fits when X has more than {GW} rows.
always_comb begin
  xb_fit = 1'b0;
  xb_lg  = 3'd4;
  for (int l = 0; l <= 4; l++)
    if (b_rows != '0 && 64'(b_rows) <= (64'd{GW} >> l)) begin
      xb_fit = 1'b1;
      xb_lg  = 3'(l);
    end
end
// A GEMM pass or SPMM with pipe_gram computes its result's GRAM (Z^T Z) on the
// way when the result is one column block of at most 8 columns (one 8 x 8 Gram
// block): after a row group is written, F_PF multiplies its rows from the
// accumulators into Gram's lanes, and the GRAM launch that follows (tail) only
// folds and writes them.
assign fz_ok    = (pipe_gram || pipe_gram_x) && (z_cols != '0) && (z_cols <= {CW}'d8) &&
                  ((kind == KIND_GEMM && !pipe_gram_x) ||
                   ((kind == KIND_SPMM) && (!xb_fit || z_cols <= ({CW}'d1 << xb_lg)) && (!pipe_gram_x || b_rows == z_rows)));
assign pf_i0    = pf_cur_q ? i0_q : i0_q - {CW}'d4;
assign pf_h     = pf_cur_q ? ah_q : !ah_q;
assign pf_rlast = pf_cur_q ? gr_last : 2'd3;
assign pf_end   = (ph_q == F_PF) && adv && last2d && (t_q[1:0] == pf_rlast);
// Unfused, i0 moves on as the write cursor takes a group (rows_next); fused,
// after the products of the group before it.
assign grp_adv  = (rows_next && !(pf_walk && i0_q != g_lo)) || (pf_end && !pf_cur_q && (rem_rows > {CW}'d4));)",
                                      fmt::arg("CW", CW), fmt::arg("ACCM1", ACC - 1), fmt::arg("V", V),
                                      fmt::arg("VM1", V - 1), fmt::arg("GW", GW),
                                      // Row pairs: a group whose A is not all queued gets it in F_CL first.
                                      fmt::arg("PRGROUP", d.PAIRS ? "(pr_q && !ac_ready) ? F_CL : " : ""),
                                      // Row pairs: the walker's row is 2V columns wide (the even row's, the odd row's).
                                      fmt::arg("PJ", d.PAIRS ? fmt::format(" if (pr_q) jlast = 4'd{};", 2 * V - 1) : std::string())));
}

// SPMM fill: the port B word's column offset h (SystemVerilog), and when the
// fill takes two words per step (a row-major X only when h words are whole
// granules and every row starts on one, so the two units share no granule).
std::string xf_offset(const EngineDims& d) {
  if (d.V == 1) return "4'd1";
  return fmt::format("b_cm ? 4'd1 : (slg_q >= 3'd{}) ? 4'd{} : 4'(4'd1 << (slg_q - 3'd1))", d.VL, d.V / 2);
}
std::string xf_dual(const EngineDims& d) {
  if (d.V == 1) return "1'b0";
  if (d.GRW == 1) return "(slg_q != 3'd0)";
  // h < 16: masking it with GRW - 1 for granules of 16 words or more is masking with 15.
  return fmt::format("(slg_q != 3'd0) && (b_cm || (((xf_h & 4'd{0}) == 4'd0) && (b_cols[{1}:0] == '0)))",
                     std::min(d.GRW - 1, 15), std::countr_zero(static_cast<unsigned>(d.GRW)) - 1);
}

// A piece of the step section's text, formatted with its fields.
std::string step_text(const EngineDims& d, fmt::string_view text) {
  const int XB = d.XB, PB = d.PB, RB = d.RB, LB = d.LB, CW = d.CW, WA = d.WA, QB = d.QB, Q = d.Q, V = d.V,
            GWL = d.GWL;
  return fmt::format(fmt::runtime(text), fmt::arg("XB", XB), fmt::arg("XB1", XB - 1),
                     fmt::arg("PB", PB), fmt::arg("RB1", RB - 1),
                     fmt::arg("LB1", LB - 1), fmt::arg("CW", CW),
                     fmt::arg("WA", WA), fmt::arg("QB1", QB + 1),
                     fmt::arg("Q", Q), fmt::arg("V", V),
                     fmt::arg("GWL", GWL),
                     fmt::arg("SEL_WORD", element_word("sel", "step_word", WA)),
                     fmt::arg("SELB_WORD", element_word("selb", "step_word_b", WA)),
                     fmt::arg("XFH", xf_offset(d)), fmt::arg("DUAL", xf_dual(d)),
                     // Row pairs: the C cursor's walker row m, column j is C[2m + j / V, j mod V].
                     fmt::arg("SELBR", with_pairs(d, pair_row(d, "cc_i0_q", "cc_r_q", "cc_j_q"), fmt::format("cc_i0_q + {}'(cc_r_q)", CW))),
                     fmt::arg("SELBC", with_pairs(d, pair_col(d, "cc_j_q"), fmt::format("j0_q + {}'(cc_j_q)", CW))),
                     fmt::arg("PRMAC", d.PAIRS ? "!pr_q && " : ""),
                     fmt::arg("PRCL", d.PAIRS ? " || (ac_here && ac_on_q); em_rb = cc_here && cc_on_q" : "; em_rb = 1'b1"),
                     fmt::arg("ARIDE", d.PAIRS ? a_ride_text(d) : ""),
                     fmt::arg("EMV", V > 1 ? "em_m[v]" : "em_m"),
                     fmt::arg("GZ_X", gram_acc(d, fmt::format("t_q[{}:0]", LB - 1), "r_q", "j_q[2:0]")),
                     fmt::arg("PM_X", gram_acc(d, "ln_q", "r_q", "j_q[2:0]")),
                     fmt::arg("P0_X", gram_acc(d, fmt::format("{}'d0", LB), "r_q", "j_q[2:0]")),
                     // A following tile's entry waits until the filling tile has written its row of X.
                     fmt::arg("NOTFW", d.RANGE ? " && !fw_wait" : ""),
                     fmt::arg("FWAIT", d.RANGE ? fmt::format(
                         "// A following tile (fill_follow) fills nothing: an entry waits until the\n"
                         "// filling tile has written its row of X whole (rows are filled in order).\n"
                         "// A row of X's block is its columns' words (one block: j0 is 0).\n"
                         "assign fw_wait    = fill_follow && sbuf_q && ((64'(e_col) + 64'd1) * (64'(nb_last) + 64'd1) > 64'(fill_words));\n") : ""));
}

// The step's micro-op: action, registers, lanes, and the operand it addresses.
std::string step_micro_op(const EngineDims& d) {
  return step_text(d, R"(
always_comb begin
  em_valid = 1'b1;
  em_xf    = 1'b0;
  em_rd    = 1'b0;
  em_rb    = 1'b0;
  em_sv    = 1'b0;
  em_st    = 1'b0;
  em_act   = U_Z0;
  em_x     = {XB}'({{ah_q, r_q[1:0], j_q}});
  em_y     = '0;
  em_p     = '0;
  em_m     = {V}'d1;
  for (int v = 0; v < {V}; v++)
    if (vec && ({{1'b0, j_q}} + 5'(v) <= {{1'b0, jlast}})) {EMV} = 1'b1;
  sel_base = a_base; sel_rows = a_rows; sel_cols = a_cols; sel_cm = a_cm;
  sel_r    = i0_q + {CW}'(r_q);
  sel_c    = j0_q + {CW}'(j_q);
  case (ph_q)
    F_RFL: begin
      em_rd = 1'b1; em_act = U_RFL; em_p = {PB}'({{t_q[{RB1}:0], j_q}});
      sel_base = b_base; sel_rows = b_rows; sel_cols = b_cols; sel_cm = b_cm; sel_r = k0 + t_q;
    end
    F_C: begin
      em_rd = 1'b1; em_act = U_C;
      sel_base = c_base; sel_rows = c_rows; sel_cols = c_cols; sel_cm = c_cm;
    end
    F_Z0: ;
    // GEMM's C comes through the C cursor (stream_engine_creads.cpp) into breg:
    // in F_CL as steps of their own, in F_MAC riding on the previous group's
    // steps; F_CV then takes it into the accumulators V columns per step.
    F_CL: begin em_valid = (cc_here && cc_on_q){PRCL}; em_act = U_GREG; em_p = {PB}'(cc_dst); end
    F_CV: begin em_act = U_CV; em_p = {PB}'({{r_q[1:0], j_q}}); end
    // The first step of each row takes A[i0+r, k0+t] from port A (the same
    // read order as a separate read phase, one issue slot fewer per word), and
    // every step the C cursor's next word, if any, from port B.
    F_MAC: begin
      em_rd = {PRMAC}(j_q == 4'd0); em_rb = cc_on_q; em_act = (cc_fold && t_q == '0) ? U_MACC : U_MAC;
      em_p = {PB}'({{t_q[{RB1}:0], j_q}});
      em_st = wc_on_q; em_y = {XB}'({{wc_h_q, wc_r_q, wc_j_q}});
      sel_c = k0 + t_q;
    end
    // The write cursor's words (below); its address is wc_word.
    F_W: begin em_valid = wc_on_q; em_act = U_W; em_x = {XB}'({{wc_h_q, wc_r_q, wc_j_q}}); end
    F_GZ: em_x = {GZ_X};
    // Gram's operands come through the read cursors (A on port A, B on port
    // B): in F_GL as steps of their own, in F_PM riding on the steps of the
    // previous row group.
    F_GL: begin em_rd = gca_on_q; em_rb = gcb_on_q; em_act = U_GREG; end
    F_PM: begin
      em_rd = gca_on_q; em_rb = gcb_on_q; em_act = U_PM; em_x = {PM_X};
      em_y = {XB}'({{gb_q, t_q[1:0], r_q}}); em_p = {PB}'({{gb_q, t_q[1:0], j_q[2:0]}});
    end
    F_FOLD: begin
      em_act = U_FOLD; em_x = {P0_X}; em_y = {GZ_X};
    end
    F_GW: begin
      em_act = U_W; em_x = {P0_X};
      sel_base = z_base; sel_rows = z_rows; sel_cols = z_cols; sel_cm = z_cm;
      sel_r = b0_q + {CW}'(r_q);
    end
    // Fused: the products of a finished row group (row t, half pf_h) with itself,
    // both operands from its accumulators: Z[m, i] (acc[p]) times Z[m, j..j+V-1].
    // With X^T Z, Z[m, i] is X[m, i] instead: a word from port A at the
    // first of its steps, kept for the others.
    F_PF: begin
      em_act = fzx_q ? U_PFX : U_PF; em_x = {PM_X}; em_rd = fzx_q && (j_q == 4'd0);
      em_y = {XB}'({{pf_h, t_q[1:0], j_q}}); em_p = {PB}'({{pf_h, t_q[1:0], 1'b0, r_q}});
      sel_base = b_base; sel_rows = b_rows; sel_cols = b_cols; sel_cm = b_cm;
      sel_r = pf_i0 + {CW}'(t_q[1:0]); sel_c = {CW}'(r_q);
    end
    F_EA: begin em_rd = 1'b1; em_act = U_EA; em_x = t_q[{XB1}:0]; sel_r = wi_q; sel_c = wj_q; end
    F_EB: begin
      em_rd = 1'b1; em_act = U_EB; em_x = t_q[{XB1}:0]; sel_r = wi_q; sel_c = wj_q;
      sel_base = b_base; sel_rows = b_rows; sel_cols = b_cols; sel_cm = b_cm;
    end
    F_EW: begin
      em_act = U_W; em_x = t_q[{XB1}:0]; sel_r = wi_q; sel_c = wj_q;
      sel_base = z_base; sel_rows = z_rows; sel_cols = z_cols; sel_cm = z_cm;
    end
    // An entry's steps: X[col, j0+j] from the gather buffer (V columns) or from
    // DRAM (one). The first is issued with the entry's tag and column index and
    // takes the entry's scaled value.
    F_SE, F_SX, F_SG: begin
      em_x = {XB}'({{ah_q, e_row, j_q}});
      em_st = wc_on_q; em_y = {XB}'({{wc_h_q, wc_r_q, wc_j_q}});
      if (ph_q == F_SE) begin em_valid = tg_entry && col_rsp_valid && col_ok{NOTFW}; em_sv = !se_fill; end
      if (se_fill) em_act = U_XF;
      else if (sbuf_q) em_act = U_XG;
      else begin
        em_rd = 1'b1; em_act = U_X;
        sel_base = b_base; sel_rows = b_rows; sel_cols = b_cols; sel_cm = b_cm; sel_r = e_col;
      end
    end
    F_XF: begin em_valid = xc_on_q; em_act = U_XF; end
    default: em_valid = 1'b0;
  endcase
  // SPMM's fill cursor: X[k, j0+j] on port A (and X[k, j0+j+h] on port B) ride
  // on every step that uses neither port, and go as steps of their own (U_XF)
  // in F_XF and while an entry waits on its row.
  if (xc_on_q && (ph_q == F_XF || ph_q == F_SE || ph_q == F_SG || ph_q == F_Z0 || ph_q == F_CV || ph_q == F_W)) begin
    em_xf = 1'b1; em_rd = 1'b1; em_rb = xf_dual && ({{1'b0, xc_j_q}} + 5'(xf_h) <= {{1'b0, nb_last}});
    sel_base = b_base; sel_rows = b_rows; sel_cols = b_cols; sel_cm = b_cm;
    sel_r = xc_t_q; sel_c = j0_q + {CW}'(xc_j_q);
  end
  // SPMM's C cursor: C's next word on port B, into breg[p] (the step's aux is
  // its gather buffer word), riding on the entry and write steps; the fill then
  // takes port A alone (xf_dual).
  if (kind == KIND_SPMM && cc_ride) begin em_rb = 1'b1; em_p = {PB}'(cc_dst); end{ARIDE}
  // Gram's A cursor's word A[m, b0+i] of row m = gca_i0 + r.
  if (ph_q == F_GL || ph_q == F_PM) begin
    sel_r = gca_i0_q + {CW}'(gca_r_q);
    sel_c = b0_q + {CW}'(gca_j_q);
  end
end
)");
}

// Port B's address: C, Gram's B, or the fill's second word.
std::string step_port_b(const EngineDims& d) {
  return step_text(d, R"(// Port B: the C cursor's word C[cc_i0 + r, j0 + j] (GEMM), or Gram's B
// cursor's word B[m, j0+j] of row m = gcb_i0 + r.
always_comb begin
  selb_base = c_base; selb_rows = c_rows; selb_cols = c_cols; selb_cm = c_cm;
  selb_r = {SELBR};
  selb_c = {SELBC};
  if (kind == KIND_GRAM) begin
    selb_base = b_base; selb_rows = b_rows; selb_cols = b_cols; selb_cm = b_cm;
    selb_r = gcb_i0_q + {CW}'(gcb_r_q);
    selb_c = j0_q + {CW}'(gcb_j_q);
  end
  // SPMM's fill: X[k, j0+j+h] beside port A's X[k, j0+j] (without C: else
  // port B is the C cursor's).
  if (kind == KIND_SPMM && !with_c) begin
    selb_base = b_base; selb_rows = b_rows; selb_cols = b_cols; selb_cm = b_cm;
    selb_r = xc_t_q;
    selb_c = j0_q + {CW}'(xc_j_q) + {CW}'(xf_h);
  end
end
)");
}

// The step's word address, the walker's advance, and the CSR stream handshakes.
std::string step_address(const EngineDims& d) {
  return step_text(d, R"(// Row k of X's block sits at gather buffer words k * block width + j (the
// fill cursor's row is xc_t, an entry's its column index).
assign xb_word = {GWL}'(e_col << slg_q) | {GWL}'(j_q);
assign xf_word = {GWL}'(xc_t_q << slg_q) | {GWL}'(xc_j_q);
// The fill cursor walks the block row by row (k outer), two words per step:
// X[k, j] on port A and X[k, j+h] on port B, port A taking runs of h columns
// and skipping the next h. A column-major X pairs columns j and j+1 (h = 1):
// each unit's reuse window holds one granule of each of its columns, which
// serves 4 rows; a row-major one pairs the halves of each min(width, V)
// columns, so each unit reads whole granules of its half when h words are
// whole granules and rows start on a granule (else it fills one word per
// step). Both words land in one line, h lanes apart. Rows before xc_t are
// filled whole, so an entry whose row of X is xc_t or later waits: its F_SE
// step takes the fill's words instead.
assign xf_h       = {XFH};
assign xf_dual    = !with_c && ({DUAL});
assign xf_jnext   = (xf_dual && ((xc_j_q + 4'd1) & (xf_h - 4'd1)) == 4'd0) ? 5'(xc_j_q) + 5'(xf_h) + 5'd1 : 5'(xc_j_q) + 5'd1;
assign xf_lastcol = (xf_jnext > {{1'b0, nb_last}});
assign xf_last    = xf_lastcol && (xc_t_q + {CW}'d1 == b_rows);
assign xf_wait    = xc_on_q && (e_col >= xc_t_q);
{FWAIT}assign se_fill    = (ph_q == F_SE) && tg_valid && tg_entry && col_rsp_valid && col_ok && xf_wait;
assign se_first   = (ph_q == F_SE) && tg_entry && col_rsp_valid && col_ok && adv && !se_fill;
// Element [r, c] of a region: c*rows + r column-major, r*cols + c row-major. The
// sequencer checked that every region lies inside the image, so nothing wraps.
{SEL_WORD}{SELB_WORD}
assign q_space    = (q_cnt_q != {QB1}'d{Q});
// A step's port B read enters a two-entry FIFO (room is a registered count), so
// that its port A read never waits on the port B load unit's ready.
assign step_go    = q_space && (!em_rd || ld_req_ready) && (!em_rb || lbf_space);
assign ld_req_valid = em_valid && em_rd && q_space && (!em_rb || lbf_space);
assign ld_req_word  = step_word;
assign lb_req_valid = lbf_valid;
assign lb_req_word  = lbf_word;
always_comb begin
  case (ph_q)
    // An error or empty-group tag, or the entry's column index (refused, or
    // issued with the entry's first step).
    F_SE:    adv = tg_valid && (!tg_entry || (col_rsp_valid && (!col_ok || (step_go{NOTFW}))));
    F_DRAIN: adv = drained;
    F_DONE:  adv = 1'b1;
    F_IDLE:  adv = start;
    default: adv = em_valid && step_go;
  endcase
end
assign push = em_valid && adv;
assign tg_pop        = (ph_q == F_SE) && adv && !se_fill;
assign col_rsp_ready = (ph_q == F_SE) && tg_entry && (!col_ok || (step_go{NOTFW})) && !se_fill;)");
}

// SPMM: the fill cursor starts on a block of X, and the groups start at once:
// the fill rides on their steps. (A result never overwrites X:
// docs/commands.md.)
std::string fill_start() {
  return "begin xc_on_q <= !fill_follow; xc_t_q <= '0; xc_j_q <= '0; xf_tail_q <= 1'b0; ph_q <= ph_group; end";
}

// A piece of the walker's text, formatted with its fields.
std::string walker_text(const EngineDims& d, fmt::string_view text) {
  const int CW = d.CW, LB = d.LB, L = d.L;
  // GEMM/SPMM: on to the next row group, in the other half of the accumulators.
  const std::string advance = fmt::format("begin i0_q <= i0_q + {}'d4; ah_q <= !ah_q; ph_q <= ph_group; end", CW);
  // Fused: first the products of the group before the one just handed over.
  const std::string next_rows = fmt::format(
      "begin\n      if (pf_walk && i0_q != g_lo) begin pf_cur_q <= 1'b0; ph_q <= F_PF; end\n      else {}\n    end", advance);
  const std::string block_end = fmt::format(R"(if (rem_cols <= blk_w) ph_q <= F_DRAIN;
          else begin
            j0_q <= j0_q + blk_w;
            if (kind == KIND_SPMM) begin
              if (sbuf_q) {}
              else ph_q <= ph_group;
            end else ph_q <= (k != '0) ? F_RFL : ph_group;
          end)",
                                            fill_start());
  // GEMM and SPMM: the first column block (SPMM's X first when it fits the buffer).
  const std::string producer_start =
      fmt::format("if (kind == KIND_GEMM) ph_q <= (k != '0) ? F_RFL : ph_group;\n"
                  "                    else if (xb_fit) {}\n                    else ph_q <= ph_group;",
                  fill_start());
  return fmt::format(fmt::runtime(text), fmt::arg("CW", CW), fmt::arg("LB", LB), fmt::arg("LM1", L - 1),
                     fmt::arg("AFTER_M", L > 1 ? fmt::format("begin t_q <= {}'d1; ph_q <= F_FOLD; end", CW)
                                               : std::string("ph_q <= F_GW;")),
                     fmt::arg("NEXT_ROWS", next_rows), fmt::arg("FILL_START", fill_start()),
                     // Row pairs: F_CL also brings the group's A into areg, and may run without C.
                     fmt::arg("CLEXIT", d.PAIRS ? "if (cl_all) ph_q <= !with_c ? F_Z0 : cc_fold ? F_MAC : F_CV;"
                                                : "if (cl_done) ph_q <= cc_fold ? F_MAC : F_CV;"),
                     fmt::arg("PRODUCER_START", producer_start), fmt::arg("ADVANCE", advance),
                     fmt::arg("BLOCK_END", block_end),
                     // X^T Z on the product unit: the group's rows of X into the gather buffer first.
                     fmt::arg("CATCH", d.SPLIT ? "\n    if (rg_end && xz_catch) ph_q <= F_XF;" : ""),
                     fmt::arg("XF_UP", d.SPLIT ? "if (xf_up_q) begin\n        if (xf_up_done) ph_q <= xf_ret_q;\n      end else " : ""),
                     // The block's row groups are done: the rest of its fill, then the next block.
                     fmt::arg("GROUPS_DONE", "i0_q <= g_lo;\n          if (xc_on_q) begin xf_tail_q <= 1'b1; ph_q <= F_XF; end\n"
                                             "          else " + block_end));
}

// The walker's start and its SPMM, gather fill and ELTW phases.
std::string walker_start(const EngineDims& d) {
  return walker_text(d, R"(
always_ff @(posedge clk) begin
  if (!rst_n) begin
    ph_q    <= F_IDLE;
    done_q  <= 1'b0;
    err_q   <= 1'b0;
    xc_on_q <= 1'b0;
    fz_q    <= 1'b0;
  end else begin
    done_q <= 1'b0;
    // SPMM's fill cursor walks X's block row by row (the walker starts it below).
    if (push && em_xf) begin
      if (xf_last) xc_on_q <= 1'b0;
      else if (xf_lastcol) begin xc_j_q <= '0; xc_t_q <= xc_t_q + {CW}'d1; end
      else xc_j_q <= xf_jnext[3:0];
    end
    case (ph_q)
      F_IDLE: if (start) begin
        i0_q <= g_lo0; j0_q <= '0; b0_q <= '0; t_q <= '0; r_q <= '0; j_q <= '0; ln_q <= '0; ah_q <= 1'b0;
        wi_q <= row_lo; wj_q <= '0; gi_q <= row_lo; gj_q <= '0; err_q <= 1'b0; xc_on_q <= 1'b0;
        sbuf_q <= xb_fit;
        slg_q  <= xb_fit ? xb_lg : 3'd4;
        fz_q   <= fz_ok;
        fzx_q  <= !pipe_gram;
        // A fused GEMM or SPMM zeroes Gram's lanes first; a GRAM whose products
        // the launch before it computed (tail) only folds and writes them.
        if (fz_ok) ph_q <= F_GZ;
        else case (kind)
          KIND_GEMM: ph_q <= (k != '0) ? F_RFL : ph_group;
          KIND_GRAM: if (tail) {AFTER_M} else ph_q <= F_GZ;
          KIND_SPMM: if (xb_fit) {FILL_START} else ph_q <= ph_group;
          default:   ph_q <= F_EA;
        endcase
      end
      F_SE: if (tg_valid) begin
        if (tg_head[4]) begin err_q <= 1'b1; ph_q <= F_DRAIN; end  // a damaged row pointer
        else if (tg_head[3]) ;  // a group without entries: its end is rg_end
        else if (col_rsp_valid && !col_ok) begin err_q <= 1'b1; ph_q <= F_DRAIN; end
        else if (se_first) begin
          col_q <= e_col;
          sr_q  <= e_row;
          sl_q  <= tg_head[2];
          if (!last2d) begin j_q <= j_nx; ph_q <= sbuf_q ? F_SG : F_SX; end
        end
      end
      // The fill's steps of their own: the whole block before its first group,
      // or after its last group what the groups' steps did not carry.
      F_XF: {XF_UP}if (!xc_on_q || (push && xf_last)) begin
        if (xf_tail_q) {BLOCK_END}
        else ph_q <= ph_group;
      end
      F_EA, F_EB, F_EW: if (adv) begin
        wi_q <= wi_nx;
        wj_q <= wj_nx;
        t_q  <= t_q + {CW}'d1;
        if (grp_end) begin
          t_q <= '0;
          if (ph_q == F_EA) begin
            gn_q <= t_q; glast_q <= elast; wi_q <= gi_q; wj_q <= gj_q;
            ph_q <= has_b ? F_EB : F_EW;
          end else if (ph_q == F_EB) begin
            wi_q <= gi_q; wj_q <= gj_q; ph_q <= F_EW;
          end else if (glast_q) ph_q <= F_DRAIN;
          else begin
            gi_q <= wi_nx; gj_q <= wj_nx; ph_q <= F_EA;
          end
        end
      end
      F_GL: if (push && gc_next) ph_q <= F_PM;
      F_CL: {CLEXIT}
      // GEMM and SPMM: when the write cursor has written the group before the
      // one at i0, that group is handed to it and, unless it is the last, the
      // next group starts (rows_next); when it has written the group at i0 (only ever the
      // block's last: any other goes on at once, rg_end), the next column
      // block (SPMM: its X first, GEMM: its register file).
      F_W: if (wc_take && wc_end && wc_i0_q == i0_q) begin  // (the other case: rows_next)
        // Fused: the products of the group before the last, then of the last.
        if (pf_walk) begin pf_cur_q <= (i0_q == g_lo); ph_q <= F_PF; end
        else begin
          {GROUPS_DONE}
        end
      end
      F_DRAIN: if (drained) ph_q <= F_DONE;
      F_DONE: begin done_q <= 1'b1; ph_q <= F_IDLE; end
)");
}

// The walker's two-level loop phases (GEMM, GRAM, SPMM rows).
std::string walker_loops(const EngineDims& d) {
  return walker_text(d, R"(      default: if (adv) begin
        r_q <= r_nx;
        j_q <= j_nx;
        if (last2d) begin
          r_q <= '0;
          j_q <= '0;
          case (ph_q)
            F_RFL: if (t_q + {CW}'d1 == k) begin t_q <= '0; ph_q <= ph_group; end
                   else t_q <= t_q + {CW}'d1;
            // (A group's last step is rg_end: see the end of this block.)
            F_C, F_CV, F_Z0: if (kind == KIND_SPMM) ph_q <= F_SE;
                       else if (k != '0) ph_q <= F_MAC;
            F_MAC: if (t_q + {CW}'d1 == k) t_q <= '0;
                   else t_q <= t_q + {CW}'d1;
            F_GZ: if (t_q == {CW}'d{LM1}) begin
                    t_q <= '0; ln_q <= '0; i0_q <= g_lo; gb_q <= 1'b0;
                    if (kind == KIND_GRAM) ph_q <= F_GL;
                    else {PRODUCER_START}
                  end else t_q <= t_q + {CW}'d1;
            // Fused: after a group's products, the next group; after the
            // products of the group before the last, the last's; then the end.
            F_PF: begin
              ln_q <= (ln_q == {LB}'d{LM1}) ? '0 : ln_q + {LB}'d1;
              if (t_q[1:0] == pf_rlast) begin
                t_q <= '0;
                if (pf_cur_q) begin
                  {GROUPS_DONE}
                end else if (rem_rows <= {CW}'d4) pf_cur_q <= 1'b1;
                else {ADVANCE}
              end else t_q <= t_q + {CW}'d1;
            end
            F_PM: begin
              ln_q <= (ln_q == {LB}'d{LM1}) ? '0 : ln_q + {LB}'d1;
              if (t_q[1:0] == gr_last) begin
                t_q <= '0;
                if (rem_rows <= {CW}'d4) begin
                  {AFTER_M}
                end else begin i0_q <= i0_q + {CW}'d4; gb_q <= !gb_q; ph_q <= gc_next ? F_PM : F_GL; end
              end else t_q <= t_q + {CW}'d1;
            end
            F_FOLD: if (t_q == {CW}'d{LM1}) begin t_q <= '0; ph_q <= F_GW; end
                    else t_q <= t_q + {CW}'d1;
            F_GW: if (rem_cols <= {CW}'d8) begin
                j0_q <= '0;
                if (rem_brows <= {CW}'d8) ph_q <= F_DRAIN;
                else begin b0_q <= b0_q + {CW}'d8; ph_q <= F_GZ; end
              end else begin j0_q <= j0_q + {CW}'d8; ph_q <= F_GZ; end
            default: if (!sl_q) ph_q <= F_SE;  // F_SX, F_SG: the entry's columns are issued
          endcase
        end
      end
    endcase
    // A GEMM or SPMM row group's last step (rg_end, one definition in the write
    // cursor): its results go to the write cursor and ride on the next group's
    // steps when the cursor is free and there is a next group (rg_on);
    // otherwise F_W writes what the cursor holds.
    if (rows_next) {NEXT_ROWS}
    else if (rg_end) ph_q <= F_W;{CATCH}
  end
end)");
}

// The micro-op queue between the walker and the executor.
void micro_op_queue_section(SvModule& m, const EngineDims& d) {
  const int WA = d.WA, QB = d.QB;
  m.section("Micro-op queue", fmt::format(R"(
always_ff @(posedge clk) begin
  if (!rst_n) begin
    q_wr_q  <= '0;
    q_rd_q  <= '0;
    q_cnt_q <= '0;
  end else begin
    if (push) begin
      q_act[q_wr_q] <= em_act;
      q_rd[q_wr_q]  <= em_rd;
      q_rb[q_wr_q]  <= em_rb;
      q_sv[q_wr_q]  <= em_sv;
      q_st[q_wr_q]  <= em_st;
      q_x[q_wr_q]   <= em_x;
      q_y[q_wr_q]   <= em_y;
      q_p[q_wr_q]   <= em_p;
      q_w[q_wr_q]   <= (em_act == U_GREG || em_act == U_PM) ? {WA}'(gca_dst)
                     : (ph_q == F_W || em_st) ? wc_word : step_word;
      q_m[q_wr_q]   <= em_m;
      q_xf[q_wr_q]  <= em_xf;
      q_f[q_wr_q]   <= xf_word;
      q_aux[q_wr_q] <= (ph_q == F_MAC || ph_q == F_CL) ? {AUX}'(cc_dst)
                     : (ph_q == F_GL || ph_q == F_PM) ? {AUX}'(gcb_dst) : {AUX}'(xb_word);
      q_wr_q <= q_wr_q + {QB}'d1;
    end
    if (fire) q_rd_q <= q_rd_q + {QB}'d1;
    q_cnt_q <= q_cnt_q + {QB1}'(push) - {QB1}'(fire);
  end
end)",
                                          fmt::arg("QB", QB), fmt::arg("QB1", QB + 1), fmt::arg("WA", WA),
                                          fmt::arg("AUX", d.AUX)));
}

// A piece of the executor's text, formatted with its fields.
std::string executor_text(const EngineDims& d, fmt::string_view text) {
  const int S = d.S, TI = d.TI, XB = d.XB, PB = d.PB, V = d.V, GWL = d.GWL, VL = d.VL;
  return fmt::format(fmt::runtime(text), fmt::arg("S", S), fmt::arg("S1", S - 1), fmt::arg("TI", TI),
                     fmt::arg("XB1", XB - 1), fmt::arg("PBP", PB + 1),
                     fmt::arg("V", V), fmt::arg("XB", XB), fmt::arg("PB", PB),
                     fmt::arg("HMV", V > 1 ? "h_m[v]" : "h_m"),
                     fmt::arg("GWL1", GWL - 1), fmt::arg("VL", VL),
                     fmt::arg("FBIN", V > 1 ? fmt::format("    xb_lane[v] = {}'(v) + xo_q;\n"
                                                          "    fb_in[v]   = xg_q ? xb_rdata[32*xb_lane[v] +: 32] : fb_q[v];", VL)
                                            : std::string("    fb_in[v]   = xg_q ? xb_rdata : fb_q[v];")),
                     fmt::arg("XO", V > 1 ? fmt::format("    xo_q  <= h_aux[{}:0];\n", VL - 1) : std::string()),
                     // The fill writes lane f mod V, and with a port B word (column j+h) lane f+h mod V.
                     fmt::arg("XBWE", V > 1 ? fmt::format("always_comb\n  for (int v = 0; v < {0}; v++) "
                                                          "xb_we[v] = fire && h_xf && "
                                                          "((h_f[{1}:0] == {2}'(v)) || (h_rb && !with_c && (h_f[{1}:0] + {2}'(xf_h) == {2}'(v))));",
                                                          V, VL - 1, VL)
                                            : std::string("assign xb_we = fire && h_xf;")),
                     fmt::arg("XBWD", V > 1 ? fmt::format("always_comb\n  for (int v = 0; v < {0}; v++) "
                                                          "xb_wdata[32*v +: 32] = (h_rb && !with_c && (h_f[{1}:0] + {2}'(xf_h) == {2}'(v))) "
                                                          "? lb_rsp_data : ld_rsp_data;",
                                                          V, VL - 1, VL)
                                            : std::string("assign xb_wdata = ld_rsp_data;")),
                     fmt::arg("GSOK", d.SPLIT ? "\n  // The first micro-op after a row group waits for the products of the group before it."
                                               "\n  if (h_gs && !pu_free) op_ok = 1'b0;"
                                               "\n  // The product unit's read of X's row takes the gather buffer's read port this cycle."
                                               "\n  if (h_act == U_XG && pu_xrd_run) op_ok = 1'b0;" : ""),
                     fmt::arg("PXRE", d.SPLIT ? " || pu_xrd" : ""),
                     fmt::arg("PXRA", d.SPLIT ? "pu_xrd ? pu_xline : " : ""),
                     fmt::arg("PDRAIN", d.SPLIT ? " && !pu_busy_q && (ptv_q == '0)" : ""),
                     fmt::arg("PWB", gram_products_writeback(d)),
                     // Row pairs: the odd row's accumulators, write and C word.
                     fmt::arg("PRB", d.PAIRS ? " && !(pr_q && x_busy2)" : ""),
                     fmt::arg("PRP", d.PAIRS ? " && (!pr_q || w2_free)" : ""),
                     fmt::arg("PRY", d.PAIRS ? " && (!pr_q || !h_st || w2_free)" : ""),
                     // (A pair's second word: the next column of a row-major operand's row, the odd row of a column-major one.)
                     fmt::arg("PRBREG", d.PAIRS ? fmt::format("\n      if (h_rb && pr_q) breg_q[h_aux[5:0] | (c_cm ? 6'd{} : 6'd1)] <= lb_rsp_data2;"
                                                              "\n      if (h_rd && pr_q) begin areg_q[h_ad] <= ld_rsp_data; areg_q[h_ad | (a_cm ? 7'd8 : 7'd1)] <= ld_rsp_data2; end", V)
                                                : std::string()),
                     fmt::arg("NPR", d.PAIRS ? " && !pr_q" : ""),
                     // areg's index: 7 bits with row pairs (two buffers of 64), else 6.
                     fmt::arg("AY", d.PAIRS ? "{1'b0, h_y[5:0]}" : "h_y[5:0]"),
                     fmt::arg("AX", d.PAIRS ? "{3'b000, h_x[5:4], 2'b00}" : "{2'b00, h_x[5:4], 2'b00}"),
                     fmt::arg("AW6", d.PAIRS ? "{1'b0, h_w[5:0]}" : "h_w[5:0]"),
                     fmt::arg("AMAC", d.PAIRS ? "pr_q ? areg_q[{h_x[6:4], 1'b0, h_p[6:4]}] : " : ""),
                     fmt::arg("TMV", V > 1 ? fmt::format("tm_q[{}][v]", S) : fmt::format("tm_q[{}]", S)),
                     fmt::arg("TMU", V > 1 ? fmt::format("tm_q[{}][u]", S) : fmt::format("tm_q[{}]", S)));
}

// The executor's head, its readiness, and the FMA operands of the step.
std::string executor_issue(const EngineDims& d) {
  return executor_text(d, R"(
assign h_valid = (q_cnt_q != '0);
assign h_act   = q_act[q_rd_q];
assign h_rd    = q_rd[q_rd_q];
assign h_rb    = q_rb[q_rd_q];
assign h_sv    = q_sv[q_rd_q];
assign h_st    = q_st[q_rd_q];
assign h_x     = q_x[q_rd_q];
assign h_y     = q_y[q_rd_q];
assign h_p     = q_p[q_rd_q];
assign h_m     = q_m[q_rd_q];
assign h_aux   = q_aux[q_rd_q];
assign h_xf    = q_xf[q_rd_q];
assign h_f     = q_f[q_rd_q];
assign h_w     = q_w[q_rd_q];
assign acc_x   = acc_q[h_x];
// Lane v of a step touches accumulator x|v (and y|v when folding): the walker
// aligns x, y and p to the lane count. A result written back this cycle is
// forwarded from fma_y to a step issued in the same cycle, so a chain's next
// step issues STAGES + 1 cycles after the previous one. Lane u of the write-back
// writes accumulator tidx|u, so each step lane compares against every lane.
always_comb begin
  x_pend = 1'b0;
  x_busy = 1'b0;
  y_busy = 1'b0;
  for (int v = 0; v < {V}; v++) begin
    fwd_x[v]  = 1'b0;
    fwd_y[v]  = 1'b0;
    acc_fx[v] = acc_q[h_x | {XB}'(v)];
    acc_fy[v] = acc_q[h_y | {XB}'(v)];
    for (int u = 0; u < {V}; u++)
      if (wb_acc && {TMU}) begin
        if ((tidx_q[{S}][{XB1}:0] | {XB}'(u)) == (h_x | {XB}'(v))) begin fwd_x[v] = 1'b1; acc_fx[v] = fma_y[u]; end
        if ((tidx_q[{S}][{XB1}:0] | {XB}'(u)) == (h_y | {XB}'(v))) begin fwd_y[v] = 1'b1; acc_fy[v] = fma_y[u]; end
      end
    if ({HMV} && pend_q[h_x | {XB}'(v)]) x_pend = 1'b1;
    if ({HMV} && pend_q[h_x | {XB}'(v)] && !fwd_x[v]) x_busy = 1'b1;
    if ({HMV} && pend_q[h_y | {XB}'(v)] && !fwd_y[v]) y_busy = 1'b1;
  end
end
// A step waits for its word, for the accumulators it reads or overwrites to
// leave the FMA pipe, and (GEMM) for the register file to be loaded. A write
// (U_W, or one carried by a GEMM or SPMM step) also waits for the store unit.
// U_W stores acc_q itself; a carried write also takes the result written back
// in its cycle (acc_fy), so a group's first step need not wait a cycle for the
// accumulator its previous group finished last.
always_comb begin
  case (h_act)
    U_RFL, U_GREG, U_XF: op_ok = 1'b1;
    U_MAC, U_MACC: op_ok = !x_busy && (rf_busy_q == '0){PRB};
    U_FOLD, U_PF, U_PFX: op_ok = !x_busy && !y_busy;
    U_X, U_XG: op_ok = !x_busy && (!h_sv || sv_valid);
    U_W:    op_ok = !x_pend{PRP};
    default: op_ok = !x_busy;
  endcase{GSOK}
end
assign st_need  = (h_act == U_W) || h_st;
assign st_free  = (!h_st || !pend_q[h_y] || fwd_y[0]){PRY};
assign h_ready  = op_ok && (!st_need || st_ready) && st_free;
assign words_in = (!h_rd || ld_rsp_valid) && (!h_rb || lb_rsp_valid);
assign fire     = h_valid && words_in && h_ready;
// Each running cycle in exactly one class (perf counters issue .. wait_store,
// docs/top.md "Registers"): a step issued; no step queued (the walker is
// behind, or the launch starts or drains); the oldest step waits for its port
// A word, else for its port B word; for an accumulator in the FMA pipe, the
// register file or a scaled value; for the store unit.
assign cycle_class = {{h_valid && words_in && op_ok && !h_ready,
                      h_valid && words_in && !op_ok,
                      h_valid && !(h_rd && !ld_rsp_valid) && h_rb && !lb_rsp_valid,
                      h_valid && h_rd && !ld_rsp_valid,
                      busy && !h_valid,
                      fire}};
assign ld_rsp_ready = fire && h_rd;
assign lb_rsp_ready = fire && h_rb;
assign sv_ready = fire && h_sv;
assign ex_fma   = fire && (h_act == U_C || h_act == U_CV || h_act == U_EA || h_act == U_EB || h_act == U_RFL || h_act == U_MAC || h_act == U_MACC ||
                           h_act == U_PM || h_act == U_PF || h_act == U_PFX || h_act == U_FOLD || h_act == U_X || h_act == U_XG);
assign ex_to_rf = (h_act == U_RFL);
always_comb begin
  for (int v = 0; v < {V}; v++) begin
    ex_a[v] = areg_q[{AY}];
    ex_b[v] = ld_rsp_data;
    ex_c[v] = acc_fx[v];
    case (h_act)
      U_C:    begin ex_a[v] = cont ? 32'h3f800000 : alpha; ex_c[v] = 32'h00000000; end
      U_CV:   begin ex_a[v] = cont ? 32'h3f800000 : alpha; ex_b[v] = breg_q[h_p[5:0] | 6'(v)]; ex_c[v] = 32'h00000000; end
      U_EA:   begin ex_a[v] = alpha; ex_c[v] = 32'h80000000; end
      U_EB:   ex_a[v] = beta;
      U_RFL:  begin ex_a[v] = scale; ex_c[v] = 32'h80000000; end
      U_MAC, U_MACC: begin
        ex_a[v] = {AMAC}h_rd ? ld_rsp_data : areg_q[{AX}];
        ex_b[v] = rf_word[h_p[3:0] | 4'(v)];
        if (h_act == U_MACC) ex_c[v] = (breg_q[h_x[5:0] | 6'(v)][30:23] == 8'h00) ? 32'h00000000 : breg_q[h_x[5:0] | 6'(v)];
      end
      U_PM:   ex_b[v] = breg_q[h_p[5:0] | 6'(v)];
      // Its row group's results as they were stored: acc[p] (broadcast) times
      // acc[y|v]. They are final: the group's writes, which wait for each
      // result, were all issued before this step.
      // U_PFX: X's word from port A (kept in mreg for the row's other steps).
      U_PF, U_PFX: begin
        ex_a[v] = (h_act == U_PF) ? relu_word(relu, acc_q[{XB}'(h_p)]) : h_rd ? ld_rsp_data : mreg_q;
        ex_b[v] = relu_word(relu, acc_fy[v]);
      end
      U_FOLD: begin ex_a[v] = acc_fx[v]; ex_b[v] = 32'h3f800000; ex_c[v] = acc_fy[v]; end
      U_X, U_XG: ex_a[v] = h_sv ? sv_data : mreg_q;
      default: ;
    endcase
  end
end
)");
}

// Write-back, the store and gather buffer ports, and the executor's registers.
std::string executor_state(const EngineDims& d) {
  return executor_text(d, R"(// Results are written back STAGES + 1 cycles after issue (operands registered,
// then the FMA's STAGES levels); the step issued in that cycle already sees them.
assign wb_acc = tv_q[{S}] && !trf_q[{S}];
assign wb_rf  = tv_q[{S}] && trf_q[{S}];
assign drained = (q_cnt_q == '0) && (tv_q == '0) && (rf_busy_q == '0){PDRAIN};
// U_W stores acc[x]; a step carrying a write stores acc[y] (its group has
// finished: acc_fy is acc_q, or the last result written back this cycle) in
// the cycle the step issues.
assign st_acc   = (h_act == U_W) ? acc_x : acc_fy[0];
assign st_valid = h_valid && st_need && op_ok && st_free && words_in;
assign st_word  = h_w;
// The gather buffer: a fill step (xf) writes its word into lane f mod V; U_XG reads line
// aux / V, whose lanes from aux mod V on reach the FMAs' b inputs in place of
// fb_q the next cycle (a block narrower than V columns holds V / width rows
// per line; lanes past the block's width are masked).
{XBWE}
assign xb_waddr = h_f[{GWL1}:{VL}];
{XBWD}
assign xb_re    = (fire && (h_act == U_XG)){PXRE};
assign xb_raddr = {PXRA}h_aux[{GWL1}:{VL}];
always_comb
  for (int v = 0; v < {V}; v++) begin
{FBIN}
  end
assign st_data  = relu_word(relu, st_acc);
always_ff @(posedge clk) begin
  if (!rst_n) begin
    tv_q      <= '0;
    pend_q    <= '0;
    rf_busy_q <= '0;
    xg_q      <= 1'b0;
  end else begin
    xg_q  <= fire && (h_act == U_XG);
{XO}    tv_q  <= {{tv_q[{S1}:0], ex_fma}};
    trf_q <= {{trf_q[{S1}:0], ex_to_rf}};
    tidx_q[0] <= ex_to_rf ? {TI}'(h_p) : {TI}'(h_x);
    tm_q[0]   <= h_m;
    for (int s = 1; s <= {S}; s++) begin
      tidx_q[s] <= tidx_q[s-1];
      tm_q[s]   <= tm_q[s-1];
    end
    for (int v = 0; v < {V}; v++) begin
      fa_q[v] <= ex_a[v];
      fb_q[v] <= ex_b[v];
      fc_q[v] <= ex_c[v];
    end
    for (int v = 0; v < {V}; v++)
      if (wb_acc && {TMV}) begin
        acc_q[tidx_q[{S}][{XB1}:0] | {XB}'(v)]  <= fma_y[v];
        pend_q[tidx_q[{S}][{XB1}:0] | {XB}'(v)] <= 1'b0;
      end
    rf_busy_q <= rf_busy_q + {PBP}'(ex_fma && ex_to_rf) - {PBP}'(wb_rf && rf_ld_ready);
    for (int v = 0; v < {V}; v++)
      if (ex_fma && !ex_to_rf && {HMV}) pend_q[h_x | {XB}'(v)] <= 1'b1;{PWB}
    if (fire) begin
      case (h_act)
        U_Z0:   for (int v = 0; v < {V}; v++) if ({HMV}) acc_q[h_x | {XB}'(v)] <= 32'd0;
        U_MAC, U_MACC: if (h_rd{NPR}) areg_q[{AX}] <= ld_rsp_data;
        // Gram's A word (w[6]: A and B are one operand, so it is B's word too).
        U_GREG, U_PM:
          if (h_rd{NPR}) begin
            areg_q[{AW6}] <= ld_rsp_data;
            if (h_w[6]) breg_q[h_w[5:0]] <= ld_rsp_data;
          end
        default: ;
      endcase
      // The port B word: GEMM's C or Gram's B into breg[aux]; SPMM's C into
      // breg[p]; without C, SPMM's is the fill's (to the gather buffer).
      if (h_rb && kind == KIND_SPMM && with_c) breg_q[h_p[5:0]] <= lb_rsp_data;
      else if (h_rb && !h_xf) breg_q[h_aux[5:0]] <= lb_rsp_data;{PRBREG}
    end
    if (fire && h_sv) mreg_q <= sv_data;
    if (fire && h_act == U_PFX && h_rd) mreg_q <= ld_rsp_data;
  end
end
assign busy     = (ph_q != F_IDLE);
assign done     = done_q;
assign fused    = fz_q;
assign err      = done_q && err_q;
assign fma_fire = ex_fma;)");
}

}  // namespace engine

std::vector<Field> engine_descriptor(int WA, int CW) {
  std::vector<Field> f = {
      {"start", 1, "launch (pulse): the descriptor below is valid and stays so until done"},
      {"kind", 2, "0 GEMM pass, 1 GRAM, 2 SPMM, 3 ELTW"},
      {"relu", 1, "negative results become +0"},
      {"with_c", 1, "GEMM/SPMM: accumulate C (slot c) first"},
      {"cont", 1, "GEMM: a continuation pass (C is the partial result, alpha taken as 1)"},
      {"has_b", 1, "ELTW: the second operand is present"},
      {"pipe_gram", 1, "GEMM/SPMM: the next launch is the GRAM of the result with itself (flag pipe_gram)"},
      {"pipe_gram_x", 1, "SPMM: the next launch is the GRAM of its dense operand X with the result (flag pipe_gram_x)"},
      {"tail", 1, "GRAM: the launch before computed its products (fused); fold and write them"},
      {"alpha", 32, "fp32 alpha"},
      {"beta", 32, "fp32 beta"},
      {"scale", 32, "GEMM: RF_LOAD scale (register-file values are scale * B)"},
      {"k0", CW, "GEMM: first inner index of the pass"},
      {"k", CW, "GEMM: inner size of the pass"}};
  // Each operand slot: word base, shape, storage order.
  const std::pair<const char*, const char*> slots[] = {
      {"z", "result"},
      {"a", "GEMM streamed operand, GRAM/ELTW first operand, SPMM CSR row pointers"},
      {"b", "GEMM register-file operand, GRAM/ELTW second operand, SPMM dense operand"},
      {"c", "accumulated operand C"}};
  for (const auto& [slot, what] : slots) {
    const std::string s = slot, w = what;
    f.push_back({s + "_base", WA, w + ": word address of the region (byte base / 4)"});
    f.push_back({s + "_rows", CW, w + ": rows"});
    f.push_back({s + "_cols", CW, w + ": columns"});
    f.push_back({s + "_cm", 1, w + ": stored column by column"});
  }
  f.push_back({"csr_col_base", WA, "SPMM: word address of the column indices"});
  f.push_back({"csr_val_base", WA, "SPMM: word address of the values"});
  f.push_back({"csr_nnz", CW, "SPMM: stored entries"});
  return f;
}

void add_stream_engine(Design& design, const std::string& module, const StreamEngineShape& s) {
  using namespace engine;
  const EngineDims d = engine_dims(s);
  const int WA = d.WA, CW = d.CW, S = d.S, L = d.L, RFR = d.RFR, NB = d.NB, ACC = d.ACC, Q = d.Q, V = d.V,
            GW = d.GW;
  SvModule m(module,
             "Stream engine of the top: runs one launch (GEMM pass, GRAM, SPMM, ELTW) in the\n"
             "accumulation order of docs/commands.md. The walker runs the loop nest and issues\n"
             "operand reads ahead through two load units (ports A and B), one micro-op per step\n"
             "into a queue; the executor pops micro-ops in order, takes their words (at most one\n"
             "per port) from the units' in-order responses and issues one step per cycle into its FMA lanes (a GEMM/Gram step updates\n"
             "adjacent columns, one per lane), holding a step back only while an accumulator it\n"
             "touches is still in the FMA pipe. Operand words for the next row group (Gram, GEMM's C)\n"
             "and the previous row group's results (GEMM, SPMM) ride on the FMA steps through\n"
             "read and write cursors. SPMM's row pointers come on a sequential stream;\n"
             "an entry fetcher reads a group of 4 rows' column indices and values with the rows\n"
             "interleaved, and a second FMA scales the values by beta on their way in. Results go\n"
             "to the store unit. docs/top.md, \"Stream engine\".");
  const nlohmann::json params = {{"addr_bits", s.addr_bits}, {"fma_stages", S}, {"gram_lanes", L},
                                 {"rf_rows", RFR},           {"queue", Q},      {"block_cols", NB},
                                 {"group_rows", kEngineGroupRows}, {"accumulators", ACC}, {"fma_lanes", V},
                                 {"gather_words", GW}};
  m.record_config(params);
  engine_ports(m, d);
  engine_localparams(m);
  walker_signals(m, d);
  step_and_queue_signals(m, d);
  executor_signals(m, d);
  fma_instances(m, d);
  register_file(design, m, d);
  m.section("Functions",
            "\n// The value a result is stored as: a negative one (not -0, not NaN) is +0 with relu.\n"
            "function automatic logic [31:0] relu_word(input logic on, input logic [31:0] v);\n"
            "  relu_word = (on && v[31] && (v[30:0] != '0) && !((v[30:23] == 8'hff) && (v[22:0] != '0))) ? 32'd0 : v;\n"
            "endfunction\n" +
                gram_acc_function(d));
  if (d.RANGE) m.signal("fw_wait", 1, "SPMM, following: the entry's row of X is not yet in the gather buffer");
  else m.signal("fill_follow", 1, "SPMM: this engine fills its own gather buffer");
  if (!d.RANGE) {
    m.signal("row_lo", d.CW, "GEMM/SPMM/ELTW: the first result row walked (the engine walks them all)");
    m.signal("row_hi", d.CW, "GEMM/SPMM/ELTW: the result row past the last walked");
    m.section("Rows walked", "\nassign row_lo = '0;\nassign row_hi = z_rows;\nassign fill_follow = 1'b0;");
  }
  loop_bounds_section(m, d);
  gram_cursor(m, d);
  c_cursor(m, d);
  write_cursor(m, d);
  m.section("The step's micro-op and address", step_micro_op(d) + step_port_b(d) + step_address(d));
  top_parts::small_fifo(m, "lbf", "Port B request FIFO", 2, {{"word", d.WA, "step_word_b"}}, "push && em_rb",
                            "lbf_valid && lb_req_ready");
  m.section("Walker", walker_start(d) + walker_loops(d));
  micro_op_queue_section(m, d);
  m.section("Executor", executor_issue(d) + executor_state(d));
  gram_products(m, d);
  row_pairs(m, d);
  csr_stream(m, "rp", "SPMM row pointer", fmt::format("a_base + {}'(row_lo)", WA), fmt::format("row_hi - row_lo + {}'d1", CW), WA, CW);
  entry_fetcher(m, WA, CW, Q, d.QB);
  top_parts::finish_part(design, m, "stream_engine", params);
}

}  // namespace cello::gen
