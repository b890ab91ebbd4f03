// Properties of a generated buffet (docs/buffet.md, "Formal proofs"), proved with
// yosys-smtbmc by k-induction. The checker sits beside the buffet in a wrapper
// (buffet_formal.sh writes it): it sees the buffet's ports and, through Yosys
// `expose`, four state registers (occ_q, head_q, credit_q, credit_acc_q and,
// with the scoreboard, pending_q). Nothing of it is inside the generated RTL.
//
// Environment (assumptions): reset in the first cycle and never again; the fill
// producer spends one credit per fill (the contract in docs/buffet.md); a valid
// request holds with its payload until accepted.
module buffet_checker #(
    parameter int DEPTH = 4,
    parameter int W = 8,
    parameter int IW = 2,
    parameter int CW = 3,
    parameter int SW = 2,
    parameter bit SCOREBOARD = 1,
    parameter int MAX_WAIT = 3  // bounded liveness: cycles a legal request may wait
) (
    input logic clk,
    input logic rst_n,
    input logic fill_valid,
    input logic fill_ready,
    input logic [W-1:0] fill_data,
    input logic rd_req_valid,
    input logic rd_req_ready,
    input logic [IW-1:0] rd_req_idx,
    input logic rd_req_will_update,
    input logic rd_rsp_valid,
    input logic rd_rsp_ready,
    input logic upd_valid,
    input logic upd_ready,
    input logic [IW-1:0] upd_idx,
    input logic shr_valid,
    input logic shr_ready,
    input logic [CW-1:0] shr_num,
    input logic credit_valid,
    input logic credit_ready,
    input logic [CW-1:0] credit_num,
    input logic [CW-1:0] occ_q,
    input logic [SW-1:0] head_q,
    input logic [CW-1:0] credit_q,
    input logic [CW-1:0] credit_acc_q,
    input logic [DEPTH-1:0] pending_q
);
  logic init = 1'b1;
  always_ff @(posedge clk) init <= 1'b0;
  always_comb begin
    if (init) assume (!rst_n);
    else assume (rst_n);
  end
  logic started = 1'b0;  // one cycle after the reset cycle
  always_ff @(posedge clk) started <= !init;

  // ---- Environment -----------------------------------------------------------
  // Credits the fill producer holds (taken, not yet spent on a fill).
  logic [CW+1:0] held;
  always_ff @(posedge clk)
    if (!rst_n) held <= '0;
    else held <= held + ((credit_valid && credit_ready) ? (CW + 2)'(credit_num) : '0) - (CW + 2)'(fill_valid && fill_ready);
  always_comb if (fill_valid) assume (held != 0);
  // Ready/valid: a request that was not accepted is offered again unchanged.
  logic rd_wait, upd_wait, shr_wait;
  logic [IW-1:0] rd_idx_p, upd_idx_p;
  logic rd_wu_p;
  logic [CW-1:0] shr_num_p;
  always_ff @(posedge clk) begin
    rd_wait <= rst_n && rd_req_valid && !rd_req_ready;
    upd_wait <= rst_n && upd_valid && !upd_ready;
    shr_wait <= rst_n && shr_valid && !shr_ready;
    rd_idx_p <= rd_req_idx;
    rd_wu_p <= rd_req_will_update;
    upd_idx_p <= upd_idx;
    shr_num_p <= shr_num;
  end
  always_comb begin
    if (rd_wait) assume (rd_req_valid && rd_req_idx == rd_idx_p && rd_req_will_update == rd_wu_p);
    if (upd_wait) assume (upd_valid && upd_idx == upd_idx_p);
    if (shr_wait) assume (shr_valid && shr_num == shr_num_p);
  end

  // ---- Reference values --------------------------------------------------------
  logic [SW:0] rd_sum;
  logic [SW-1:0] rd_slot;
  assign rd_sum = (SW + 1)'(head_q) + (SW + 1)'(rd_req_idx);
  assign rd_slot = rd_sum >= (SW + 1)'(DEPTH) ? SW'(rd_sum - (SW + 1)'(DEPTH)) : SW'(rd_sum);
  wire rd_pending = SCOREBOARD ? pending_q[rd_slot] : 1'b0;
  wire rd_legal = (CW + IW)'(rd_req_idx) < (CW + IW)'(occ_q) && !rd_pending;
  // Reads accepted whose response has not been taken yet.
  logic [1:0] outstanding;
  wire rd_take = rd_req_valid && rd_req_ready && (CW + IW)'(rd_req_idx) < (CW + IW)'(DEPTH);
  wire rsp_take = rd_rsp_valid && rd_rsp_ready;
  always_ff @(posedge clk)
    if (!rst_n) outstanding <= '0;
    else outstanding <= outstanding + 2'(rd_take) - 2'(rsp_take);

  // ---- Properties --------------------------------------------------------------
  // Bounded liveness counters: cycles a legal request has waited while the
  // consumer kept taking responses.
  logic [3:0] rd_waited, shr_waited, fill_waited, upd_waited;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      rd_waited <= 0;
      shr_waited <= 0;
      fill_waited <= 0;
      upd_waited <= 0;
    end else begin
      rd_waited <= (rd_req_valid && !rd_req_ready && rd_legal && rd_rsp_ready) ? rd_waited + 1 : 0;
      shr_waited <= (shr_valid && !shr_ready && shr_num <= occ_q && !rd_req_valid) ? shr_waited + 1 : 0;
      fill_waited <= (fill_valid && !fill_ready) ? fill_waited + 1 : 0;
      upd_waited <= (upd_valid && !upd_ready) ? upd_waited + 1 : 0;
    end
  end

  always_comb
    if (started && rst_n) begin
      // P1: the occupancy never exceeds DEPTH.
      p_occupancy : assert (occ_q <= CW'(DEPTH));
      // P2: credits outstanding (on offer, collected, held by the producer) plus
      // the occupancy always add up to DEPTH.
      // (summed 4 bits wider than any term, so the sum cannot wrap)
      p_credits : assert ((CW + 6)'(credit_q) + (CW + 6)'(credit_acc_q) + (CW + 6)'(held) + (CW + 6)'(occ_q) ==
                          (CW + 6)'(DEPTH));
      // P3: no read is accepted for a slot not yet filled or awaiting an update.
      if (rd_take) p_read_filled : assert ((CW + IW)'(rd_req_idx) < (CW + IW)'(occ_q) && !rd_pending);
      // P4: responses come in request order, one per accepted read: the response
      // register holds exactly the reads accepted and not yet taken, and a new
      // read is accepted only when the previous response leaves in that cycle.
      p_order : assert (outstanding <= 1 && rd_rsp_valid == (outstanding == 1));
      // P5: bounded liveness.
      p_live_read : assert (rd_waited < MAX_WAIT);
      p_live_shrink : assert (shr_waited < MAX_WAIT);
      p_live_fill : assert (fill_waited < MAX_WAIT);
      p_live_update : assert (upd_waited < MAX_WAIT);
    end
endmodule
