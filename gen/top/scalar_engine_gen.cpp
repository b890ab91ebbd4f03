#include "top/scalar_engine_gen.hpp"

#include <fmt/format.h>

#include "sv_module.hpp"

namespace cello::gen {

namespace {

// The descriptor of one operand slot: word base, shape, storage order.
void operand_ports(SvModule& m, const std::string& slot, const std::string& what, int WA, int CW) {
  m.input(slot + "_base", WA, what + ": word address of the region (byte base / 4)");
  m.input(slot + "_rows", CW, what + ": rows");
  m.input(slot + "_cols", CW, what + ": columns");
  m.input(slot + "_cm", 1, what + ": stored column by column");
}

}  // namespace

void add_scalar_engine(Design& design, const std::string& module, const ScalarEngineShape& s) {
  const int WA = s.addr_bits - 2, CW = WA + 1, S = s.fma_stages, L = s.gram_lanes;
  const int LB = bits_for(L > 1 ? L - 1 : 1), SB = bits_for(S + 1), RF = s.rf_rows, RB = bits_for(RF > 1 ? RF - 1 : 1);
  SvModule m(module,
             "Scalar engine of the top: runs one launch element by element with one fp32_fma,\n"
             "in the accumulation order of docs/commands.md, reading operands through the load\n"
             "unit and writing results through the store unit (every binding served from DRAM).\n"
             "One step at a time: a word read, then the FMA it feeds; the result of each FMA is\n"
             "back before the next one starts, so the chain order is the executor's.\n"
             "A GEMM pass reads each row of A once, at the row's first result column, into a\n"
             "row buffer: the result may update A in place (docs/commands.md, \"Memory layout\"),\n"
             "and every result of row i needs all of A[i, k0..k0+k-1].");
  const nlohmann::json params = {{"addr_bits", s.addr_bits}, {"fma_stages", S}, {"gram_lanes", L}, {"rf_rows", RF}};
  m.record_config(params);
  m.input("clk", 1, "clock");
  m.input("rst_n", 1, "synchronous active-low reset");
  m.input("start", 1, "launch: the descriptor below is valid and stays so until done");
  m.input("kind", 2, "0 GEMM pass, 1 GRAM, 2 SPMM, 3 ELTW");
  m.input("relu", 1, "negative results become +0");
  m.input("with_c", 1, "GEMM/SPMM: accumulate C (slot c) first");
  m.input("cont", 1, "GEMM: a continuation pass (C is the partial result, alpha taken as 1)");
  m.input("has_b", 1, "ELTW: the second operand is present");
  m.input("alpha", 32, "fp32 alpha");
  m.input("beta", 32, "fp32 beta");
  m.input("scale", 32, "GEMM: RF_LOAD scale (register-file values are scale * B)");
  m.input("k0", CW, "GEMM: first inner index of the pass");
  m.input("k", CW, "GEMM: inner size of the pass");
  operand_ports(m, "z", "result", WA, CW);
  operand_ports(m, "a", "GEMM streamed operand, GRAM/ELTW first operand, SPMM CSR row pointers", WA, CW);
  operand_ports(m, "b", "GEMM register-file operand, GRAM/ELTW second operand, SPMM dense operand", WA, CW);
  operand_ports(m, "c", "accumulated operand C", WA, CW);
  m.input("csr_col_base", WA, "SPMM: word address of the column indices");
  m.input("csr_val_base", WA, "SPMM: word address of the values");
  m.input("csr_nnz", CW, "SPMM: stored entries");
  m.output("busy", 1, "a launch is running");
  m.output("done", 1, "pulse: the launch ended (its last write was taken by the store unit)");
  m.output("err", 1, "pulse with done: a damaged CSR operand stopped the launch");
  m.output("fma_fire", 1, "pulse: an FMA was issued");
  m.output("ld_req_valid", 1, "load unit: a word read");
  m.input("ld_req_ready", 1, "load unit: taken");
  m.output("ld_req_word", WA, "load unit: word address");
  m.input("ld_rsp_valid", 1, "load unit: the word");
  m.output("ld_rsp_ready", 1, "load unit: taken");
  m.input("ld_rsp_data", 32, "load unit: data");
  m.output("st_valid", 1, "store unit: a result word");
  m.input("st_ready", 1, "store unit: taken");
  m.output("st_word", WA, "store unit: word address");
  m.output("st_data", 32, "store unit: data");

  m.localparam("KIND_GEMM", "2'd0", "kind codes");
  m.localparam("KIND_GRAM", "2'd1", "");
  m.localparam("KIND_SPMM", "2'd2", "(3 is ELTW)");
  // Phases of one step: a step optionally reads one word, then optionally issues
  // one FMA and waits for its result.
  m.localparam("PH_IDLE", "3'd0", "waiting for start");
  m.localparam("PH_STEP", "3'd1", "decide what the current step does");
  m.localparam("PH_READ", "3'd2", "offer the step's word read");
  m.localparam("PH_WAIT", "3'd3", "wait for the word");
  m.localparam("PH_FMA", "3'd4", "wait for the FMA result");
  m.localparam("PH_WRITE", "3'd5", "offer the result word");
  m.localparam("PH_DONE", "3'd6", "signal done");
  // Steps of one result element (docs/top.md lists the sequence of each kind).
  const char* steps[][2] = {
      {"ST_BEGIN", "clear the accumulator and lanes, pick the first step"},
      {"ST_C", "read C[i,j]; acc = fma(alpha, C, +0)"},
      {"ST_A", "ELTW: read A[i,j]; acc = fma(alpha, A, -0) = mul32(alpha, A)"},
      {"ST_B", "ELTW: read B[i,j]; acc = fma(beta, B, acc)"},
      {"ST_GS", "GEMM: A[i,k0+t] into sv (read at j = 0, from the row buffer after)"},
      {"ST_GR", "GEMM: read B[k0+t,j]; m = fma(scale, B, -0) (the register-file value)"},
      {"ST_GMAC", "GEMM: acc = fma(sv, m, acc)"},
      {"ST_RP0", "SPMM: read row_ptr[i] into e"},
      {"ST_RP1", "SPMM: read row_ptr[i+1] into e_end"},
      {"ST_COL", "SPMM: read col[e]"},
      {"ST_VAL", "SPMM: read val[e]; m = fma(beta, val, -0)"},
      {"ST_X", "SPMM: read X[col,j]; acc = fma(m, X, acc)"},
      {"ST_GA", "GRAM: read A[t,i] into sv"},
      {"ST_GB", "GRAM: read B[t,j]; p[t mod L] = fma(sv, B, p[t mod L])"},
      {"ST_SUM", "GRAM: acc = p[0], then acc = fma(acc, 1, p[l]) for l = 1..L-1"},
      {"ST_WRITE", "relu, write Z[i,j]"},
  };
  for (int k = 0; k < 16; ++k) m.localparam(steps[k][0], fmt::format("4'd{}", k), steps[k][1]);

  m.signal("ph_q", 3, "phase");
  m.signal("step_q", 4, "step of the current element");
  m.signal("i_q", CW, "result row");
  m.signal("j_q", CW, "result column");
  m.signal("t_q", CW, "GEMM inner / GRAM reduction index");
  m.signal("e_q", CW, "SPMM: stored entry");
  m.signal("e_end_q", CW, "SPMM: end of the row's entries");
  m.signal("col_q", CW, "SPMM: column index of entry e");
  m.signal("lane_q", LB, "GRAM: lane of t (t mod L)");
  m.signal("sum_q", LB + 1, "GRAM: lanes folded into acc so far");
  m.signal("acc_q", 32, "the element's accumulator");
  m.signal("sv_q", 32, "a value read for the next FMA");
  m.signal("mv_q", 32, "a product operand (scaled register-file value, beta * val)");
  m.array("lane_p_q", 32, L, "GRAM partial sums");
  m.array("arow_q", 32, RF, "GEMM: A[i, k0..k0+k-1] of the current result row");
  m.signal("t_idx", RB, "GEMM: t as a row-buffer index (t < k <= rf_rows)");
  m.signal("fa_q", 32, "FMA operand a");
  m.signal("fb_q", 32, "FMA operand b");
  m.signal("fc_q", 32, "FMA operand c");
  m.signal("fma_y", 32, "FMA result");
  m.signal("wait_q", SB, "cycles until the FMA result");
  m.signal("err_q", 1, "the launch stopped at a damaged CSR operand");
  m.signal("done_q", 1, "done pulse");
  m.signal("first_step", 4, "first step after ST_BEGIN");
  m.signal("sel_base", WA, "address: region base of the step's operand");
  m.signal("sel_rows", CW, "address: its rows");
  m.signal("sel_cols", CW, "address: its columns");
  m.signal("sel_cm", 1, "address: its storage order");
  m.signal("sel_r", CW, "address: element row");
  m.signal("sel_c", CW, "address: element column");
  m.signal("sel_raw", 1, "address: a CSR array word (base + raw_off)");
  m.signal("raw_off", CW, "address: word offset in a CSR array");
  m.signal("elem_off", CW, "address: word offset of [sel_r, sel_c] in its region");
  m.signal("step_word", WA, "address of the step's word");
  m.signal("last_col", 1, "j is the result's last column");
  m.signal("last_elem", 1, "the element is the result's last");
  m.signal("relu_neg", 1, "acc is negative (not -0, not NaN)");
  m.signal("rsp_word", 64, "the read word, zero-extended for range checks");

  m.instantiate("fp32_fma", "u_fma")
      .param("STAGES", std::to_string(S))
      .connect("clk", "clk")
      .connect("en", "1'b1")
      .connect("a", "fa_q")
      .connect("b", "fb_q")
      .connect("c", "fc_q")
      .connect("y", "fma_y");
  design.primitives.insert("fp32_fma");

  m.section("Operand addresses", fmt::format(R"(
// Which operand element the current step touches.
always_comb begin
  sel_base = a_base;
  sel_rows = a_rows;
  sel_cols = a_cols;
  sel_cm   = a_cm;
  sel_r    = i_q;
  sel_c    = j_q;
  sel_raw  = 1'b0;
  raw_off  = e_q;
  case (step_q)
    ST_C:   begin sel_base = c_base; sel_rows = c_rows; sel_cols = c_cols; sel_cm = c_cm; end
    ST_B:   begin sel_base = b_base; sel_rows = b_rows; sel_cols = b_cols; sel_cm = b_cm; end
    ST_GS:  sel_c = k0 + t_q;
    ST_GR:  begin sel_base = b_base; sel_rows = b_rows; sel_cols = b_cols; sel_cm = b_cm; sel_r = k0 + t_q; end
    ST_RP0: begin sel_raw = 1'b1; raw_off = i_q; end
    ST_RP1: begin sel_raw = 1'b1; raw_off = i_q + {CW}'d1; end
    ST_COL: begin sel_raw = 1'b1; sel_base = csr_col_base; end
    ST_VAL: begin sel_raw = 1'b1; sel_base = csr_val_base; end
    ST_X:   begin sel_base = b_base; sel_rows = b_rows; sel_cols = b_cols; sel_cm = b_cm; sel_r = col_q; end
    ST_GA:  begin sel_r = t_q; sel_c = i_q; end
    ST_GB:  begin sel_base = b_base; sel_rows = b_rows; sel_cols = b_cols; sel_cm = b_cm; sel_r = t_q; end
    ST_WRITE: begin sel_base = z_base; sel_rows = z_rows; sel_cols = z_cols; sel_cm = z_cm; end
    default: ;
  endcase
end
// The sequencer checked that every region lies inside the image, so neither the
// offset nor the sum wraps.
assign elem_off  = sel_cm ? sel_c * sel_rows + sel_r : sel_r * sel_cols + sel_c;
assign step_word = sel_base + {WA}'(sel_raw ? raw_off : elem_off);
assign ld_req_word = step_word;
assign st_word     = step_word;
assign rsp_word    = {{32'd0, ld_rsp_data}};)",
                                           fmt::arg("CW", CW), fmt::arg("WA", WA)));

  m.section("Element order", fmt::format(R"(
always_comb begin
  case (kind)
    KIND_GEMM: first_step = with_c ? ST_C : (k == '0 ? ST_WRITE : ST_GS);
    KIND_GRAM: first_step = ST_GA;
    KIND_SPMM: first_step = with_c ? ST_C : ST_RP0;
    default:   first_step = ST_A;
  endcase
end
assign last_col  = (j_q + {CW}'d1 == z_cols);
assign last_elem = last_col && (i_q + {CW}'d1 == z_rows);
// relu turns values below zero into +0 (-0 and NaN stay, as `v < 0.0f` in the executor).
assign relu_neg  = acc_q[31] && (acc_q[30:0] != '0) && !((acc_q[30:23] == 8'hff) && (acc_q[22:0] != '0));
assign st_data   = (relu && relu_neg) ? 32'd0 : acc_q;
assign st_valid  = (ph_q == PH_WRITE);
assign ld_req_valid = (ph_q == PH_READ);
assign ld_rsp_ready = (ph_q == PH_WAIT);
assign busy      = (ph_q != PH_IDLE);
assign done      = done_q;
assign err       = done_q && err_q;
assign fma_fire  = (ph_q == PH_FMA) && (wait_q == {SB}'({S1}));
assign t_idx     = t_q[{RB0}:0];)",
                                       fmt::arg("CW", CW), fmt::arg("SB", SB), fmt::arg("S1", S + 1),
                                       fmt::arg("RB0", RB - 1)));

  // The FMA operands are registered when a step issues; the result is captured
  // STAGES + 1 cycles later (fp32_fma runs with en tied high).
  m.section("Steps", fmt::format(R"(
always_ff @(posedge clk) begin
  if (!rst_n) begin
    ph_q   <= PH_IDLE;
    step_q <= ST_BEGIN;
    done_q <= 1'b0;
    err_q  <= 1'b0;
  end else begin
    done_q <= 1'b0;
    case (ph_q)
      PH_IDLE: if (start) begin
        i_q    <= '0;
        j_q    <= '0;
        err_q  <= 1'b0;
        step_q <= ST_BEGIN;
        ph_q   <= PH_STEP;
      end
      PH_STEP: begin
        case (step_q)
          ST_BEGIN: begin
            acc_q  <= 32'd0;
            t_q    <= '0;
            lane_q <= '0;
            sum_q  <= '0;
            for (int l = 0; l < {L}; l++) lane_p_q[l] <= 32'd0;
            step_q <= first_step;
          end
          ST_GMAC: begin
            fa_q <= sv_q; fb_q <= mv_q; fc_q <= acc_q;
            wait_q <= {SB}'({S1});
            ph_q <= PH_FMA;
          end
          ST_SUM: begin
            if (sum_q == '0) begin
              acc_q <= lane_p_q[0];
              sum_q <= {LB1}'d1;
            end else if (sum_q == {LB1}'({L})) begin
              step_q <= ST_WRITE;
            end else begin
              fa_q <= acc_q; fb_q <= 32'h3f800000; fc_q <= lane_p_q[sum_q[{LB0}:0]];
              wait_q <= {SB}'({S1});
              ph_q <= PH_FMA;
            end
          end
          ST_GS: begin
            if (j_q == '0) ph_q <= PH_READ;
            else begin
              sv_q   <= arow_q[t_idx];
              step_q <= ST_GR;
            end
          end
          ST_WRITE: ph_q <= PH_WRITE;
          default: ph_q <= PH_READ;
        endcase
      end
      PH_READ: if (ld_req_ready) ph_q <= PH_WAIT;
      PH_WAIT: if (ld_rsp_valid) begin
        ph_q <= PH_STEP;
        case (step_q)
          ST_GS: begin sv_q <= ld_rsp_data; arow_q[t_idx] <= ld_rsp_data; step_q <= ST_GR; end
          ST_GA: begin sv_q <= ld_rsp_data; step_q <= ST_GB; end
          ST_RP0: begin
            e_q <= {CW}'(ld_rsp_data);
            if (rsp_word > 64'(csr_nnz)) begin err_q <= 1'b1; ph_q <= PH_DONE; end
            else step_q <= ST_RP1;
          end
          ST_RP1: begin
            e_end_q <= {CW}'(ld_rsp_data);
            if (rsp_word > 64'(csr_nnz) || rsp_word < 64'(e_q)) begin err_q <= 1'b1; ph_q <= PH_DONE; end
            else step_q <= (rsp_word == 64'(e_q)) ? ST_WRITE : ST_COL;
          end
          ST_COL: begin
            col_q <= {CW}'(ld_rsp_data);
            if (rsp_word >= 64'(b_rows)) begin err_q <= 1'b1; ph_q <= PH_DONE; end
            else step_q <= ST_VAL;
          end
          default: begin
            // Steps whose word feeds an FMA.
            ph_q   <= PH_FMA;
            wait_q <= {SB}'({S1});
            case (step_q)
              ST_C:   begin fa_q <= cont ? 32'h3f800000 : alpha; fb_q <= ld_rsp_data; fc_q <= 32'h00000000; end
              ST_A:   begin fa_q <= alpha; fb_q <= ld_rsp_data; fc_q <= 32'h80000000; end
              ST_B:   begin fa_q <= beta;  fb_q <= ld_rsp_data; fc_q <= acc_q; end
              ST_GR:  begin fa_q <= scale; fb_q <= ld_rsp_data; fc_q <= 32'h80000000; end
              ST_VAL: begin fa_q <= beta;  fb_q <= ld_rsp_data; fc_q <= 32'h80000000; end
              ST_X:   begin fa_q <= mv_q;  fb_q <= ld_rsp_data; fc_q <= acc_q; end
              default: begin fa_q <= sv_q; fb_q <= ld_rsp_data; fc_q <= lane_p_q[lane_q]; end  // ST_GB
            endcase
          end
        endcase
      end
      PH_FMA: begin
        wait_q <= wait_q - {SB}'d1;
        if (wait_q == {SB}'d1) begin
          ph_q <= PH_STEP;
          case (step_q)
            ST_C: begin
              acc_q  <= fma_y;
              step_q <= (kind == KIND_SPMM) ? ST_RP0 : (k == '0 ? ST_WRITE : ST_GS);
            end
            ST_A: begin acc_q <= fma_y; step_q <= has_b ? ST_B : ST_WRITE; end
            ST_B: begin acc_q <= fma_y; step_q <= ST_WRITE; end
            ST_GR: begin mv_q <= fma_y; step_q <= ST_GMAC; end
            ST_GMAC: begin
              acc_q  <= fma_y;
              t_q    <= t_q + {CW}'d1;
              step_q <= (t_q + {CW}'d1 == k) ? ST_WRITE : ST_GS;
            end
            ST_VAL: begin mv_q <= fma_y; step_q <= ST_X; end
            ST_X: begin
              acc_q  <= fma_y;
              e_q    <= e_q + {CW}'d1;
              step_q <= (e_q + {CW}'d1 == e_end_q) ? ST_WRITE : ST_COL;
            end
            ST_GB: begin
              lane_p_q[lane_q] <= fma_y;
              lane_q <= (lane_q == {LB}'({LM1})) ? '0 : lane_q + {LB}'d1;
              t_q    <= t_q + {CW}'d1;
              step_q <= (t_q + {CW}'d1 == a_rows) ? ST_SUM : ST_GA;
            end
            default: begin acc_q <= fma_y; sum_q <= sum_q + {LB1}'d1; end  // ST_SUM
          endcase
        end
      end
      PH_WRITE: if (st_ready) begin
        if (last_elem) ph_q <= PH_DONE;
        else begin
          ph_q   <= PH_STEP;
          step_q <= ST_BEGIN;
          j_q    <= last_col ? '0 : j_q + {CW}'d1;
          if (last_col) i_q <= i_q + {CW}'d1;
        end
      end
      default: begin  // PH_DONE
        done_q <= 1'b1;
        ph_q   <= PH_IDLE;
      end
    endcase
  end
end)",
                                 fmt::arg("CW", CW), fmt::arg("SB", SB), fmt::arg("S1", S + 1), fmt::arg("L", L),
                                 fmt::arg("LB", LB), fmt::arg("LB1", LB + 1), fmt::arg("LB0", LB - 1),
                                 fmt::arg("LM1", L - 1)));
  design.blocks.push_back(block_entry(m, "scalar_engine", params));
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen
