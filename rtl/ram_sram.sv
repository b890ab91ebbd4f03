// ram_sram -- behavioural stand-in for a synchronous SRAM macro: NWR write ports
// and one read port with 1-cycle latency (rdata is valid the cycle after re).
// Hand-written primitive (rtl/); replace the body with a vendor macro for tapeout.
// Read-during-write of one address returns the old value.
module ram_sram #(
  parameter int DEPTH = 16,
  parameter int WIDTH = 32,
  parameter int AW    = 4,
  parameter int NWR   = 1
) (
  input  logic                 clk,
  input  logic [NWR-1:0]       we,     // write enables, one per port
  input  logic [NWR*AW-1:0]    waddr,  // port p at [p*AW +: AW]
  input  logic [NWR*WIDTH-1:0] wdata,  // port p at [p*WIDTH +: WIDTH]
  input  logic                 re,     // read enable
  input  logic [AW-1:0]        raddr,
  output logic [WIDTH-1:0]     rdata   // registered: mem[raddr] of the previous cycle's read
);
  logic [WIDTH-1:0] mem [0:DEPTH-1];

  always_ff @(posedge clk) begin
    for (int p = 0; p < NWR; p++) begin
      if (we[p]) mem[waddr[p*AW +: AW]] <= wdata[p*WIDTH +: WIDTH];
    end
    if (re) rdata <= mem[raddr];
  end
endmodule
