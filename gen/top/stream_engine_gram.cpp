// Gram's read cursor, a part of the stream engine (docs/top.md, "Stream engine").
#include <fmt/format.h>

#include "gen/top/stream_engine_parts.hpp"

namespace cello::gen::engine {

// Gram's read cursor. It walks one row group's operand words, A[m, b0+i] of the
// block's rows, then B[m, j0+j] of its columns, each in its storage order, and
// names the areg/breg entry each word goes to. While the FMA steps of row group
// g run, it reads group g+1 into the other buffer, one word per step; words
// that find no step (a narrow block: at N = 1 a group has 8 words and 4 steps)
// go as steps of their own (F_GL) before g+1's first step, as do group 0's.
void gram_cursor(SvModule& m, const EngineDims& d) {
  const int CW = d.CW;
  m.signal("gc_on_q", 1, "Gram cursor: words of its group still to read");
  m.signal("gc_b_q", 1, "Gram cursor: reading B (else A)");
  m.signal("gc_buf_q", 1, "Gram cursor: the buffer its group fills");
  const std::string position =
      cursor_position(m, "gc", "Gram cursor", "a_rows", 3, CW, "column in the block (A: i, B: j)");
  m.signal("gc_jlast", 3, "Gram cursor: last column of the block");
  m.signal("gc_jo", 1, "Gram cursor: column-major operand (row fastest)");
  m.signal("gc_last2d", 1, "Gram cursor: its operand's last word");
  m.signal("gc_end", 1, "Gram cursor: its group's last word");
  m.signal("gc_take", 1, "Gram cursor: its word enters the queue this cycle");
  m.signal("gc_next", 1, "Gram: the next group's words are all queued once this step is");
  m.signal("gc_dst", 7, "Gram cursor: the word's register {breg, buffer, row, column}");
  m.signal("gc_start", 1, "Gram cursor: start on a group");
  m.signal("gc_start_i0", CW, "Gram cursor: that group's first row");
  m.signal("gc_start_buf", 1, "Gram cursor: its buffer");
  m.signal("gc_start_on", 1, "Gram cursor: the group exists");
  m.section("Gram read cursor", "\n" + position + fmt::format(R"(assign gc_jlast  = gc_b_q ? bj_last : bi_last;
assign gc_jo     = gc_b_q ? b_cm : a_cm;
assign gc_last2d = (gc_r_q == gc_rlast) && (gc_j_q == gc_jlast);
assign gc_end    = gc_b_q && gc_last2d;
assign gc_take   = push && (ph_q == F_GL || (ph_q == F_PM && gc_on_q));
assign gc_next   = !gc_on_q || (gc_take && gc_end);
assign gc_dst    = {{gc_b_q, gc_buf_q, gc_r_q, gc_j_q}};
// It starts on group 0 when a block's lanes are zeroed, and on the group after
// next-to-run once the next group's words are all queued: at the end of F_GL,
// or at the last step of a group when the next one's words rode on it.
always_comb begin
  gc_start     = 1'b0;
  gc_start_i0  = i0_q + {CW}'d4;
  gc_start_buf = !gb_q;
  gc_start_on  = (rem_rows > {CW}'d4);
  if (ph_q == F_GZ && adv && last2d && t_q == {CW}'d{LM1}) begin
    gc_start = 1'b1; gc_start_i0 = '0; gc_start_buf = 1'b0; gc_start_on = 1'b1;
  end
  if (ph_q == F_GL && gc_take && gc_end) gc_start = 1'b1;
  if (ph_q == F_PM && adv && last2d && t_q[1:0] == gr_last && rem_rows > {CW}'d4 && gc_next) begin
    gc_start = 1'b1; gc_start_i0 = i0_q + {CW}'d8; gc_start_buf = gb_q; gc_start_on = (rem_rows > {CW}'d8);
  end
end
always_ff @(posedge clk) begin
  if (!rst_n) gc_on_q <= 1'b0;
  else if (gc_start) begin
    gc_on_q  <= gc_start_on;
    gc_b_q   <= 1'b0;
    gc_r_q   <= '0;
    gc_j_q   <= '0;
    gc_i0_q  <= gc_start_i0;
    gc_buf_q <= gc_start_buf;
  end else if (gc_take) begin
    if (gc_last2d) begin
      gc_r_q <= '0;
      gc_j_q <= '0;
      gc_b_q <= 1'b1;
      if (gc_b_q) gc_on_q <= 1'b0;
    end else {STEP}
  end
end)",
                                                 fmt::arg("CW", CW), fmt::arg("LM1", d.L - 1),
                                                 fmt::arg("STEP", cursor_step("gc", "gc_jo", "gc_jlast", 3))));
}

}  // namespace cello::gen::engine
