// GEMM row pairs on the split array, a part of the stream engine (docs/top.md,
// "Stream engine", "GEMM row pairs").
#include <fmt/format.h>

#include "gen/top/stream_engine_parts.hpp"

namespace cello::gen::engine {

// A GEMM of V columns without a fused GRAM leaves the product unit's V lanes
// idle. With row pairs (pr_q), each MAC step updates two adjacent rows of the
// result: rows 2m and 2m + 1 of the launch are the walker's row m, their V
// columns its columns j and j + V of a 2V-wide block (accumulator and breg
// entries {row m, j} and {row m, j + V}). The engine's lanes take the even
// row, with the first word of port A's pair, and the product unit's lanes the
// odd row, with the second. The walker, its row groups and both cursors run
// on the walker's rows unchanged; what changes is the address of a row (2m)
// and that every port A and port B word, and every write, is a pair: two
// adjacent words of a column-major operand, which lie in one granule when the
// region's base and row count are even. Each element still takes its terms in
// the executor's order, so the results are bit for bit the same.
void row_pairs(SvModule& m, const EngineDims& d) {
  const int CW = d.CW, V = d.V;
  m.signal("g_rows", CW, "GEMM/SPMM: rows the walker walks (with row pairs, half the result's)");
  if (!d.PAIRS) {
    m.section("GEMM row pairs", "\n// No row pairs on this engine (no split array, or one-word granules).\n"
                                "assign g_rows = z_rows;");
    return;
  }
  m.signal("pr_ok", 1, "GEMM start: the launch can run on row pairs");
  m.signal("pr_q", 1, "row pairs: each walker row is two rows of the result");
  m.signal("pr_fire", 1, "row pairs: a MAC step issues, its odd row on the product unit's lanes");
  m.signal("x_pend2", 1, "row pairs: an odd-row accumulator x|V|v of an active lane waits for a result");
  m.signal("x_busy2", 1, "... not written back this cycle");
  m.array("acc_fx2", 32, V, "row pairs: acc[x|V|v] as a step issued this cycle sees it (forwarded from the product lanes)");
  m.signal("st_acc2", 32, "row pairs: the odd row's accumulator stored beside st_acc");
  m.signal("y2_fwd", 1, "row pairs: a carried write's odd-row accumulator is written back this cycle");
  m.signal("acc_fy2", 32, "row pairs: that accumulator as the write sees it");
  m.signal("y2_free", 1, "row pairs: a carried write's odd-row accumulator is final");
  const std::string mv = V > 1 ? "h_m[v]" : "h_m";
  const std::string pmu = V > 1 ? fmt::format("pm_q[{}][u]", d.S) : fmt::format("pm_q[{}]", d.S);
  m.section("GEMM row pairs", fmt::format(R"(
// A GEMM of V columns whose A, C and Z are column-major with even bases and row
// counts (so that every pair lies in one granule), and whose product unit is
// free (no fused GRAM).
assign pr_ok  = (kind == KIND_GEMM) && !fz_ok && (k != '0) && (z_cols == {CW}'d{V}) && !z_rows[0] &&
                a_cm && z_cm && (a_rows == z_rows) && !a_base[0] && !z_base[0] &&
                (!with_c || (c_cm && !c_rows[0] && !c_base[0]));
assign g_rows = pr_q ? z_rows >> 1 : z_rows;
always_ff @(posedge clk) begin
  if (!rst_n) pr_q <= 1'b0;
  else if (ph_q == F_IDLE && start) pr_q <= pr_ok;
end
assign pr_fire = fire && pr_q && (h_act == U_MAC || h_act == U_MACC);
// The odd row's accumulators, forwarded from the product lanes' write-back as
// the even row's are from the engine's.
always_comb begin
  x_pend2 = 1'b0;
  x_busy2 = 1'b0;
  for (int v = 0; v < {V}; v++) begin
    acc_fx2[v] = acc_q[h_x | {XB}'({V}) | {XB}'(v)];
    for (int u = 0; u < {V}; u++)
      if (ptv_q[{S}] && {PMU} && ((pidx_q[{S}] | {XB}'(u)) == (h_x | {XB}'({V}) | {XB}'(v)))) acc_fx2[v] = pu_y_out[u];
    if ({MV} && pend_q[h_x | {XB}'({V}) | {XB}'(v)]) begin
      x_pend2 = 1'b1;
      if (!(ptv_q[{S}] && {PMV} && ((pidx_q[{S}] | {XB}'(v)) == (h_x | {XB}'({V}) | {XB}'(v))))) x_busy2 = 1'b1;
    end
  end
end
// A carried write's odd word acc[y|V], forwarded from the lane writing it back.
always_comb begin
  y2_fwd = 1'b0;
  acc_fy2 = acc_q[h_y | {XB}'({V})];
  for (int u = 0; u < {V}; u++)
    if (ptv_q[{S}] && {PMU} && ((pidx_q[{S}] | {XB}'(u)) == (h_y | {XB}'({V})))) begin
      y2_fwd = 1'b1;
      acc_fy2 = pu_y_out[u];
    end
end
assign y2_free = !h_st || !pend_q[h_y | {XB}'({V})] || y2_fwd;
assign st_acc2 = (h_act == U_W) ? acc_q[h_x | {XB}'({V})] : acc_fy2;
assign st_pair  = pr_q;
assign st_data2 = relu_word(relu, st_acc2);)",
                                          fmt::arg("CW", CW), fmt::arg("V", V), fmt::arg("XB", d.XB),
                                          fmt::arg("S", d.S), fmt::arg("MV", mv), fmt::arg("PMU", pmu),
                                          fmt::arg("PMV", V > 1 ? fmt::format("pm_q[{}][v]", d.S) : fmt::format("pm_q[{}]", d.S))));
}

}  // namespace cello::gen::engine
