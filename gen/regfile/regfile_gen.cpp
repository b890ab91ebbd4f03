#include "gen/regfile/regfile_gen.hpp"

#include <fmt/format.h>

#include "gen/sv_module.hpp"

namespace cello::gen {

namespace {

// Row loads: every word of the row is written, and the row reads as zero until
// its first load.
void row_loads(SvModule& m, const RegfileConfig& c, const std::string& in_range_ld) {
  const int RW = c.row_width(), W = c.cols * 32;
  const bool pow2 = (1 << RW) == c.rows;
  m.signal("ld_we", 1, "write enable");
  m.signal("ram_rdata", W, "RAM read data");
  m.signal("loaded_q", c.rows, "row has been loaded since reset");
  m.signal("rd_loaded", 1, "the row read is loaded");
  // A 1-bit loaded_q is a plain logic and is never indexed.
  std::string set_loaded = c.rows == 1 ? "loaded_q <= 1'b1;" : "loaded_q[ld_row] <= 1'b1;";
  std::string rd_loaded = c.rows == 1 ? "loaded_q && (rd_row == 1'd0)"
                                      : (pow2 ? "loaded_q[rd_row]"
                                              : fmt::format("(rd_row < {}) && loaded_q[rd_row]", sv_const(RW, c.rows)));
  m.section("Load and broadcast read", fmt::format(R"(
assign ld_ready  = 1'b1;
assign ld_we     = ld_valid{IN_RANGE};
assign rd_loaded = {RD_LOADED};
assign rd_data   = rd_loaded ? ram_rdata : {W}'d0;
always_ff @(posedge clk) begin
  if (!rst_n) loaded_q <= '0;
  else if (ld_we) {SET_LOADED}
end)",
                                                        fmt::arg("IN_RANGE", in_range_ld),
                                                        fmt::arg("RD_LOADED", rd_loaded), fmt::arg("W", W),
                                                        fmt::arg("SET_LOADED", set_loaded)));
}

// Word loads: a load writes the words its mask selects, and each word reads as
// zero until its first write (one written-bit per word).
void word_loads(SvModule& m, const RegfileConfig& c, const std::string& in_range_ld) {
  const int RW = c.row_width(), W = c.cols * 32, C = c.cols;
  const bool pow2 = (1 << RW) == c.rows;
  m.signal("ld_we", 1, "a load to a row that exists");
  m.signal("ram_we", C, "RAM word write enables: the load's mask");
  m.signal("ram_rdata", W, "RAM read data");
  m.array("written_q", C, c.rows, "per row: the words written since reset");
  m.signal("rd_written", C, "the words of the row read that have been written");
  // A one-row file is indexed by the constant 0 (its row index is 1 bit wide).
  const std::string ld_idx = c.rows == 1 ? "0" : "ld_row";
  std::string rd_written =
      c.rows == 1 ? fmt::format("(rd_row == 1'd0) ? written_q[0] : {}'d0", C)
                  : (pow2 ? "written_q[rd_row]"
                          : fmt::format("(rd_row < {}) ? written_q[rd_row] : {}'d0", sv_const(RW, c.rows), C));
  // A one-word row's written-bit is a plain logic and is never indexed.
  const std::string read =
      C == 1 ? "assign rd_data = rd_written ? ram_rdata : 32'd0;"
             : fmt::format("always_comb begin\n  for (int w = 0; w < {}; w++) rd_data[32*w +: 32] = "
                           "rd_written[w] ? ram_rdata[32*w +: 32] : 32'd0;\nend",
                           C);
  m.section("Word loads and broadcast read", fmt::format(R"(
assign ld_ready   = 1'b1;
assign ld_we      = ld_valid{IN_RANGE};
assign ram_we     = ld_we ? ld_mask : {C}'d0;
assign rd_written = {RD_WRITTEN};
{READ}
always_ff @(posedge clk) begin
  if (!rst_n) begin
    for (int r = 0; r < ROWS; r++) written_q[r] <= '0;
  end else if (ld_we) begin
    written_q[{LD_IDX}] <= written_q[{LD_IDX}] | ld_mask;
  end
end)",
                                                        fmt::arg("IN_RANGE", in_range_ld), fmt::arg("C", C),
                                                        fmt::arg("RD_WRITTEN", rd_written), fmt::arg("LD_IDX", ld_idx),
                                                        fmt::arg("READ", read)));
}

}  // namespace

void add_regfile(Design& design, const RegfileConfig& c, bool block) {
  const int RW = c.row_width(), W = c.cols * 32;
  const bool pow2 = (1 << RW) == c.rows;
  SvModule m(c.name,
             "Register file for a small fp32 tensor (up to 16 x 16): rows are loaded one per\n"
             "handshake from a ready/valid stream and read one row at a time; the read row is\n"
             "a broadcast vector (word w at rd_data[32*w +: 32]). The read is combinational and\n"
             "sees a row written in the same cycle only from the next cycle on. After reset\n"
             "every row reads as zero until it is loaded.");
  m.record_config(c.to_json());
  m.note(fmt::format("{} rows x {} fp32 words; loads always accepted{}.", c.rows, c.cols,
                     c.word_writes ? "; a load writes the words of its mask, and a word reads as zero until written"
                                   : ""));
  m.clock_reset("synchronous active-low reset (marks every row unloaded)");
  std::vector<Field> ld = {{"row", RW, pow2 ? "row index" : "row index (rows >= ROWS are dropped)"}};
  if (c.word_writes) ld.push_back({"mask", c.cols, "words written: bit w writes word w"});
  ld.push_back({"data", W, "row data, word w at [32*w +: 32]"});
  m.sink({"ld", "load", "a row is offered", "always ready (one row per cycle)", ld});
  m.input("rd_row", RW, pow2 ? "read: row index" : "read: row index (rows >= ROWS read as zero)");
  m.output("rd_data", W, "read: broadcast row");
  m.localparam("ROWS", std::to_string(c.rows), "rows");
  std::string in_range_ld = pow2 ? "" : fmt::format(" && (ld_row < {})", sv_const(RW, c.rows));
  if (c.word_writes)
    word_loads(m, c, in_range_ld);
  else
    row_loads(m, c, in_range_ld);
  design.primitives.insert("ram_flop");
  auto& ram = m.instantiate("ram_flop", "u_ram")
                  .param("DEPTH", "ROWS")
                  .param("WIDTH", std::to_string(W))
                  .param("AW", std::to_string(RW))
                  .param("NWR", "1");
  if (c.word_writes) ram.param("NBE", std::to_string(c.cols));
  ram.connect("clk", "clk")
      .connect("we", c.word_writes ? "ram_we" : "ld_we")
      .connect("waddr", "ld_row")
      .connect("wdata", "ld_data")
      .connect("raddr", "rd_row")
      .connect("rdata", "ram_rdata");
  if (block) design.blocks.push_back(block_entry(m, "regfile", c.to_json()));
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen
