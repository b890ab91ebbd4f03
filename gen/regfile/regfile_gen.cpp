#include "regfile/regfile_gen.hpp"

#include <fmt/format.h>

#include "sv_module.hpp"

namespace cello::gen {

void add_regfile(Design& design, const RegfileConfig& c, bool block) {
  const int RW = c.row_width(), W = c.cols * 32;
  const bool pow2 = (1 << RW) == c.rows;
  SvModule m(c.name,
             "Register file for a small fp32 tensor (up to 16 x 16): rows are loaded one per\n"
             "handshake from a ready/valid stream and read one row at a time; the read row is\n"
             "a broadcast vector (word w at rd_data[32*w +: 32]). The read is combinational and\n"
             "sees a row written in the same cycle only from the next cycle on.");
  m.record_config(c.to_json());
  m.note(fmt::format("{} rows x {} fp32 words; no reset (pure storage), loads always accepted.", c.rows, c.cols));
  m.input("clk", 1, "clock");
  m.input("ld_valid", 1, "load: a row is offered");
  m.output("ld_ready", 1, "load: always ready (one row per cycle)");
  m.input("ld_row", RW, pow2 ? "load: row index" : "load: row index (rows >= ROWS are dropped)");
  m.input("ld_data", W, "load: row data, word w at [32*w +: 32]");
  m.input("rd_row", RW, pow2 ? "read: row index" : "read: row index (rows >= ROWS read as zero)");
  m.output("rd_data", W, "read: broadcast row");
  m.localparam("ROWS", std::to_string(c.rows), "rows");
  m.signal("ld_we", 1, "write enable");
  m.signal("ram_rdata", W, "RAM read data");
  std::string in_range_ld = pow2 ? "" : fmt::format(" && (ld_row < {})", sv_const(RW, c.rows));
  std::string rd = pow2 ? "ram_rdata" : fmt::format("(rd_row < {}) ? ram_rdata : {}'d0", sv_const(RW, c.rows), W);
  m.section("Load and broadcast read", fmt::format(R"(
assign ld_ready = 1'b1;
assign ld_we    = ld_valid{0};
assign rd_data  = {1};)",
                                                        in_range_ld, rd));
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
  if (block) {
    nlohmann::json ports = nlohmann::json::array();
    for (const auto& p : m.ports())
      ports.push_back({{"name", p.name}, {"dir", p.dir == Dir::In ? "input" : "output"}, {"width", p.width}});
    design.blocks.push_back({{"kind", "regfile"}, {"module", c.name}, {"params", c.to_json()}, {"ports", ports}});
  }
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen
