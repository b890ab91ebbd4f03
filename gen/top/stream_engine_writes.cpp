// GEMM's and SPMM's write cursor, a part of the stream engine (docs/top.md,
// "Stream engine").
#include <fmt/format.h>

#include "gen/top/stream_engine_parts.hpp"

namespace cello::gen::engine {

// The write cursor walks one row group's results, Z[i0+r, j0+j] of the column
// block, in Z's storage order, with their own address (wc_word), so a write can
// ride on any step. A GEMM or SPMM row group works in one half of the
// accumulators (ah_q) and hands its results to the cursor at its last step; the
// next group works in the other half, and each of its FMA steps (GEMM's MAC
// steps, SPMM's entry steps) carries one of the cursor's writes. Writes that
// find no step (a short inner loop, a group of few entries, the last group) go
// as steps of their own in F_W, before the group after next reuses their half.
void write_cursor(SvModule& m, const EngineDims& d) {
  const int CW = d.CW, WA = d.WA;
  m.signal("wc_on_q", 1, "write cursor: writes of its group still to issue");
  m.signal("wc_h_q", 1, "write cursor: its group's accumulator half");
  const std::string position = cursor_position(m, "wc", "write cursor", "g_rows", 4, CW);
  m.signal("wc_end", 1, "write cursor: its group's last write");
  m.signal("wc_take", 1, "write cursor: its write enters the queue this cycle");
  m.signal("wc_busy", 1, "write cursor: still holds writes after this cycle");
  m.signal("wc_start", 1, "write cursor: take the group at i0");
  m.signal("wc_major", CW, "write cursor: index along Z's outer rank");
  m.signal("wc_minor", CW, "write cursor: index along Z's inner rank");
  m.signal("wc_word", WA, "write cursor: the word address of its write");
  m.signal("rg_end", 1, "GEMM/SPMM: a row group's last step is taken");
  m.signal("rg_on", 1, "GEMM/SPMM: at that step the cursor takes the group and the next group starts");
  m.signal("wc_prev", 1, "GEMM/SPMM: in F_W the cursor has written the group before the one at i0");
  m.section("Write cursor", "\n" + position + fmt::format(R"(assign wc_end   = (wc_r_q == wc_rlast) && (wc_j_q == {JL});
assign wc_take  = push && (ph_q == F_W || ((ph_q == F_MAC || spmm_step) && wc_on_q));
assign wc_busy  = wc_on_q && !(wc_take && wc_end);
// Element [i0+r, j0+j] of Z, as the step address does it for the other operands.
assign wc_major = z_cm ? {COL} : {ROW};
assign wc_minor = z_cm ? {ROW} : {COL};
assign wc_word  = z_base + {WA}'(wc_major * (z_cm ? z_rows : z_cols) + wc_minor);
// A row group's last step: GEMM's last MAC step (its last C or zeroing step
// when k = 0); SPMM's empty-group tag, or the last step of its last entry.
always_comb begin
  rg_end = 1'b0;
  if (kind == KIND_GEMM)
    rg_end = adv && last2d && ((ph_q == F_MAC && t_q + {CW}'d1 == k) || ((ph_q == F_C || ph_q == F_CV || ph_q == F_Z0) && k == '0));
  else if (kind == KIND_SPMM)
    rg_end = (ph_q == F_SE && tg_valid && !tg_head[4] && tg_head[3]) ||
             (se_first && last2d && tg_head[2]) ||
             ((ph_q == F_SX || ph_q == F_SG) && adv && last2d && sl_q);
end
assign rg_on    = !wc_busy && (rem_rows > {CW}'d4);
// The next row group starts: at a group's last step (rg_on), or in F_W when the
// cursor has written the group before the one at i0 and there is a next group.
assign wc_prev  = (ph_q == F_W) && wc_take && wc_end && (wc_i0_q != i0_q);
assign rows_next = (rg_end && rg_on) || (wc_prev && (rem_rows > {CW}'d4));
// It takes the group at i0 at a row group's last step (rg_on), on entering F_W
// empty, and in F_W when it has written the group before the one at i0.
assign wc_start = (rg_end && rg_on) || (ph_q == F_W && !wc_on_q) || wc_prev;
always_ff @(posedge clk) begin
  if (!rst_n || ph_q == F_IDLE) wc_on_q <= 1'b0;
  else if (wc_start) begin
    wc_on_q  <= 1'b1;
    wc_h_q   <= ah_q;
    wc_i0_q  <= i0_q;
    wc_r_q   <= '0;
    wc_j_q   <= '0;
  end else if (wc_take) begin
    if (wc_end) wc_on_q <= 1'b0;
    else {STEP}
  end
end)",
                                            fmt::arg("CW", CW), fmt::arg("WA", WA),
                                            // Row pairs: the cursor's row m is the result's rows 2m and 2m + 1.
                                            fmt::arg("ROW", with_pairs(d, pair_row(d, "wc_i0_q", "wc_r_q", "wc_j_q"),
                                                                       fmt::format("wc_i0_q + {}'(wc_r_q)", CW))),
                                            fmt::arg("COL", with_pairs(d, pair_col(d, "wc_j_q"), fmt::format("j0_q + {}'(wc_j_q)", CW))),
                                            fmt::arg("JL", pair_jlast(d, "z_cm", "nb_last")),
                                            fmt::arg("STEP", cursor_step("wc", "z_cm", pair_jlast(d, "z_cm", "nb_last"), 4, pair_jstep(d)))));
}

}  // namespace cello::gen::engine
