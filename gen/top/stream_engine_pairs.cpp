// GEMM row pairs on the split array, a part of the stream engine (docs/top.md,
// "Stream engine", "GEMM row pairs").
#include <fmt/format.h>

#include "gen/top/stream_engine_parts.hpp"

namespace cello::gen::engine {

namespace {

// The A cursor of row pairs: the next row group's block of A, A[2m + b, k0 + t]
// for its walker rows m, b = 0, 1 and t < k, into areg[{buffer, m, b, t}] (the
// buffer: the group's accumulator half), two adjacent words per step (one
// port A read of an aligned pair) in A's storage order: row-major, t and t + 1
// of row 2m + b (its position {b, t}); column-major, rows 2m and 2m + 1 of
// column t (its position {0, t}, m fastest). Like the
// C cursor with cc_fold, it rides on the MAC steps of the group before, and
// goes as steps of its own (F_CL) for a block's first group or what found no
// step; the group's MAC steps then read both rows' A words from areg.
void a_cursor(SvModule& m, const EngineDims& d) {
  const int CW = d.CW;
  m.signal("ac_val_q", 1, "A cursor: it holds a row group");
  m.signal("ac_on_q", 1, "A cursor: words of that group still to read");
  m.signal("ac_buf_q", 1, "A cursor: the group's areg buffer (its accumulator half)");
  const std::string position = cursor_position(m, "ac", "A cursor", "g_rows", 4, CW, "{b, t}: row 2m + b, column k0 + t");
  m.signal("ac_jend", 4, "A cursor: its last position in a walker row: {1, k - 2} row-major, {0, k - 1} column-major");
  m.signal("ac_end", 1, "A cursor: its group's last pair");
  m.signal("ac_ride", 1, "A cursor: this step carries its next pair (a MAC step, or a step of its own)");
  m.signal("ac_take", 1, "A cursor: its pair enters the queue this cycle");
  m.signal("ac_dst", 7, "A cursor: the pair's first areg entry {buffer, m, b, t}");
  m.signal("ac_here", 1, "A cursor: it holds the group at i0");
  m.signal("ac_ready", 1, "A cursor: its group's pairs are all queued once this cycle ends");
  m.signal("ac_move", 1, "A cursor: it moves on to the next group this cycle");
  m.section("GEMM row pairs: A cursor", "\n" + position + fmt::format(R"(assign ac_jend  = a_cm ? {{1'b0, 3'(k - {CW}'d1)}} : {{1'b1, 3'(k - {CW}'d2)}};
assign ac_end   = (ac_r_q == ac_rlast) && (ac_j_q == ac_jend);
assign ac_ride  = pr_q && ac_on_q && ((ph_q == F_MAC) || (ph_q == F_CL && ac_here));
assign ac_take  = push && ac_ride;
assign ac_dst   = {{ac_buf_q, ac_r_q, ac_j_q}};
assign ac_here  = ac_val_q && (ac_i0_q == i0_q);
assign ac_ready = ac_val_q && (!ac_on_q || (ac_take && ac_end));
// It takes the group at i0 in F_CL when it holds another (a block's first
// group), and moves on to the group after the one at i0 as that group starts
// (on leaving F_CL, or as the walker moves on to a group whose A and C words
// are all queued; else both cursors stay on it for F_CL).
assign ac_move  = (ph_q == F_CL && cl_all) || (grp_adv && ac_ready && (!with_c || cc_ready));
always_ff @(posedge clk) begin
  if (!rst_n || ph_q == F_IDLE) begin
    ac_val_q <= 1'b0;
    ac_on_q  <= 1'b0;
  end else if (pr_q && ph_q == F_CL && !ac_here) begin
    ac_val_q <= 1'b1;
    ac_on_q  <= 1'b1;
    ac_i0_q  <= i0_q;
    ac_buf_q <= ah_q;
    ac_r_q   <= '0;
    ac_j_q   <= '0;
  end else if (pr_q && ac_move) begin
    ac_val_q <= (rem_rows > cc_ahead);
    ac_on_q  <= (rem_rows > cc_ahead);
    ac_i0_q  <= i0_q + cc_ahead;
    ac_buf_q <= grp_adv ? ah_q : !ah_q;
    ac_r_q   <= '0;
    ac_j_q   <= '0;
  end else if (ac_take) begin
    if (ac_end) ac_on_q <= 1'b0;
    else if (a_cm) begin
      if (ac_r_q == ac_rlast) begin ac_r_q <= '0; ac_j_q <= ac_j_q + 4'd1; end
      else ac_r_q <= ac_r_q + 2'd1;
    end else if (ac_j_q == ac_jend) begin ac_j_q <= '0; ac_r_q <= ac_r_q + 2'd1; end
    else if (ac_j_q[2:0] + 3'd2 == 3'(k)) ac_j_q <= 4'd8;
    else ac_j_q <= ac_j_q + 4'd2;
  end
end)",
                                                                                         fmt::arg("CW", CW)));
}

}  // namespace

std::string pair_row(const EngineDims& d, const std::string& i0, const std::string& r, const std::string& j) {
  return fmt::format("({0}'({1} + {0}'({2})) << 1) + {0}'({3}[{4}])", d.CW, i0, r, j, d.VL);
}
std::string pair_col(const EngineDims& d, const std::string& j) {
  return fmt::format("j0_q + {}'({}[{}:0])", d.CW, j, d.VL - 1);
}
std::string pair_jlast(const EngineDims& d, const std::string& cm, const std::string& plain) {
  return with_pairs(d, fmt::format("({} ? {} : 4'd{})", cm, plain, 2 * d.V - 2), plain);
}
std::string pair_jstep(const EngineDims& d) { return with_pairs(d, "4'd2", "4'd1"); }

std::string a_ride_text(const EngineDims& d) {
  return fmt::format(R"(
  // Row pairs: the A cursor's pair A[2m + b, k0 + t], A[2m + b, k0 + t + 1] on
  // port A (its areg entry rides in the queue's ad field).
  if (ac_ride) begin
    em_rd = 1'b1;
    sel_base = a_base; sel_rows = a_rows; sel_cols = a_cols; sel_cm = a_cm;
    sel_r = ({0}'(ac_i0_q + {0}'(ac_r_q)) << 1) + {0}'(ac_j_q[3]);
    sel_c = k0 + {0}'(ac_j_q[2:0]);
  end)",
                     d.CW);
}

