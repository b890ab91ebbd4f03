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

// Interfaces that two parts of the top declare, each defined once.
// The command port: the words of commands.bin (the top's port, the decoder's input).
inline Bundle command_port() {
  return {"cmd", "command port", "a word of commands.bin", "taken",
          {{"data", 32, "the word (little-endian)"}, {"last", 1, "the file's final word"}}};
}
// Checked records, decoder to sequencer.
inline Bundle record_port() {
  return {"rec", "record", "a checked record", "taken",
          {{"data", 256, "the 32 record bytes, byte k at [8k +: 8]"}, {"index", 64, "its index in the stream"}}};
}
// The HOST handshake (sequencer and top): host_req and host_record out, host_ack in.
inline void host_ports(SvModule& m) {
  m.output("host_req", 1, "HOST: compute host_record's output in DRAM, then pulse host_ack");
  m.output("host_record", 64, "HOST: record index");
  m.input("host_ack", 1, "HOST: done (one-cycle pulse)");
}

// Records the part in the design: its block entry (kind, params), then the module.
inline void finish_part(Design& design, SvModule& m, const std::string& kind, const nlohmann::json& params) {
  design.blocks.push_back(block_entry(m, kind, params));
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen::top_parts
