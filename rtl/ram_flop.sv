// ram_flop -- flop-array RAM with NWR write ports and one combinational read port.
// Hand-written primitive (rtl/), copied verbatim into every `cello gen` output.
// Write ports are independent; callers never write one address from two ports in
// the same cycle. A read of an address written in the same cycle returns the old
// value (the write lands at the clock edge).
module ram_flop #(
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
  input  logic [AW-1:0]        raddr,
  output logic [WIDTH-1:0]     rdata
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

  assign rdata = mem[raddr];
endmodule
