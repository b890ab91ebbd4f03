// Small helpers shared by the generators of the accelerator top (gen/top/*.cpp
// only): the register-file RAM instance and the last step of every part (its
// block entry and the module itself).
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "gen/design.hpp"
#include "gen/sv_module.hpp"

namespace cello::gen::top_parts {

// A one-write-port `ram_sram` instance of `depth` words of `width` bits,
// addressed by `addr_width` bits (its AW parameter), clk on clk and the other
// ports on the expressions given in `p`; records the primitive in the design.
struct RamPorts {
  std::string we, waddr, wdata, re, raddr, rdata;
};
inline void ram_instance(Design& design, SvModule& m, const std::string& name, int depth, int width, int addr_width,
                         const RamPorts& p) {
  m.instantiate("ram_sram", name)
      .param("DEPTH", std::to_string(depth))
      .param("WIDTH", std::to_string(width))
      .param("AW", std::to_string(addr_width))
      .param("NWR", "1")
      .connect("clk", "clk")
      .connect("we", p.we)
      .connect("waddr", p.waddr)
      .connect("wdata", p.wdata)
      .connect("re", p.re)
      .connect("raddr", p.raddr)
      .connect("rdata", p.rdata);
  design.primitives.insert("ram_sram");
}

// Records the part in the design: its block entry (kind, params), then the module.
inline void finish_part(Design& design, SvModule& m, const std::string& kind, const nlohmann::json& params) {
  design.blocks.push_back(block_entry(m, kind, params));
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen::top_parts