// A GEMM of V columns without a fused GRAM leaves the product unit's V lanes
// idle. With row pairs (pr_q), each MAC step updates two adjacent rows of the
// result: rows 2m and 2m + 1 of the launch are the walker's row m, their V
// columns its columns j and j + V of a 2V-wide block (accumulator and breg
// entries {row m, j} and {row m, j + V}). The engine's lanes take the even
// row and the product unit's lanes the odd one, each with its A word from
// areg (the A cursor above). The walker, its row groups and the cursors run on
// the walker's rows, and the C and write cursors move two adjacent words per
// step (an aligned pair: one granule when bases and strides are even): in
// row-major storage columns j and j + 1 of a result row, in column-major
// storage rows 2m and 2m + 1 of a column (walker entries j and j + V). Each
// element still takes its terms in the executor's order, so the results are
// bit for bit the same.
void row_pairs(SvModule& m, const EngineDims& d) {
  const int CW = d.CW, V = d.V;
  m.signal("g_rows", CW, "GEMM/SPMM: the walker's end row, row_hi (with row pairs, half of it)");
  m.signal("g_lo", CW, "GEMM/SPMM: the walker's first row, row_lo (with row pairs, half of it)");
  m.signal("g_lo0", CW, "GEMM/SPMM start: the walker's first row (as g_lo, with pr_ok for pr_q)");
  if (!d.PAIRS) {
    m.section("GEMM row pairs", "\n// No row pairs on this engine (no split array, or one-word granules).\n"
                                "assign g_rows    = row_hi;\nassign g_lo      = row_lo;\nassign g_lo0     = row_lo;\n"
                                "assign pair_fire = 1'b0;");
    return;
  }
  m.signal("pr_ok", 1, "GEMM start: the launch can run on row pairs");
  m.signal("pr_q", 1, "row pairs: each walker row is two rows of the result");
  m.signal("pr_fire", 1, "row pairs: a MAC step issues, its odd row on the product unit's lanes");
  m.signal("cl_all", 1, "F_CL: the C and A cursors have queued the words of the group at i0");
  m.signal("x_busy2", 1, "row pairs: an odd-row accumulator x|V|v of an active lane waits for a result not written back this cycle");
  m.array("fwd_x2", 1, V, "row pairs: lane v's odd-row accumulator x|V|v is written back this cycle (by the product lanes)");
  m.array("acc_fx2", 32, V, "row pairs: acc[x|V|v] as a step issued this cycle sees it (forwarded from the product lanes)");
  m.signal("w2_idx", d.XB, "row pairs: the accumulator of a write's second word");
  m.signal("w2_fwd", 1, "row pairs: that accumulator is written back this cycle");
  m.signal("w2_acc", 32, "row pairs: its value as the write sees it");
  m.signal("w2_free", 1, "row pairs: a write's second word is final");
  m.signal("h_ad", 7, "head: row pairs: the areg entry of its A pair");
  m.array("q_ad", 7, d.Q, "queue: row pairs: the areg entry of its A pair");
  const std::string mv = V > 1 ? "h_m[v]" : "h_m";
  const std::string pmu = V > 1 ? fmt::format("pm_q[{}][u]", d.S) : fmt::format("pm_q[{}]", d.S);
  const std::string tmu = V > 1 ? fmt::format("tm_q[{}][u]", d.S) : fmt::format("tm_q[{}]", d.S);
  a_cursor(m, d);
  m.section("GEMM row pairs", fmt::format(R"(
// A GEMM of V columns, an even number of rows and k <= 8 whose A, C and Z
// have even bases and strides (so that every pair lies in one granule; a
// row-major A pairs t and t + 1, so k and k0 are even too), and whose product
// unit is free (no fused GRAM).
assign pr_ok  = (kind == KIND_GEMM) && !fz_ok && (k != '0) && (k <= {CW}'d8) && (a_cm || (!k[0] && !k0[0])) &&
                (z_cols == {CW}'d{V}) && !z_rows[0] && !row_lo[0] && !row_hi[0] && (a_rows == z_rows) &&
                !a_base[0] && !(a_cm ? a_rows[0] : a_cols[0]) && !z_base[0] && !(z_cm ? z_rows[0] : z_cols[0]) &&
                (!with_c || (!c_base[0] && !(c_cm ? c_rows[0] : c_cols[0])));
assign g_rows = pr_q ? row_hi >> 1 : row_hi;
assign g_lo   = pr_q ? row_lo >> 1 : row_lo;
assign g_lo0  = pr_ok ? row_lo >> 1 : row_lo;
always_ff @(posedge clk) begin
  if (!rst_n) pr_q <= 1'b0;
  else if (ph_q == F_IDLE && start) pr_q <= pr_ok;
end
assign cl_all  = (!with_c || cl_done) && (!pr_q || (ac_here && ac_ready));
assign pr_fire = fire && pr_q && (h_act == U_MAC || h_act == U_MACC);
assign pair_fire = pr_fire;
always_ff @(posedge clk)
  if (push) q_ad[q_wr_q] <= ac_dst;
assign h_ad = q_ad[q_rd_q];
// The odd row's accumulators, forwarded from the product lanes' write-back as
// the even row's are from the engine's.
always_comb begin
  x_busy2 = 1'b0;
  for (int v = 0; v < {V}; v++) begin
    fwd_x2[v]  = 1'b0;
    acc_fx2[v] = acc_q[h_x | {XB}'({V}) | {XB}'(v)];
    for (int u = 0; u < {V}; u++)
      if (ptv_q[{S}] && {PMU} && ((pidx_q[{S}] | {XB}'(u)) == (h_x | {XB}'({V}) | {XB}'(v)))) begin
        fwd_x2[v]  = 1'b1;
        acc_fx2[v] = pu_y_out[u];
      end
    if ({MV} && pend_q[h_x | {XB}'({V}) | {XB}'(v)] && !fwd_x2[v]) x_busy2 = 1'b1;
  end
end
// A write's second word (the next column of its row; column-major, the odd
// row's word): its accumulator, written back by the engine's lanes or the
// product unit's.
assign w2_idx = ((h_act == U_W) ? h_x : h_y) | (z_cm ? {XB}'({V}) : {XB}'(1));
always_comb begin
  w2_fwd = 1'b0;
  w2_acc = acc_q[w2_idx];
  for (int u = 0; u < {V}; u++) begin
    if (wb_acc && {TMU} && ((tidx_q[{S}][{XB1}:0] | {XB}'(u)) == w2_idx)) begin w2_fwd = 1'b1; w2_acc = fma_y[u]; end
    if (ptv_q[{S}] && {PMU} && ((pidx_q[{S}] | {XB}'(u)) == w2_idx)) begin w2_fwd = 1'b1; w2_acc = pu_y_out[u]; end
  end
end
assign w2_free  = !pend_q[w2_idx] || (h_act != U_W && w2_fwd);
assign st_pair  = pr_q;
assign st_data2 = relu_word(relu, w2_acc);)",
                                          fmt::arg("CW", CW), fmt::arg("V", V), fmt::arg("XB", d.XB),
                                          fmt::arg("XB1", d.XB - 1), fmt::arg("S", d.S), fmt::arg("MV", mv),
                                          fmt::arg("PMU", pmu), fmt::arg("TMU", tmu)));
}

}  // namespace cello::gen::engine
