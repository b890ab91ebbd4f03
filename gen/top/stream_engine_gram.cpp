// Gram's read cursors, a part of the stream engine (docs/top.md, "Stream engine").
#include <fmt/format.h>

#include "gen/top/stream_engine_parts.hpp"

namespace cello::gen::engine {

namespace {

// One of Gram's two read cursors: `c` walks operand `op` ("a" or "b") of one row
// group, its words op[m, first + i] for the block's columns i <= jlast in the
// operand's storage order, and names the register each word goes to.
std::string gram_operand_cursor(SvModule& m, const std::string& c, const std::string& op, const std::string& jlast,
                                const EngineDims& d) {
  const std::string who = "Gram " + op + " cursor";
  m.signal(c + "_on_q", 1, who + ": words of its group still to read");
  const std::string position = cursor_position(m, c, who, "a_rows", 3, d.CW, "column in the block");
  m.signal(c + "_last2d", 1, who + ": its group's last word");
  m.signal(c + "_take", 1, who + ": its word enters the queue this cycle");
  m.signal(c + "_done", 1, who + ": its group's words are all queued once this cycle ends");
  return position + fmt::format(R"(assign {c}_last2d = ({c}_r_q == {c}_rlast) && ({c}_j_q == {jl});
assign {c}_take   = push && (ph_q == F_GL || ph_q == F_PM) && {c}_on_q;
assign {c}_done   = !{c}_on_q || ({c}_take && {c}_last2d);
always_ff @(posedge clk) begin
  if (!rst_n) {c}_on_q <= 1'b0;
  else if (gc_start) begin
    {c}_on_q  <= gc_start_on{ON};
    {c}_r_q   <= '0;
    {c}_j_q   <= '0;
    {c}_i0_q  <= gc_start_i0;
  end else if ({c}_take) begin
    if ({c}_last2d) {c}_on_q <= 1'b0;
    else {STEP}
  end
end
)",
                                fmt::arg("c", c), fmt::arg("jl", jlast), fmt::arg("ON", op == "b" ? " && !gsame" : ""),
                                fmt::arg("STEP", cursor_step(c, op + "_cm", jlast, 3)));
}

}  // namespace

// Gram's read cursors. While the FMA steps of row group g run, they read group
// g+1 into the other areg/breg buffer: the A cursor A[m, b0+i] of the block's
// rows on port A, the B cursor B[m, j0+j] of its columns on port B, each in its
// storage order, one word of each per step. Words that find no step (a narrow
// block: at N = 2 a group has 8 words of each and 4 steps) go as steps of
// their own (F_GL) before g+1's first step, as do group 0's. When A and
// B are one operand and the block is on the diagonal (b0 = j0), the B cursor
// stays off and each A word goes to both buffers: DRAM sees the words once.
void gram_cursor(SvModule& m, const EngineDims& d) {
  const int CW = d.CW;
  m.signal("gc_buf_q", 1, "Gram cursors: the buffer their group fills");
  m.signal("gsame", 1, "Gram: A and B are one operand and the block is on the diagonal");
  m.signal("gc_next", 1, "Gram: the next group's words are all queued once this step is");
  m.signal("gca_dst", 7, "Gram A cursor: the word's register {also breg, buffer, row, column}");
  m.signal("gcb_dst", 6, "Gram B cursor: the word's breg entry {buffer, row, column}");
  m.signal("gc_start", 1, "Gram cursors: start on a group");
  m.signal("gc_start_i0", CW, "Gram cursors: that group's first row");
  m.signal("gc_start_buf", 1, "Gram cursors: its buffer");
  m.signal("gc_start_on", 1, "Gram cursors: the group exists");
  const std::string cursors =
      gram_operand_cursor(m, "gca", "a", "bi_last", d) + gram_operand_cursor(m, "gcb", "b", "bj_last", d);
  m.section("Gram read cursors", "\n" + cursors + fmt::format(R"(assign gsame   = (a_base == b_base) && (a_cm == b_cm) && (a_cols == b_cols) && (b0_q == j0_q);
assign gc_next = gca_done && gcb_done;
assign gca_dst = {{gsame, gc_buf_q, gca_r_q, gca_j_q}};
assign gcb_dst = {{gc_buf_q, gcb_r_q, gcb_j_q}};
// They start on group 0 when a block's lanes are zeroed, and on the group after
// next-to-run once the next group's words are all queued: at the end of F_GL,
// or at the last step of a group when the next one's words rode on it.
always_comb begin
  gc_start     = 1'b0;
  gc_start_i0  = i0_q + {CW}'d4;
  gc_start_buf = !gb_q;
  gc_start_on  = (rem_rows > {CW}'d4);
  if (ph_q == F_GZ && adv && last2d && t_q == {CW}'d{LM1} && kind == KIND_GRAM) begin
    gc_start = 1'b1; gc_start_i0 = '0; gc_start_buf = 1'b0; gc_start_on = 1'b1;
  end
  if (ph_q == F_GL && push && gc_next) gc_start = 1'b1;
  if (ph_q == F_PM && adv && last2d && t_q[1:0] == gr_last && rem_rows > {CW}'d4 && gc_next) begin
    gc_start = 1'b1; gc_start_i0 = i0_q + {CW}'d8; gc_start_buf = gb_q; gc_start_on = (rem_rows > {CW}'d8);
  end
end
always_ff @(posedge clk)
  if (gc_start) gc_buf_q <= gc_start_buf;)",
                                                                 fmt::arg("CW", CW), fmt::arg("LM1", d.L - 1)));
}

}  // namespace cello::gen::engine
