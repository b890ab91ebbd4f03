#include "gen/mac_array/mac_array_gen.hpp"

#include <fmt/format.h>

#include <sstream>

#include "gen/regfile/regfile_gen.hpp"
#include "gen/sv_expr.hpp"
#include "gen/sv_module.hpp"

namespace cello::gen {

namespace {

void add_pe(Design& design, const MacArrayConfig& c) {
  SvModule m(c.pe_name(),
             "MAC-array processing element: one fp32 FMA (rtl/fp32_fma.sv) whose output feeds\n"
             "back as its own addend, so the pipeline's STAGES slots hold STAGES independent\n"
             "accumulations. Operand selection per operation:\n"
             "  ident  : y passes unchanged (a = -0, b = +0, so a*b + y == y bit for bit)\n"
             "  fold   : a = value that left the pipeline one step earlier, b = 1 (Gram fold)\n"
             "  c_zero : the accumulation starts from +0 instead of the fed-back y\n"
             "Every register advances only with `en` (the array's ring step).");
  m.record_config(c.to_json());
  m.input("clk", 1, "clock");
  m.input("en", 1, "ring step: every pipeline register advances");
  m.input("a_row", 32, "multiplicand shared by the PE row");
  m.input("b_shared", 32, "multiplier shared by the PE column (register file, Gram B row, or 1.0)");
  m.input("b_own", 32, "multiplier private to this PE (GEMM C element, SpMM gathered B element)");
  m.input("use_own", 1, "take b_own instead of b_shared");
  m.input("ident", 1, "identity step: the accumulation passes unchanged");
  if (c.gram) m.input("fold", 1, "fold step: a = previous ring output, b = b_shared (1.0)");
  m.input("c_zero", 1, "start a new accumulation from +0");
  m.output("y", 32, "ring output: the result of the operation issued STAGES steps ago");
  m.localparam("STAGES", std::to_string(c.fma_stages), "FMA pipeline depth = accumulation lanes");
  m.signal("a_eff", 32, "FMA multiplicand");
  m.signal("b_eff", 32, "FMA multiplier");
  m.signal("c_eff", 32, "FMA addend");
  std::string a_sel = "a_row";
  if (c.gram) {
    m.signal("prev_q", 32, "ring output one step ago (fold operand)");
    a_sel = "fold ? prev_q : a_row";
  }
  m.section("Operand selection", fmt::format(R"(
assign a_eff = ident ? 32'h80000000 : ({});
assign b_eff = ident ? 32'h00000000 : (use_own ? b_own : b_shared);
assign c_eff = c_zero ? 32'h00000000 : y;)",
                                             a_sel));
  if (c.gram)
    m.section("Fold operand: the value that left the ring at the previous step", R"(
always_ff @(posedge clk) begin
  if (en) prev_q <= y;
end)");
  design.primitives.insert("fp32_fma");
  m.instantiate("fp32_fma", "u_fma")
      .param("STAGES", "STAGES")
      .connect("clk", "clk")
      .connect("en", "en")
      .connect("a", "a_eff")
      .connect("b", "b_eff")
      .connect("c", "c_eff")
      .connect("y", "y");
  design.modules.push_back(std::move(m));
}

// Sizes and names shared by every section of one MAC array.
struct MacArrayShape {
  const MacArrayConfig& c;
  int R, C, L, RFR;
  int KW, SW, RIW, LW;  // cmd_k, step, register-file row and lane widths
  bool fold_logic;      // Gram with L > 1: the fold phase that sums the L lanes

  explicit MacArrayShape(const MacArrayConfig& cfg)
      : c(cfg),
        R(cfg.rows),
        C(cfg.cols),
        L(cfg.fma_stages),
        RFR(cfg.rf_rows),
        KW(bits_for(cfg.rf_rows)),
        SW(bits_for(cfg.rf_rows)),
        RIW(bits_for(cfg.rf_rows - 1)),
        LW(bits_for(cfg.fma_stages - 1)),
        fold_logic(cfg.gram && cfg.fma_stages > 1) {}

  // A 1-bit vector is declared as a plain `logic`, so it is never indexed.
  std::string row_bit(const std::string& name) const { return R == 1 ? name : name + "[r]"; }
  // Row r's fresh bit for the current lane.
  std::string fresh_cur() const { return R * L == 1 ? "fresh_q" : "fresh_q[r*L]"; }
  // Literals of the Gram fold counters: fr_q counts 0..L, fk_q counts 0..L-2.
  std::string fr(long long v) const { return sv_const(bits_for(L), v); }
  std::string fk(long long v) const { return sv_const(bits_for(L - 2), v); }
  // The fold's last step: the final round's first step.
  std::string fold_done() const { return fmt::format("(fr_q == {}) && (fk_q == {})", fr(1), fk(L - 2)); }
};

// Prefixes every line of text with pad; the result has no trailing newline.
std::string indent_lines(const std::string& text, const std::string& pad) {
  std::string s, line;
  std::istringstream in(text);
  while (std::getline(in, line)) s += pad + line + "\n";
  s.pop_back();
  return s;
}

// The array's register file (rf_rows x cols fp32) and its processing element.
void add_parts(Design& design, const MacArrayShape& s) {
  RegfileConfig rf;
  rf.name = s.c.rf_name();
  rf.rows = s.RFR;
  rf.cols = s.C;
  add_regfile(design, rf, false);
  add_pe(design, s.c);
}

SvModule array_module(const MacArrayShape& s) {
  const auto& c = s.c;
  SvModule m(c.name,
             "MAC array: R x C fp32 FMA processing elements behind one command stream, one\n"
             "operand stream and one result stream (docs/datapath.md has the formats and the\n"
             "accumulation order). PE (r, c) takes the row operand a[r] and the column operand\n"
             "b[c] (or its own b[r][c]). Each PE's FMA pipeline is a ring of L = FMA_STAGES\n"
             "slots: the operation issued at a ring step adds to the value issued L steps\n"
             "earlier, so L independent accumulations (lanes) interleave. The ring steps only\n"
             "when an operation is issued, so a stalled operand stream never moves a lane.\n"
             "Commands (cmd_mode):\n"
             "  0 LOAD_RF: cmd_count rows of op_b[0][0..C-1] are written to register-file rows 0..\n"
             "  1 GEMM   : cmd_count tiles of R*L rows, Z = alpha*C + A*B with B (cmd_k rows) in the\n"
             "             register file; a tile takes (cmd_k + cmd_with_c) * L operand beats\n"
             "  2 GRAM   : cmd_count operand beats (rows m), Z[r][c] = sum_m op_a[r]*op_b[0][c]\n"
             "  3 SPMM   : cmd_count operand beats of per-row (op_a, op_b row, op_last, op_pad)\n"
             "A result beat carries res_data for all R x C PEs and res_mask = rows that finished.");
  m.record_config(c.to_json());
  m.note(fmt::format("R = {}, C = {}, FMA stages (lanes) = {}, register file {} x {} fp32; Gram mode {}, SpMM mode {}.",
                     s.R, s.C, s.L, s.RFR, s.C, c.gram ? "on" : "off (commands rejected, fold hardware removed)",
                     c.spmm ? "on" : "off (commands rejected, op_last/op_pad removed)"));
  return m;
}

// Command, operand and result stream ports.
void declare_ports(SvModule& m, const MacArrayShape& s) {
  const int R = s.R, C = s.C;
  m.clock_reset();
  m.sink({"cmd", "command", "offered", "accepted (when no command is active)",
          {{"mode", 2, "0 LOAD_RF, 1 GEMM, 2 GRAM, 3 SPMM"},
           {"count", 32, "rows to load / GEMM tiles / Gram rows / SpMM beats"},
           {"k", s.KW, "GEMM inner size K (register-file rows used)"},
           {"with_c", 1, "GEMM adds alpha*C (one extra beat per lane carrying C)"},
           {"alpha", 32, "GEMM alpha (fp32)"}}});
  m.sink({"op", "operands", "beat offered", "beat accepted",
          {{"a", R * 32, "a[r] at [32*r +: 32] (A element per PE row)"},
           {"b", R * C * 32, "b[r][c] at [32*(r*C+c) +: 32] (row 0 also: RF row, Gram B row)"}}});
  if (s.c.spmm) {
    m.input("op_last", R, "operands (SpMM): the element ends its matrix row in this lane");
    m.input("op_pad", R, "operands (SpMM): no element for this PE row in this beat");
  }
  m.source({"res", "results", "beat offered", "beat taken",
            {{"data", R * C * 32, "z[r][c] at [32*(r*C+c) +: 32]"},
             {"mask", R, "PE rows whose z is a finished result"}}});
  m.output("busy", 1, "a command is active or results are still in the ring");
  m.output("status_err", 2, "sticky: [0] illegal command (dropped), [1] SpMM command ended inside a row");
}

// Size and mode parameters, command state registers and the ring's control signals.
void declare_control(SvModule& m, const MacArrayShape& s) {
  const auto& c = s.c;
  m.localparam("R", std::to_string(s.R), "PE rows");
  m.localparam("C", std::to_string(s.C), "PE columns");
  m.localparam("L", std::to_string(s.L), "FMA stages = accumulation lanes per PE");
  m.localparam("MODE_LOAD", "2'd0", "command modes");
  m.localparam("MODE_GEMM", "2'd1", "");
  m.localparam("MODE_GRAM", "2'd2", "");
  if (c.spmm) m.localparam("MODE_SPMM", "2'd3", "");

  m.signal("active_q", 1, "a command is being executed");
  m.signal("mode_q", 2, "its mode");
  m.signal("count_q", 32, "beats / tiles / rows still to go");
  m.signal("alpha_q", 32, "GEMM alpha");
  m.signal("withc_q", 1, "GEMM has the alpha*C step");
  m.signal("last_step_q", s.SW, "GEMM: index of the last step (K + with_c - 1)");
  m.signal("step_q", s.SW, "GEMM: current step of the tile");
  if (s.L > 1) m.signal("lane_q", s.LW, "ring slot (lane) of the next operation");
  m.signal("lane_last", 1, "the next operation is in the last lane");
  m.signal("ld_row_q", s.RIW, "LOAD_RF: next register-file row");
  m.signal("err_q", 2, "sticky status");
  m.array("emit_q", s.R, s.L, "per ring slot: rows whose operation finishes a result");
  m.signal("taken_q", 1, "the result at the ring output was already delivered");
  m.signal("cmd_fire", 1, "command handshake");
  m.signal("cmd_legal", 1, "command is executable");
  m.signal("cmd_noop", 1, "command has nothing to do");
  m.signal("op_fire", 1, "operand handshake");
  m.signal("need_beat", 1, "the next ring operation consumes an operand beat");
  m.signal("internal", 1, "the next ring operation needs no operand beat");
  m.signal("load_on", 1, "LOAD_RF active");
  m.signal("adv", 1, "ring step");
  m.signal("blocked", 1, "a result is waiting at the ring output");
  m.signal("pending", 1, "results still in the ring");
  m.signal("finish", 1, "this cycle completes the active command");
  m.signal("res_fire", 1, "result handshake");
  m.signal("ident_all", 1, "identity operation in every row");
  m.signal("czero_all", 1, "every row starts a new accumulation");
  m.signal("emit_all", 1, "every row finishes a result");
  m.signal("a_alpha", 1, "a = alpha (GEMM C step)");
  m.signal("use_own", 1, "b from op_b[r][c]");
  m.signal("bsel_rf", 1, "shared b from the register file");
  if (c.spmm) m.signal("spmm_on", 1, "SpMM beat: per-row last/pad/fresh control");
}

// Per-row and per-column operand signals, the register-file port and the mode-specific state.
void declare_datapath(SvModule& m, const MacArrayShape& s) {
  const int R = s.R, C = s.C, L = s.L;
  m.signal("row_a", R * 32, "per-row multiplicand");
  m.signal("row_ident", R, "per-row identity operation");
  m.signal("row_czero", R, "per-row accumulation start");
  m.signal("row_emit", R, "per-row result finish");
  m.signal("b_shared", C * 32, "per-column multiplier");
  m.signal("pe_y", R * C * 32, "ring outputs of all PEs");
  m.signal("rf_ld_valid", 1, "register-file load");
  m.signal("rf_ld_ready", 1, "register-file load ready");
  m.signal("rf_rd_row", s.RIW, "register-file row broadcast this step");
  m.signal("rf_rd_data", C * 32, "register-file broadcast row");
  if (s.c.gram) {
    m.signal("fold", 1, "Gram fold operation");
    m.signal("bsel_one", 1, "shared b = 1.0 (fold)");
    m.signal("first_round_q", 1, "Gram: first L operations (lanes start from +0)");
    m.signal("gram_data_end", 1, "Gram: last slot of the data phase");
  }
  if (s.fold_logic) {
    m.signal("fold_q", 1, "Gram: fold phase");
    m.signal("fr_q", bits_for(L), "Gram fold: step within a round (0..L)");
    m.signal("fk_q", bits_for(L - 2), "Gram fold: round (0..L-2)");
  }
  if (s.c.spmm) {
    m.signal("fresh_q", R * L, "SpMM: per row, per lane (bit 0 = current lane): next element starts a row");
    m.signal("fresh_next", R * L, "SpMM: fresh_q after this beat");
  }
}

// Command handshake and legality check.
void command_intake(SvModule& m, const MacArrayShape& s) {
  const auto& c = s.c;
  std::string k_ok = (1LL << s.KW) - 1 == s.RFR ? "1'b1" : fmt::format("(cmd_k <= {})", sv_const(s.KW, s.RFR));
  m.section("Command intake: one command at a time; illegal commands are dropped and flagged", fmt::format(R"(
assign cmd_ready = !active_q;
assign cmd_fire  = cmd_valid && cmd_ready;
always_comb begin
  cmd_noop = cmd_count == 32'd0;
  case (cmd_mode)
    MODE_LOAD: cmd_legal = cmd_count <= 32'd{rfr};
    MODE_GEMM: cmd_legal = {k_ok} && (cmd_with_c || cmd_k != {kzero});
    MODE_GRAM: begin
      cmd_legal = 1'b{gram};
      cmd_noop  = 1'b0;  // zero rows still produce a (zero) result
    end
    default:   cmd_legal = 1'b{spmm};
  endcase
end)",
                                                                                                     fmt::arg("rfr", s.RFR), fmt::arg("k_ok", k_ok),
                                                                                                     fmt::arg("kzero", sv_const(s.KW, 0)),
                                                                                                     fmt::arg("gram", c.gram ? 1 : 0),
                                                                                                     fmt::arg("spmm", c.spmm ? 1 : 0)));
}

// The MODE_GRAM arm of the decode case: data phase, then (with L > 1) the fold phase.
std::string gram_decode_case(const MacArrayShape& s) {
  std::string data = fmt::format(R"(need_beat = count_q != 32'd0;
internal  = count_q == 32'd0;
ident_all = count_q == 32'd0;
czero_all = first_round_q;{})",
                                 s.L == 1 ? "\nemit_all  = gram_data_end;" : "");
  if (!s.fold_logic) return "\n    MODE_GRAM: begin\n" + indent_lines(data, "      ") + "\n    end";
  return fmt::format(R"(
    MODE_GRAM: begin
      if (!fold_q) begin
{data}
      end else begin
        internal  = 1'b1;
        fold      = fr_q == {one};
        ident_all = fr_q != {one};
        bsel_one  = 1'b1;
        emit_all  = {done};
      end
    end)",
                     fmt::arg("data", indent_lines(data, "        ")), fmt::arg("one", s.fr(1)),
                     fmt::arg("done", s.fold_done()));
}

// Combinational decode of the next ring operation from the active command.
void decode(SvModule& m, const MacArrayShape& s) {
  const auto& c = s.c;
  std::string lane_expr = s.L > 1 ? fmt::format("lane_q == {}", sv_const(s.LW, s.L - 1)) : "1'b1";
  std::string gram_case = c.gram ? gram_decode_case(s) : "";
  std::string spmm_case = c.spmm ? R"(
    MODE_SPMM: begin
      need_beat = 1'b1;
      use_own   = 1'b1;
      spmm_on   = 1'b1;
    end)"
                                 : "";
  std::string gram_defaults = c.gram ? "\n  fold      = 1'b0;\n  bsel_one  = 1'b0;" : "";
  m.section("Decode: what the next ring operation is", fmt::format(R"(
assign lane_last = {lane_expr};
always_comb begin
  need_beat = 1'b0;
  internal  = 1'b0;
  load_on   = 1'b0;
  ident_all = 1'b0;
  czero_all = 1'b0;
  emit_all  = 1'b0;
  a_alpha   = 1'b0;
  use_own   = 1'b0;
  bsel_rf   = 1'b0;{spmm_default}{gram_defaults}
  if (active_q) begin
    case (mode_q)
    MODE_LOAD: load_on = 1'b1;
    MODE_GEMM: begin
      need_beat = 1'b1;
      a_alpha   = withc_q && (step_q == {szero});
      use_own   = withc_q && (step_q == {szero});
      bsel_rf   = 1'b1;
      czero_all = step_q == {szero};
      emit_all  = step_q == last_step_q;
    end{gram_case}{spmm_case}
    default: ;
    endcase
  end else begin
    internal  = pending;  // drain: identity steps push finished results out
    ident_all = 1'b1;
  end
end)",
                                                                 fmt::arg("lane_expr", lane_expr), fmt::arg("gram_defaults", gram_defaults),
                                                                 fmt::arg("spmm_default", c.spmm ? "\n  spmm_on   = 1'b0;" : ""),
                                                                 fmt::arg("szero", sv_const(s.SW, 0)), fmt::arg("gram_case", gram_case),
                                                                 fmt::arg("spmm_case", spmm_case)));
}

// Ring step and the operand / result stream handshakes.
void handshakes(SvModule& m) {
  m.section("Ring step, operand and result handshakes", R"(
assign res_valid = (emit_q[L-1] != '0) && !taken_q;
assign res_mask  = emit_q[L-1];
assign res_data  = pe_y;
assign res_fire  = res_valid && res_ready;
assign blocked   = res_valid && !res_ready;
assign adv       = ((need_beat && op_valid) || internal) && !blocked;
assign op_ready  = load_on ? rf_ld_ready : (need_beat && !blocked);
assign op_fire   = op_valid && op_ready;
assign busy      = active_q || pending;
assign status_err = err_q;
always_comb begin
  pending = 1'b0;
  for (int i = 0; i < L; i++) pending = pending || (emit_q[i] != '0);
end)");
}

// Per-row multiplicand and control bits, per-column shared multiplier.
void row_and_column_operands(SvModule& m, const MacArrayShape& s) {
  std::string row_ctrl =
      s.c.spmm ? fmt::format(R"(
  assign {IDENT} = ident_all || (spmm_on && {PAD});
  assign {CZERO} = czero_all || (spmm_on && {FRESH});
  assign {EMIT}  = emit_all || (spmm_on && {LAST});)",
                             fmt::arg("IDENT", s.row_bit("row_ident")), fmt::arg("PAD", s.row_bit("op_pad")),
                             fmt::arg("CZERO", s.row_bit("row_czero")), fmt::arg("FRESH", s.fresh_cur()),
                             fmt::arg("EMIT", s.row_bit("row_emit")), fmt::arg("LAST", s.row_bit("op_last")))
               : fmt::format(R"(
  assign {IDENT} = ident_all;
  assign {CZERO} = czero_all;
  assign {EMIT}  = emit_all;)",
                             fmt::arg("IDENT", s.row_bit("row_ident")), fmt::arg("CZERO", s.row_bit("row_czero")),
                             fmt::arg("EMIT", s.row_bit("row_emit")));
  std::string bsh = s.c.gram ? "bsel_one ? 32'h3f800000 : (bsel_rf ? rf_rd_data[32*c +: 32] : op_b[32*c +: 32])"
                             : "bsel_rf ? rf_rd_data[32*c +: 32] : op_b[32*c +: 32]";
  m.section("Per-row control and per-column shared operand", fmt::format(R"(
for (genvar r = 0; r < R; r++) begin : g_row
  assign row_a[32*r +: 32] = a_alpha ? alpha_q : op_a[32*r +: 32];{row_ctrl}
end
for (genvar c = 0; c < C; c++) begin : g_col
  assign b_shared[32*c +: 32] = {bsh};
end)",
                                                                                 fmt::arg("row_ctrl", row_ctrl), fmt::arg("bsh", bsh)));
}

// The MODE_GRAM arm of the command-state update: row count, lane, first round and fold counters.
std::string gram_state_update(const MacArrayShape& s, const std::string& lane_step) {
  std::string fold_part = s.fold_logic ? fmt::format(R"(
        if (gram_data_end) fold_q <= 1'b1;
      end else begin
        if (fr_q == {flast}) begin
          fr_q <= {fzero};
          fk_q <= fk_q + {kone};
        end else begin
          fr_q <= fr_q + {fone};
        end
      end)",
                                                     fmt::arg("flast", s.fr(s.L)), fmt::arg("fzero", s.fr(0)),
                                                     fmt::arg("fone", s.fr(1)), fmt::arg("kone", s.fk(1)))
                                       : "\n      end";
  return fmt::format(R"(
    MODE_GRAM: if (adv) begin
      if ({notfold}) begin
        if (count_q != 32'd0) count_q <= count_q - 32'd1;
        {lane_step}
        if (lane_last) first_round_q <= 1'b0;{fold_part}
    end)",
                     fmt::arg("notfold", s.fold_logic ? "!fold_q" : "1'b1"), fmt::arg("lane_step", lane_step),
                     fmt::arg("fold_part", fold_part));
}

// Command registers: loaded on acceptance, stepped with the ring per mode.
void command_state(SvModule& m, const MacArrayShape& s) {
  const auto& c = s.c;
  const int SW = s.SW, RIW = s.RIW, LW = s.LW;
  std::string gram_start = c.gram ? "\n    first_round_q <= 1'b1;" : "";
  if (s.fold_logic)
    gram_start += fmt::format("\n    fold_q        <= 1'b0;\n    fr_q          <= {};\n    fk_q          <= {};", s.fr(0),
                              s.fk(0));
  std::string spmm_start = c.spmm ? "\n    fresh_q       <= '1;" : "";
  std::string lane_start = s.L > 1 ? fmt::format("\n    lane_q        <= {};", sv_const(LW, 0)) : "";
  std::string lane_step =
      s.L > 1 ? fmt::format("lane_q <= lane_last ? {} : lane_q + {};", sv_const(LW, 0), sv_const(LW, 1)) : "";
  std::string gram_update = c.gram ? gram_state_update(s, lane_step) : "";
  std::string spmm_update = c.spmm ? R"(
    MODE_SPMM: if (adv) begin
      count_q <= count_q - 32'd1;
      fresh_q <= fresh_next;
    end)"
                                   : "";
  m.section("Command state: loaded when a command is accepted, stepped with the ring", fmt::format(R"(
always_ff @(posedge clk) begin
  if (cmd_fire) begin
    mode_q      <= cmd_mode;
    count_q     <= cmd_count;
    alpha_q     <= cmd_alpha;
    withc_q     <= cmd_with_c;
    last_step_q <= {kext} + {cext} - {sone};
    step_q      <= {szero};
    ld_row_q    <= {rzero};{lane_start}{gram_start}{spmm_start}
  end else if (active_q) begin
    case (mode_q)
    MODE_LOAD: if (op_fire) begin
      count_q  <= count_q - 32'd1;
      ld_row_q <= ld_row_q + {rone};
    end
    MODE_GEMM: if (adv) begin
      {lane_step}
      if (lane_last) begin
        if (step_q == last_step_q) begin
          step_q  <= {szero};
          count_q <= count_q - 32'd1;
        end else begin
          step_q <= step_q + {sone};
        end
      end
    end{gram_update}{spmm_update}
    default: ;
    endcase
  end
end)",
                                                                                                       fmt::arg("kext", zext("cmd_k", s.KW, SW)),
                                                                                                       fmt::arg("cext", zext("cmd_with_c", 1, SW)),
                                                                                                       fmt::arg("sone", sv_const(SW, 1)), fmt::arg("szero", sv_const(SW, 0)),
                                                                                                       fmt::arg("rzero", sv_const(RIW, 0)), fmt::arg("rone", sv_const(RIW, 1)),
                                                                                                       fmt::arg("lane_start", lane_start), fmt::arg("gram_start", gram_start),
                                                                                                       fmt::arg("spmm_start", spmm_start), fmt::arg("lane_step", lane_step),
                                                                                                       fmt::arg("gram_update", gram_update), fmt::arg("spmm_update", spmm_update)));
}

// Command completion per mode, the active flag and the sticky error bits.
void completion(SvModule& m, const MacArrayShape& s) {
  const auto& c = s.c;
  std::string gram_finish;
  if (c.gram)
    gram_finish = s.fold_logic ? fmt::format("\n    MODE_GRAM: finish = adv && fold_q && {};", s.fold_done())
                               : "\n    MODE_GRAM: finish = adv && gram_data_end;";
  std::string spmm_finish = c.spmm ? "\n    MODE_SPMM: finish = adv && (count_q == 32'd1);" : "";
  std::string spmm_err =
      c.spmm ? "\n    if (finish && mode_q == MODE_SPMM && fresh_next != '1) err_q[1] <= 1'b1;" : "";
  m.section("Command completion, activity and sticky errors", fmt::format(R"(
always_comb begin
  finish = 1'b0;
  if (active_q) begin
    case (mode_q)
    MODE_LOAD: finish = op_fire && (count_q == 32'd1);
    MODE_GEMM: finish = adv && lane_last && (step_q == last_step_q) && (count_q == 32'd1);{gram_finish}{spmm_finish}
    default: ;
    endcase
  end
end
always_ff @(posedge clk) begin
  if (!rst_n) begin
    active_q <= 1'b0;
    err_q    <= 2'd0;
  end else begin
    if (cmd_fire) begin
      if (!cmd_legal) err_q[0] <= 1'b1;
      else if (!cmd_noop) active_q <= 1'b1;
    end else if (finish) begin
      active_q <= 1'b0;
    end{spmm_err}
  end
end)",
                                                                                          fmt::arg("gram_finish", gram_finish), fmt::arg("spmm_finish", spmm_finish),
                                                                                          fmt::arg("spmm_err", spmm_err)));
}

// SpMM: per row, a ring of fresh bits (one per lane) marking where a matrix row starts.
void spmm_lane_state(SvModule& m, const MacArrayShape& s) {
  std::string rot = s.L > 1 ? "{nxt, fresh_q[r*L+1 +: L-1]}" : "nxt";
  std::string dst = s.R * s.L == 1 ? "fresh_next" : (s.L == 1 ? "fresh_next[r]" : "fresh_next[r*L +: L]");
  m.section("SpMM lane state: bit 0 of each row's ring is the current lane", fmt::format(R"(
for (genvar r = 0; r < R; r++) begin : g_fresh
  logic nxt;
  assign nxt = {last} ? 1'b1 : ({pad} ? {cur} : 1'b0);
  assign {dst} = {rot};
end)",
                                                                                        fmt::arg("last", s.row_bit("op_last")), fmt::arg("pad", s.row_bit("op_pad")),
                                                                                        fmt::arg("cur", s.fresh_cur()), fmt::arg("dst", dst), fmt::arg("rot", rot)));
}

// emit_q: per ring slot, the rows whose operation finishes a result; taken_q marks delivery.
void result_tracking(SvModule& m, const MacArrayShape& s) {
  std::string shift = s.L > 1 ? "\n    for (int i = 1; i < L; i++) emit_q[i] <= emit_q[i-1];" : "";
  m.section("Result tracking: which rows finish a result, slot by slot along the ring", fmt::format(R"(
always_ff @(posedge clk) begin
  if (!rst_n) begin
    for (int i = 0; i < L; i++) emit_q[i] <= '0;
    taken_q <= 1'b0;
  end else if (adv) begin
    emit_q[0] <= row_emit;{}
    taken_q <= 1'b0;
  end else if (res_fire) begin
    taken_q <= 1'b1;
  end
end)",
                                                                                                     shift));
}

// Register-file instance: loaded by LOAD_RF beats, read row follows the GEMM step.
void register_file(SvModule& m, const MacArrayShape& s) {
  m.section("Register file: loaded by LOAD_RF beats, row (step - with_c) broadcast during GEMM",
            fmt::format(R"(
assign rf_ld_valid = load_on && op_valid;
assign rf_rd_row   = withc_q ? {lo} - {one} : {lo};)",
                        fmt::arg("lo", low_bits("step_q", s.SW, s.RIW)), fmt::arg("one", sv_const(s.RIW, 1))));
  m.instantiate(s.c.rf_name(), "u_rf")
      .connect("clk", "clk")
      .connect("rst_n", "rst_n")
      .connect("ld_valid", "rf_ld_valid")
      .connect("ld_ready", "rf_ld_ready")
      .connect("ld_row", "ld_row_q")
      .connect("ld_data", fmt::format("op_b[{}:0]", s.C * 32 - 1))
      .connect("rd_row", "rf_rd_row")
      .connect("rd_data", "rf_rd_data");
}

