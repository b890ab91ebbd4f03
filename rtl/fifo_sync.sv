// fifo_sync -- synchronous FIFO of DEPTH entries (a power of two, at least 2)
// of WIDTH bits. Hand-written primitive (rtl/), copied verbatim into every
// `cello gen` output that instantiates it.
//
// Interface (not ready/valid on the push side: the caller decides a push from
// `space`, so the FIFO decouples a producer from its consumer's ready):
//   push  stores wdata at the tail; only when `space` (asserted in simulation);
//   pop   drops the head; only when `valid` (asserted in simulation);
//   space room for a push: a registered count, with no path from pop, so a
//         push never waits on the same cycle's pop (a full FIFO refuses a push
//         even when it pops);
//   valid an entry waits, and rdata is the head entry (the oldest push).
// A push and a pop in one cycle keep the count. Reset empties the FIFO; the
// entries themselves are not reset.
module fifo_sync #(
  parameter int DEPTH = 2,
  parameter int WIDTH = 8
) (
  input  logic             clk,
  input  logic             rst_n,
  input  logic             push,
  input  logic [WIDTH-1:0] wdata,
  input  logic             pop,
  output logic             space,
  output logic             valid,
  output logic [WIDTH-1:0] rdata
);
  localparam int HB = $clog2(DEPTH);  // head pointer bits
  localparam logic [HB:0] FULL = (HB+1)'(DEPTH);
  localparam logic [HB:0] NONE = '0;
  localparam logic [HB-1:0] HEAD_ONE = HB'(1);

  logic [WIDTH-1:0] mem_q [0:DEPTH-1];
  logic [HB-1:0]    head_q;  // the oldest entry
  logic [HB:0]      cnt_q;   // entries held
  logic [HB-1:0]    tail;    // where a push lands: head + count, modulo the depth

  assign tail  = head_q + cnt_q[HB-1:0];
  assign space = (cnt_q != FULL);
  assign valid = (cnt_q != NONE);
  assign rdata = mem_q[head_q];

  always_ff @(posedge clk) begin
    if (push) mem_q[tail] <= wdata;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      head_q <= '0;
      cnt_q  <= '0;
    end else begin
      if (pop) head_q <= head_q + HEAD_ONE;
      cnt_q <= cnt_q + {{HB{1'b0}}, push} - {{HB{1'b0}}, pop};
    end
  end

`ifndef SYNTHESIS
  // The caller's contract; a testbench verilated with --assert stops on a breach.
  always_ff @(posedge clk) begin
    if (rst_n) begin
      assert (!push || space) else $error("fifo_sync: push into a full FIFO");
      assert (!pop || valid) else $error("fifo_sync: pop from an empty FIFO");
    end
  end
`endif
endmodule
