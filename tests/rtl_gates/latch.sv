// Deliberately bad: an incomplete combinational assignment infers a latch.
// The gate test expects scripts/check_rtl.sh to reject it.
module latch (
  input  logic en,
  input  logic d,
  output logic q
);
  always_latch begin
    if (en) q = d;
  end
endmodule