// The R x C grid of processing elements.
void pe_grid(SvModule& m, const MacArrayShape& s) {
  std::string fold_conn = s.c.gram ? "\n      .fold     (fold)," : "";
  m.section("Processing elements", fmt::format(R"(
for (genvar r = 0; r < R; r++) begin : g_pe_row
  for (genvar c = 0; c < C; c++) begin : g_pe_col
    {pe} u_pe (
      .clk      (clk),
      .en       (adv),
      .a_row    (row_a[32*r +: 32]),
      .b_shared (b_shared[32*c +: 32]),
      .b_own    (op_b[32*(r*C+c) +: 32]),
      .use_own  (use_own),
      .ident    ({ident}),{fold}
      .c_zero   ({czero}),
      .y        (pe_y[32*(r*C+c) +: 32])
    );
  end
end)",
                                                   fmt::arg("pe", s.c.pe_name()), fmt::arg("fold", fold_conn),
                                                   fmt::arg("ident", s.row_bit("row_ident")),
                                                   fmt::arg("czero", s.row_bit("row_czero"))));
}

// The block record for the design's manifest: modules, parameters and ports.
void record_block(Design& design, const SvModule& m, const MacArrayConfig& c) {
  nlohmann::json block = block_entry(m, "mac_array", c.to_json());
  block["pe_module"] = c.pe_name();
  block["rf_module"] = c.rf_name();
  design.blocks.push_back(std::move(block));
}

}  // namespace

void add_mac_array(Design& design, const MacArrayConfig& c) {
  const MacArrayShape s(c);
  add_parts(design, s);

  SvModule m = array_module(s);
  declare_ports(m, s);
  declare_control(m, s);
  declare_datapath(m, s);
  command_intake(m, s);
  decode(m, s);
  handshakes(m);
  row_and_column_operands(m, s);
  command_state(m, s);
  completion(m, s);
  if (c.gram) m.section("Gram: the data phase ends on the last lane once all rows are in", "assign gram_data_end = lane_last && (count_q <= 32'd1);");
  if (c.spmm) spmm_lane_state(m, s);
  result_tracking(m, s);
  register_file(m, s);
  pe_grid(m, s);

  record_block(design, m, c);
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen
