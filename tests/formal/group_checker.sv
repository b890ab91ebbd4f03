// Properties of a generated buffet group's multicast credit vector
// (docs/buffet.md, "Formal proof of the credit vector"), proved with
// yosys-smtbmc by k-induction. group_formal.sh flattens the generated group,
// exposes a few of its registers and nets, and instantiates this checker
// beside it; nothing of it is inside the generated RTL.
//
// Environment (assumptions): reset in the first cycle and never again.
// Everything else (indices, masks, counts, data, back-pressure, illegal
// commands at every port) is free.
module group_checker #(
    parameter int K = 2,
    parameter int L2_DEPTH = 3,
    parameter int L1_DEPTH = 2,
    parameter int IW2 = 2,
    parameter int CW1 = 2
) (
    input logic clk,
    input logic rst_n,
    input logic rd_req_valid,
    input logic rd_req_ready,
    input logic [IW2-1:0] rd_req_idx,
    input logic [K-1:0] rd_req_mask,
    input logic [9:0] status_err,
    // exposed state of the group
    input logic [K*CW1-1:0] mc_cnt,      // the multicast unit's credit counters
    input logic [K*CW1-1:0] l1_occ,      // each L1's occupancy
    input logic [K*CW1-1:0] l1_cred,     // each L1's credits on offer
    input logic [K*CW1-1:0] l1_acc,      // each L1's credits collected while an offer waits
    input logic [K-1:0] l1_fill_valid,   // fills the unit drives
    input logic [K-1:0] l1_fill_ready,
    input logic l2_rd_req_ready,         // the L2 would accept the forwarded read
    input logic l2_rsp_q,                // the L2's response register is full
    input logic [1:0] mq_cnt,            // entries in the unit's mask FIFO (forwarded reads)
    input logic [K-1:0] mq_mask          // the oldest one's mask
);
  logic init = 1'b1;
  always_ff @(posedge clk) init <= 1'b0;
  always_comb begin
    if (init) assume (!rst_n);
    else assume (rst_n);
  end
  logic started = 1'b0;
  always_ff @(posedge clk) started <= !init;

  // Reads forwarded to the L2 (an index past the L2 is dropped before the unit).
  wire bad = (IW2 + 1)'(rd_req_idx) >= (IW2 + 1)'(L2_DEPTH);
  wire fwd = rd_req_valid && rd_req_ready && !bad;
  // Per target: slots reserved by a forwarded read whose fill has not landed,
  // counted from the ports (+1 when a read naming the target is forwarded, -1
  // when the unit fills the target).
  logic [3*K-1:0] held;  // target k in bits [3k +: 3]
  always_ff @(posedge clk)
    for (int k = 0; k < K; k++)
      if (!rst_n) held[3*k+:3] <= '0;
      else held[3*k+:3] <= held[3*k+:3] + 3'(fwd && rd_req_mask[k]) - 3'(l1_fill_valid[k]);

  logic all_credit;
  always_comb begin
    all_credit = 1'b1;
    for (int k = 0; k < K; k++) if (rd_req_mask[k] && mc_cnt[k*CW1+:CW1] == '0) all_credit = 1'b0;
  end

  always_comb
    if (started && rst_n) begin
      // G1: the mask FIFO holds exactly the read whose response is in the L2's register.
      p_one_in_flight : assert (mq_cnt == 2'(l2_rsp_q));
      for (int k = 0; k < K; k++) begin
        // G2 (unlabelled: one assertion per target): the slots reserved for target k are exactly the in-flight read's mask bit.
        assert (held[3*k+:3] == 3'(mq_cnt != 2'd0 && mq_mask[k]));
        // G3: no credit lost or duplicated: counter + credits the L1 still owes +
        // reserved slots + the L1's occupancy = the L1's depth.
        assert ((CW1 + 4)'(mc_cnt[k*CW1+:CW1]) + (CW1 + 4)'(l1_cred[k*CW1+:CW1]) +
                            (CW1 + 4)'(l1_acc[k*CW1+:CW1]) + (CW1 + 4)'(held[3*k+:3]) + (CW1 + 4)'(l1_occ[k*CW1+:CW1]) ==
                            (CW1 + 4)'(L1_DEPTH));
        // G4: a fill the unit sends always finds room.
        if (l1_fill_valid[k]) assert (l1_fill_ready[k]);
      end
      // G5: a read waits only while the L2 must hold it or a *masked* target has
      // no credit; an unmasked target never holds it back.
      if (rd_req_valid) p_stall_rule : assert (rd_req_ready == (bad || (l2_rd_req_ready && all_credit)));
      // G6: the unit never flags a response without a request or a refused fill.
      p_unit_ok : assert (status_err[9:8] == 2'b00);
    end
endmodule
