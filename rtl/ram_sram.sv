// ram_sram -- behavioural stand-in for a synchronous SRAM macro: NWR write ports
// and one read port with 1-cycle latency (rdata is valid the cycle after re).
// Hand-written primitive (rtl/); replace the body with a vendor macro for tapeout.
// Read-during-write of one address returns the old value.
module ram_sram #(
  parameter int DEPTH = 16,
  parameter int WIDTH = 32,
  parameter int AW    = 4,
  parameter int NWR   = 1,
  parameter int NBE   = 1   // write enables per word: NBE lanes of WIDTH / NBE bits (byte enables)
) (
  input  logic                 clk,
  input  logic [NWR*NBE-1:0]   we,     // write enables: port p, lane l at [p*NBE + l]
  input  logic [NWR*AW-1:0]    waddr,  // port p at [p*AW +: AW]
  input  logic [NWR*WIDTH-1:0] wdata,  // port p at [p*WIDTH +: WIDTH]
  input  logic                 re,     // read enable
  input  logic [AW-1:0]        raddr,
  output logic [WIDTH-1:0]     rdata   // registered: mem[raddr] of the previous cycle's read
);
  localparam int LANE = WIDTH / NBE;  // bits per write enable
  logic [WIDTH-1:0] mem [0:DEPTH-1];

  // One process per port and write-enable lane, unrolled by generate (not a
  // procedural loop, which Verilator does not unroll past 64 lanes, as a
  // 2048-bit word with byte enables has 256).
  for (genvar p = 0; p < NWR; p++) begin : g_port
    for (genvar l = 0; l < NBE; l++) begin : g_lane
      always_ff @(posedge clk) begin
        if (we[p*NBE + l]) mem[waddr[p*AW +: AW]][l*LANE +: LANE] <= wdata[p*WIDTH + l*LANE +: LANE];
      end
    end
  end

  always_ff @(posedge clk) begin
    if (re) rdata <= mem[raddr];
  end
endmodule
