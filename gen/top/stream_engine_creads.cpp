// GEMM's and SPMM's C cursor, a part of the stream engine (docs/top.md, "Stream engine").
#include <fmt/format.h>

#include "gen/top/stream_engine_parts.hpp"

namespace cello::gen::engine {

// The C cursor walks one GEMM or SPMM row group's C[i0+r, j0+j] of the column
// block, in C's storage order, into breg[r][j] (neither has another use for
// breg), on the engine's port B. While group g's MAC steps run (SPMM: its entry
// steps and the write cursor's own steps, whose port A word is the gather
// fill's, if any), it reads group g+1's C, one word on each step (GEMM: beside
// the step's A word on port A); what finds no step
// goes as steps of their own (F_CL) before g+1's F_CV, which takes the words
// into the accumulators V columns per step. breg needs one buffer: g's F_CV
// steps are all issued before g's MAC steps, which carry g+1's words. With
// cc_fold there are no F_CV steps: g's first MAC steps read breg, and the
// cursor moves on to g+1 as g starts, so that g's every MAC step carries one
// of g+1's words (cc_fold holds only where no word is written before the step
// that reads the old one; GEMM only). GEMMs without MAC steps (k = 0) keep C's
// one-word steps (F_C).
void c_cursor(SvModule& m, const EngineDims& d) {
  const int CW = d.CW;
  m.signal("cc_val_q", 1, "C cursor: it holds a row group");
  m.signal("cc_on_q", 1, "C cursor: words of that group still to read");
  const std::string position = cursor_position(m, "cc", "C cursor", "g_rows", 4, CW);
  m.signal("cc_end", 1, "C cursor: its group's last word");
  m.signal("cc_ride", 1, "C cursor: this step carries its next word (GEMM's MAC steps, SPMM's entry and write steps)");
  m.signal("cc_take", 1, "C cursor: its word enters the queue this cycle");
  m.signal("cc_dst", 6, "C cursor: the word's breg entry {row, column}");
  m.signal("cc_here", 1, "C cursor: it holds the group at i0");
  m.signal("cc_ready", 1, "C cursor: its group's words are all queued once this cycle ends");
  m.signal("cl_done", 1, "C cursor: F_CL has queued the words of the group at i0");
  m.signal("cc_move", 1, "C cursor: it moves on to the next group this cycle");
  m.signal("cc_ahead", CW, "C cursor: that group's first row, from i0");
  m.section("GEMM C cursor", "\n" + position + fmt::format(R"(assign cc_end   = (cc_r_q == cc_rlast) && (cc_j_q == {JL});
assign cc_ride  = cc_on_q && ((ph_q == F_MAC) ||
                             ((kind == KIND_SPMM) && (ph_q == F_SE || ph_q == F_SG || ph_q == F_SX || ph_q == F_W)));
assign cc_take  = push && (ph_q == F_CL || cc_ride);
assign cc_dst   = {{cc_r_q, cc_j_q}};
assign cc_here  = cc_val_q && (cc_i0_q == i0_q);
assign cc_ready = cc_val_q && (!cc_on_q || (cc_take && cc_end));
assign cl_done  = cc_here && cc_ready;
// The cursor moves on to the group after i0's (grp_adv: i0 moves on too, so
// it is the group after next).
assign cc_move  = (ph_q == F_CV && adv && last2d) || (cc_fold && ((ph_q == F_CL && {CLALL}) || (grp_adv && cc_ready{PRA})));
assign cc_ahead = grp_adv ? {CW}'d8 : {CW}'d4;
// It takes the group at i0 in F_CL when it holds another (a block's first
// group), and the next group at the last F_CV step of each group; with
// cc_fold, as the group at i0 starts its MAC steps: on leaving F_CL, or when
// the walker moves on to a group whose words are queued (the group after it).
always_ff @(posedge clk) begin
  if (!rst_n || ph_q == F_IDLE) begin
    cc_val_q <= 1'b0;
    cc_on_q  <= 1'b0;
  end else if (ph_q == F_CL && with_c && !cc_here) begin
    cc_val_q <= 1'b1;
    cc_on_q  <= 1'b1;
    cc_i0_q  <= i0_q;
    cc_r_q   <= '0;
    cc_j_q   <= '0;
  end else if (cc_move) begin
    cc_val_q <= (rem_rows > cc_ahead);
    cc_on_q  <= (rem_rows > cc_ahead);
    cc_i0_q  <= i0_q + cc_ahead;
    cc_r_q   <= '0;
    cc_j_q   <= '0;
  end else if (cc_take) begin
    if (cc_end) cc_on_q <= 1'b0;
    else {STEP}
  end
end)",
                                            fmt::arg("CW", CW), fmt::arg("JL", pair_jlast(d, "c_cm", "nb_last")),
                                            fmt::arg("CLALL", d.PAIRS ? "cl_all" : "cl_done"),
                                            // Row pairs: with the A cursor, or neither (F_CL takes both).
                                            fmt::arg("PRA", d.PAIRS ? " && (!pr_q || ac_ready)" : ""),
                                            fmt::arg("STEP", cursor_step("cc", "c_cm", pair_jlast(d, "c_cm", "nb_last"), 4, pair_jstep(d)))));
}

}  // namespace cello::gen::engine
