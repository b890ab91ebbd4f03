// The Gram product unit of a split MAC array, a part of the stream engine
// (docs/top.md, "Pipelined GRAM").
#include <fmt/format.h>

#include "gen/top/stream_engine_parts.hpp"

namespace cello::gen::engine {

namespace {

// The product unit's signals: the walker's mark, its queue fields, the unit's
// loop and its FMA pipe.
void product_unit_signals(SvModule& m, const EngineDims& d) {
  const int XB = d.XB, V = d.V, S = d.S, LB = d.LB;
  m.signal("pf_unit", 1, "fused: the product unit takes each finished row group (Z^T Z, or X^T Z with X's rows from the gather buffer)");
  m.signal("xz_buf", 1, "X^T Z: X is in the gather buffer, and its row of Z's columns in one line");
  m.signal("gs_pend_q", 1, "a row group has ended: mark the next micro-op pushed");
  m.signal("gs_h_q", 1, "that group's accumulator half");
  m.signal("gs_rl_q", 2, "that group's last row");
  m.signal("em_gs", 1, "the micro-op is the first after a row group (hand the group to the product unit)");
  m.signal("em_gg", 3, "... that group's {half, last row}");
  m.array("q_gs", 1, d.Q, "queue: first micro-op after a row group");
  m.array("q_gg", 3, d.Q, "queue: that group's {half, last row}");
  m.signal("h_gs", 1, "head: first micro-op after a row group");
  m.signal("h_gg", 3, "head: that group's {half, last row}");
  m.signal("pu_busy_q", 1, "product unit: a row group's products still to issue");
  m.signal("pu_h_q", 1, "product unit: the group's accumulator half");
  m.signal("pu_rl_q", 2, "product unit: the group's last row");
  m.signal("pu_t_q", 2, "product unit: row t of the group");
  m.signal("pu_i_q", 3, "product unit: Gram row i (the column of Z broadcast)");
  m.signal("pu_j_q", 4, "product unit: first Gram column j of the step");
  m.signal("pu_ln_q", LB, "product unit: Gram lane of the row (the launch's row mod L)");
  m.signal("pu_jl", 3, "product unit: last column of Z");
  m.signal("pu_jend", 1, "product unit: the step is its (t, i)'s last");
  m.signal("pu_last", 1, "product unit: the step is the group's last");
  m.signal("pu_x", XB, "product unit: Gram's partial sum p[lane][i][j]");
  m.signal("pu_y", XB, "product unit: Z[t, j] (the group's accumulators)");
  m.signal("pu_p", XB, "product unit: Z[t, i]");
  m.signal("pu_m", V, "product unit: its lanes (lane v: column j + v)");
  m.signal("pu_ok", 1, "product unit: the accumulators it reads have left the FMA pipes");
  m.signal("pu_fire", 1, "product unit: issues a step this cycle");
  m.signal("pu_free", 1, "product unit: has issued its group's products by the end of this cycle");
  m.array("pa_q", 32, V, "product lanes: operand a");
  m.array("pb_q", 32, V, "product lanes: operand b");
  m.array("pc_q", 32, V, "product lanes: operand c");
  m.array("pu_y_out", 32, V, "product lanes: results");
  m.signal("ptv_q", S + 1, "product pipe: an operation at each level (bit S: result on pu_y_out)");
  m.array("pidx_q", XB, S + 1, "product pipe: its partial sum (lane v writes index | v)");
  m.array("pm_q", V, S + 1, "product pipe: its lanes");
}


// X^T Z on the product unit (pipe_gram_x, CG's P^T S after S = A P): X's
// rows are the SPMM's dense operand, staged in the gather buffer. The unit
// reads its group's rows' lines in order into four row registers (row t in
// register t), the first in the cycle the group is handed over (unless that
// micro-op is itself a gather step), the others in the cycles after: those
// are the next group's first micro-ops, its zeroing or C steps, which leave
// the buffer's read port free. A read in a cycle whose oldest micro-op is a
// gather step holds that step back. The walker makes sure the rows are
// there: at a group's last step, while the fill cursor has not passed the
// group's last row, it issues fill steps of its own (F_XF) before the
// micro-op that hands the group over.
void x_rows(SvModule& m, const EngineDims& d) {
  const int CW = d.CW, V = d.V, VL = d.VL, GWL = d.GWL;
  m.signal("xz_catch", 1, "X^T Z: at a group's last step the fill has not passed the group's rows");
  m.signal("xf_up_q", 1, "F_XF brings X's rows up to xf_upto_q into the buffer, then goes on to xf_ret_q");
  m.signal("xf_upto_q", CW, "... the last row needed");
  m.signal("xf_ret_q", 5, "... the phase after");
  m.signal("xf_up_done", 1, "... the fill has passed that row");
  m.signal("pu_i0_q", CW, "product unit: its group's first row");
  m.signal("pu_ni0_q", CW, "product unit: the next group's first row");
  m.signal("pu_xv_q", 4, "product unit: row register t holds row t's line");
  m.signal("pu_xg_q", 1, "product unit: read a line last cycle");
  m.signal("pu_xgb_q", 2, "... into row register");
  m.signal("pu_rd_q", 2, "product unit: the next row whose line it reads");
  m.signal("pu_ron_q", 1, "product unit: rows of its group still to read");
  m.signal("pu_xrd_hand", 1, "product unit: reads the first row's line as its group is handed over");
  m.signal("pu_xrd_run", 1, "product unit: reads a later row's line (holding back a gather step at the head)");
  m.signal("pu_xrd", 1, "product unit: reads a line of the gather buffer this cycle");
  m.signal("pu_xrow", CW, "... of X's row");
  m.signal("pu_xline", d.XL, "... in line");
  m.array("pu_xr_q", 32 * V, 4, "product unit: the four row registers (lines of the gather buffer)");
  m.signal("pu_xw", 32, "product unit: X[i0 + t, i] for the step");
  if (V > 1) m.signal("pu_xlane", VL, "product unit: the lane of X[i0 + t, i] in row t's line");
  // Row m's first word is m << slg: its line m << slg >> VL, and X[m, i] its
  // lane (m << slg) mod V + i (the row lies in one line).
  const std::string lane =
      V > 1 ? fmt::format("assign pu_xlane = {0}'({1}'(pu_i0_q + {1}'(pu_t_q)) << slg_q) + {0}'(pu_i_q);\n"
                          "assign pu_xw    = pu_xr_q[pu_t_q][32*pu_xlane +: 32];",
                          VL, CW)
            : std::string("assign pu_xw    = pu_xr_q[pu_t_q];");
  m.section("Gram products: X's rows from the gather buffer", fmt::format(R"(
assign xz_catch   = pf_unit && fzx_q && xc_on_q && (xc_t_q <= i0_q + {CW}'(gr_last));
assign xf_up_done = !xc_on_q || (xc_t_q > xf_upto_q);
always_ff @(posedge clk) begin
  if (!rst_n || ph_q == F_IDLE) xf_up_q <= 1'b0;
  else if (rg_end && xz_catch) begin
    xf_up_q   <= 1'b1;
    xf_upto_q <= i0_q + {CW}'(gr_last);
    xf_ret_q  <= rows_next ? ph_group : F_W;
  end else if (ph_q == F_XF && xf_up_done) xf_up_q <= 1'b0;
end
// (The hand-over read needs no free port: its micro-op is not a gather step.
// The previous group's products are all issued by then, so no register is
// still in use.)
assign pu_xrd_hand = fire && h_gs && fzx_q && (h_act != U_XG);
assign pu_xrd_run  = pu_busy_q && fzx_q && pu_ron_q;
assign pu_xrd   = pu_xrd_hand || pu_xrd_run;
assign pu_xrow  = pu_xrd_hand ? pu_ni0_q : pu_i0_q + {CW}'(pu_rd_q);
assign pu_xline = {XL}'({GWL}'(pu_xrow << slg_q) >> {VL});
{LANE}
always_ff @(posedge clk) begin
  if (!rst_n) begin
    pu_xv_q  <= '0;
    pu_xg_q  <= 1'b0;
    pu_ron_q <= 1'b0;
  end else begin
    if (ph_q == F_IDLE) pu_ni0_q <= '0;
    pu_xg_q  <= pu_xrd;
    pu_xgb_q <= pu_xrd_hand ? 2'd0 : pu_rd_q;
    if (pu_xg_q) begin pu_xr_q[pu_xgb_q] <= xb_rdata; pu_xv_q[pu_xgb_q] <= 1'b1; end
    if (pu_xrd_run) begin
      pu_rd_q <= pu_rd_q + 2'd1;
      if (pu_rd_q == pu_rl_q) pu_ron_q <= 1'b0;
    end
    if (fire && h_gs) begin
      pu_xv_q  <= '0;
      pu_i0_q  <= pu_ni0_q;
      pu_ni0_q <= pu_ni0_q + {CW}'d4;
      // Row 0 is read now unless the micro-op is a gather step.
      pu_rd_q  <= pu_xrd_hand ? 2'd1 : 2'd0;
      pu_ron_q <= !pu_xrd_hand || (h_gg[1:0] != 2'd0);
    end
  end
end)",
                                                                           fmt::arg("CW", CW), fmt::arg("GWL", GWL),
                                                                           fmt::arg("XL", d.XL), fmt::arg("VL", VL),
                                                                           fmt::arg("LANE", lane)));
}

// The product lanes' operands: a Gram product's, or with row pairs a MAC
// step's odd row (stream_engine_pairs.cpp): the odd row's A word from areg
// times the register file's row, added to the odd row's accumulator (U_MACC:
// its C from breg, a zero or subnormal taken as +0).
std::string product_operands(const EngineDims& d) {
  const auto gram = [&](const std::string& in) {
    return fmt::format("\n{0}pa_q[v] <= fzx_q ? pu_xw : relu_word(relu, acc_q[pu_p]);"
                       "\n{0}pb_q[v] <= relu_word(relu, acc_q[pu_y | {1}'(v)]);"
                       "\n{0}pc_q[v] <= acc_q[pu_x | {1}'(v)];",
                       in, d.XB);
  };
  if (!d.PAIRS) return gram("    ");
  return fmt::format(R"(
    if (pr_fire) begin
      pa_q[v] <= areg_q[{{h_x[6:4], 1'b1, h_p[6:4]}}];
      pb_q[v] <= rf_word[h_p[3:0] | 4'(v)];
      pc_q[v] <= (h_act != U_MACC) ? acc_fx2[v]
               : (breg_q[h_x[5:0] | 6'd{V} | 6'(v)][30:23] == 8'h00) ? 32'h00000000 : breg_q[h_x[5:0] | 6'd{V} | 6'(v)];
    end else begin{GRAM}
    end)",
                     fmt::arg("V", d.V), fmt::arg("GRAM", gram("      ")));
}

}  // namespace

// A fused Z^T Z (pipe_gram) multiplies each finished row group of the
// producer's result into Gram's lanes. Without a split array the walker issues
// those products as F_PF steps between the producer's row groups, on the
// producer's lanes. With one (2 V PEs), this unit runs them on V lanes of its
// own while the producer's next row group runs:
// - the walker marks the first micro-op it pushes after a row group's last
//   step (gs, with the group's accumulator half and last row);
// - when the executor issues that micro-op, every step of the group has
//   issued: the unit takes the group and multiplies its rows, row t, column i
//   and V columns j per step, acc[gram lane][i][j] += Z[t, i] * Z[t, j],
//   each step waiting until the accumulators it reads have left the FMA pipe;
// - a marked micro-op also waits until the unit has issued the products of
//   the group before (the group after next reuses that group's half).
// Each Gram element still takes the rows in order, row m in lane m mod L, so
// the sums are the executor's bit for bit. Z^T X (pipe_gram_x) reads X on
// port A in order with the producer's words and stays on the walker's F_PF.
void gram_products(SvModule& m, const EngineDims& d) {
  const int XB = d.XB, V = d.V, S = d.S, LB = d.LB, L = d.L;
  m.signal("pf_walk", 1, "fused: the walker issues the products as F_PF steps (no split array, or X^T Z)");
  if (!d.SPLIT) {
    m.section("Gram products", "\n// No split array: a fused launch's products are the walker's F_PF steps.\n"
                               "assign pf_walk   = fz_q;\nassign gram_fire = 1'b0;");
    return;
  }
  product_unit_signals(m, d);
  fma_lanes(m, d, "pfma", "pa_q", "pb_q", "pc_q", "pu_y_out");
  const std::string mv = V > 1 ? "pu_m[v]" : "pu_m";
  const std::string next_lane = L > 1 ? fmt::format("(pu_ln_q == {0}'d{1}) ? '0 : pu_ln_q + {0}'d1", LB, L - 1)
                                      : std::string("'0");
  m.section("Gram products", fmt::format(R"(
assign xz_buf  = sbuf_q && ((slg_q <= 3'd{VL}) || (z_cols <= {CW}'d{V}));
assign pf_unit = fz_q && (!fzx_q || xz_buf);
assign pf_walk = fz_q && !pf_unit;
// The walker marks the first micro-op after a row group's last step.
always_ff @(posedge clk) begin
  if (!rst_n || ph_q == F_IDLE) gs_pend_q <= 1'b0;
  else if (rg_end && pf_unit) begin gs_pend_q <= 1'b1; gs_h_q <= ah_q; gs_rl_q <= gr_last; end
  else if (push && em_gs) gs_pend_q <= 1'b0;
end
// (X^T Z: not on the fill's own steps that bring the group's rows of X in.)
assign em_gs = gs_pend_q && !xf_up_q;
assign em_gg = {{gs_h_q, gs_rl_q}};
always_ff @(posedge clk)
  if (push) begin q_gs[q_wr_q] <= em_gs; q_gg[q_wr_q] <= em_gg; end
assign h_gs = q_gs[q_rd_q];
assign h_gg = q_gg[q_rd_q];
// The step: p[lane][i][j..j+V-1] += Z[t, i] * Z[t, j..j+V-1], as stored (relu).
assign pu_jl   = 3'(z_cols - {CW}'d1);
assign pu_jend = ({{1'b0, pu_j_q}} + 5'd{V} > {{2'b00, pu_jl}});
assign pu_last = pu_jend && (pu_i_q == pu_jl) && (pu_t_q == pu_rl_q);
assign pu_x    = {PX};
assign pu_y    = {XB}'({{pu_h_q, pu_t_q, pu_j_q}});
assign pu_p    = {XB}'({{pu_h_q, pu_t_q, 1'b0, pu_i_q}});
always_comb begin
  pu_ok = !pend_q[pu_p] && (!fzx_q || pu_xv_q[pu_t_q]);
  for (int v = 0; v < {V}; v++) begin
    {MV} = ({{1'b0, pu_j_q}} + 5'(v) <= {{2'b00, pu_jl}});
    if ({MV} && (pend_q[pu_y | {XB}'(v)] || pend_q[pu_x | {XB}'(v)])) pu_ok = 1'b0;
  end
end
assign pu_fire = pu_busy_q && pu_ok;
assign pu_free = !pu_busy_q || (pu_fire && pu_last);
assign gram_fire = pu_fire;
always_ff @(posedge clk) begin
  if (!rst_n) begin
    pu_busy_q <= 1'b0;
    ptv_q     <= '0;
  end else begin
    if (ph_q == F_IDLE) pu_ln_q <= '0;
    if (pu_fire) begin
      pu_j_q <= pu_j_q + 4'd{V};
      if (pu_jend) begin
        pu_j_q <= '0;
        pu_i_q <= pu_i_q + 3'd1;
        if (pu_i_q == pu_jl) begin
          pu_i_q  <= '0;
          pu_t_q  <= pu_t_q + 2'd1;
          pu_ln_q <= {NEXT_LANE};
          if (pu_t_q == pu_rl_q) pu_busy_q <= 1'b0;
        end
      end
    end
    // The executor issues the micro-op after a group's last step: take the group.
    if (fire && h_gs) begin
      pu_busy_q <= 1'b1;
      pu_h_q    <= h_gg[2];
      pu_rl_q   <= h_gg[1:0];
      pu_t_q    <= '0;
      pu_i_q    <= '0;
      pu_j_q    <= '0;
    end
    ptv_q <= {{ptv_q[{S1}:0], pu_fire{PRF}}};
  end
end
always_ff @(posedge clk) begin
  pidx_q[0] <= {PIDX};
  pm_q[0]   <= {PM0};
  for (int s = 1; s <= {S}; s++) begin
    pidx_q[s] <= pidx_q[s-1];
    pm_q[s]   <= pm_q[s-1];
  end
  for (int v = 0; v < {V}; v++) begin{OPERANDS}
  end
end)",
                                         fmt::arg("CW", d.CW), fmt::arg("V", V), fmt::arg("VL", d.VL), fmt::arg("XB", XB), fmt::arg("S", S),
                                         fmt::arg("S1", S - 1), fmt::arg("MV", mv), fmt::arg("NEXT_LANE", next_lane),
                                         fmt::arg("PX", gram_acc(d, "pu_ln_q", "pu_i_q", "pu_j_q[2:0]")),
                                         fmt::arg("PRF", d.PAIRS ? " || pr_fire" : ""),
                                         fmt::arg("PIDX", d.PAIRS ? fmt::format("pr_fire ? h_x | {}'({}) : pu_x", XB, V) : std::string("pu_x")),
                                         fmt::arg("PM0", d.PAIRS ? "pr_fire ? h_m : pu_m" : "pu_m"),
                                         fmt::arg("OPERANDS", product_operands(d))));
  x_rows(m, d);
}

// The product lanes' results, written back S + 1 cycles after issue into Gram's
// partial sums (words the producer's steps never touch in a fused launch).
std::string gram_products_writeback(const EngineDims& d) {
  if (!d.SPLIT) return "";
  return fmt::format(R"(
    for (int v = 0; v < {V}; v++)
      if (ptv_q[{S}] && {PMV}) begin
        acc_q[pidx_q[{S}] | {XB}'(v)]  <= pu_y_out[v];
        pend_q[pidx_q[{S}] | {XB}'(v)] <= 1'b0;
      end
    for (int v = 0; v < {V}; v++)
      if (pu_fire && {MV}) pend_q[pu_x | {XB}'(v)] <= 1'b1;{PR})",
                     fmt::arg("V", d.V), fmt::arg("S", d.S), fmt::arg("XB", d.XB),
                     fmt::arg("PMV", d.V > 1 ? fmt::format("pm_q[{}][v]", d.S) : fmt::format("pm_q[{}]", d.S)),
                     fmt::arg("MV", d.V > 1 ? "pu_m[v]" : "pu_m"),
                     fmt::arg("PR", d.PAIRS ? fmt::format("\n    for (int v = 0; v < {0}; v++)\n      if (pr_fire && {1}) pend_q[h_x | {2}'({0}) | {2}'(v)] <= 1'b1;",
                                                          d.V, d.V > 1 ? "h_m[v]" : "h_m", d.XB)
                                          : std::string()));
}

}  // namespace cello::gen::engine
