// fp32_fma_rv -- fp32_fma behind ready/valid handshakes. Hand-written primitive.
// One operand triple enters per cycle when in_valid && in_ready; results leave
// in order after STAGES cycles. The whole pipeline holds while an output is
// offered and not taken (out_valid && !out_ready), so out_data stays stable and
// in_ready = !out_valid || out_ready. out_valid never depends on out_ready.
module fp32_fma_rv #(
  parameter int STAGES = 3
) (
  input  logic        clk,
  input  logic        rst_n,     // synchronous, active low
  input  logic        in_valid,
  output logic        in_ready,
  input  logic [31:0] in_a,
  input  logic [31:0] in_b,
  input  logic [31:0] in_c,
  output logic        out_valid,
  input  logic        out_ready,
  output logic [31:0] out_data   // in_a * in_b + in_c, see fp32_fma
);
  logic              advance;
  logic [STAGES-1:0] valid_q;  // valid_q[i]: register level i+1 holds an operation

  assign advance   = !valid_q[STAGES-1] || out_ready;
  assign in_ready  = advance;
  assign out_valid = valid_q[STAGES-1];

  always_ff @(posedge clk) begin
    if (!rst_n) valid_q <= '0;
    else if (advance) begin
      valid_q[0] <= in_valid;
      for (int i = 1; i < STAGES; i++) valid_q[i] <= valid_q[i-1];
    end
  end

  fp32_fma #(.STAGES(STAGES)) u_fma (
    .clk (clk),
    .en  (advance),
    .a   (in_a),
    .b   (in_b),
    .c   (in_c),
    .y   (out_data)
  );
endmodule
