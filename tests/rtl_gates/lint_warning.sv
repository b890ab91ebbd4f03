// Deliberately bad: a width mismatch that `verilator --lint-only -Wall` warns
// about. The gate test expects scripts/check_rtl.sh to reject it.
module lint_warning (
  input  logic [7:0] a,
  output logic [3:0] y
);
  assign y = a;
endmodule
