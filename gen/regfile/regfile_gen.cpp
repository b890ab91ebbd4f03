#include "gen/regfile/regfile_gen.hpp"

#include <fmt/format.h>

#include "gen/sv_module.hpp"

namespace cello::gen {

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
  m.note(fmt::format("{} rows x {} fp32 words; loads always accepted.", c.rows, c.cols));
  m.clock_reset("synchronous active-low reset (marks every row unloaded)");
  m.sink({"ld", "load", "a row is offered", "always ready (one row per cycle)",
          {{"row", RW, pow2 ? "row index" : "row index (rows >= ROWS are dropped)"},
           {"data", W, "row data, word w at [32*w +: 32]"}}});
  m.input("rd_row", RW, pow2 ? "read: row index" : "read: row index (rows >= ROWS read as zero)");
  m.output("rd_data", W, "read: broadcast row");
  m.localparam("ROWS", std::to_string(c.rows), "rows");
  m.signal("ld_we", 1, "write enable");
  m.signal("ram_rdata", W, "RAM read data");
  m.signal("loaded_q", c.rows, "row has been loaded since reset");
  m.signal("rd_loaded", 1, "the row read is loaded");
  std::string in_range_ld = pow2 ? "" : fmt::format(" && (ld_row < {})", sv_const(RW, c.rows));
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
  design.primitives.insert("ram_flop");
  m.instantiate("ram_flop", "u_ram")
      .param("DEPTH", "ROWS")
      .param("WIDTH", std::to_string(W))
      .param("AW", std::to_string(RW))
      .param("NWR", "1")
      .connect("clk", "clk")
      .connect("we", "ld_we")
      .connect("waddr", "ld_row")
      .connect("wdata", "ld_data")
      .connect("raddr", "rd_row")
      .connect("rdata", "ram_rdata");
  if (block) design.blocks.push_back(block_entry(m, "regfile", c.to_json()));
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen
