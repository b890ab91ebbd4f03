// rr_pick -- round-robin pick among N requesters. Hand-written primitive
// (rtl/), copied verbatim into every `cello gen` output that instantiates it.
//
// Combinational: `grant` is the first requester whose `valid` bit is set in
// the order last+1, last+2, ..., last+N (modulo N), so `last` itself comes
// last; with no valid bit, `grant` is `last`. The caller keeps `last` (the
// requester it granted most recently) in a register. `last` must be below N;
// a larger value (only possible when N is not a power of two) grants `last`.
// Each order is unrolled for each value of `last`, so the logic is a
// multiplexer of N priority chains, with no arithmetic on `last`.
module rr_pick #(
  parameter int N  = 2,
  parameter int CB = 1   // bits of a requester index: at least $clog2(N), and 1 for N = 1
) (
  input  logic [N-1:0]  valid,
  input  logic [CB-1:0] last,
  output logic [CB-1:0] grant
);
  always_comb begin
    grant = last;
    for (int l = 0; l < N; l++) begin
      if (last == CB'(l)) begin
        // From the farthest to the nearest, so the nearest valid one wins.
        for (int k = N; k >= 1; k--) begin
          if (valid[(l + k) % N]) grant = CB'((l + k) % N);
        end
      end
    end
  end
endmodule
