// Small helpers shared by the generators of the accelerator top (gen/top/*.cpp
// only): the register-file RAM instance and the last step of every part (its
// block entry and the module itself).
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "gen/design.hpp"
#include "gen/sv_module.hpp"

namespace cello::gen::top_parts {

// A one-write-port `ram_sram` instance of `depth` words of `width` bits,
// addressed by `addr_width` bits (its AW parameter), clk on clk and the other
// ports on the expressions given in `p` (finish_part records the primitive).
struct RamPorts {
  std::string we, waddr, wdata, re, raddr, rdata;
};
inline void ram_instance(SvModule& m, const std::string& name, int depth, int width, int addr_width,
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
}

// Connects every port of `part` to the top signal of the same name with a prefix
// ("" keeps the name), except those given explicitly in `explicit_ports`.
inline void connect_all(Instance& inst, const SvModule& part, const std::string& prefix,
                        const std::vector<std::pair<std::string, std::string>>& explicit_ports) {
  for (const auto& p : part.ports()) {
    std::string expr = prefix + p.name;
    for (const auto& [port, e] : explicit_ports)
      if (port == p.name) expr = e;
    inst.connect(p.name, expr);
  }
}

inline const SvModule& module_named(const Design& d, const std::string& name) {
  for (const auto& m : d.modules)
    if (m.name() == name) return m;
  throw std::logic_error("no generated module " + name);
}

// The width of `part`'s port `name`.
inline int port_width(const SvModule& part, const std::string& name) {
  for (const auto& p : part.ports())
    if (p.name == name) return p.width;
  throw std::logic_error(part.name() + " has no port " + name);
}

// Declares a top signal for every port of `part` (prefixed), except those listed.
inline void declare_part_signals(SvModule& top, const SvModule& part, const std::string& prefix,
                                 const std::vector<std::string>& skip) {
  for (const auto& p : part.ports()) {
    bool skipped = p.name == "clk" || p.name == "rst_n";
    for (const auto& s : skip) skipped = skipped || s == p.name;
    if (!skipped) top.signal(prefix + p.name, p.width, part.name() + "." + p.name);
  }
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

// A FIFO of `depth` entries (a power of two, at least 2), `<p>_*`: an instance
// `u_<p>_fifo` of rtl/fifo_sync.sv, which decouples a producer from a
// consumer's ready without a combinational path between them (room is a
// registered count). Declares the views `<p>_space` (room for a push),
// `<p>_valid` (an entry waits) and `<p>_<field>` (the head entry's field), and
// the packed entry `<p>_wdata` / `<p>_rdata`. `push` and `pop` are expressions
// of the caller's signals; a push needs `<p>_space` and a pop needs `<p>_valid`
// (the primitive asserts both in simulation).
struct FifoField {
  std::string name;
  int width;
  std::string value;  // what a push stores
};
inline void small_fifo(SvModule& m, const std::string& p, const std::string& what, int depth,
                       const std::vector<FifoField>& fields, const std::string& push, const std::string& pop) {
  if (depth < 2 || (depth & (depth - 1)) != 0)
    throw std::logic_error(fmt::format("{}: FIFO depth {} is not a power of two >= 2", what, depth));
  // The fields ride packed in one entry of rtl/fifo_sync.sv, the first field
  // in the top bits.
  int width = 0;
  std::string in, out;
  for (const auto& f : fields) {
    m.signal(fmt::format("{}_{}", p, f.name), f.width, fmt::format("{}: the head entry's {}", what, f.name));
    width += f.width;
    in += (in.empty() ? "" : ", ") + f.value;
    out += (out.empty() ? "" : ", ") + fmt::format("{}_{}", p, f.name);
  }
  m.signal(p + "_space", 1, what + ": room for a push");
  m.signal(p + "_valid", 1, what + ": an entry waits");
  m.signal(p + "_wdata", width, what + ": the entry a push stores");
  m.signal(p + "_rdata", width, what + ": the head entry");
  m.section(fmt::format("{} ({} entries, rtl/fifo_sync.sv)", what, depth),
            fmt::format("assign {0}_wdata = {{{1}}};\nassign {{{2}}} = {0}_rdata;", p, in, out));
  m.instantiate("fifo_sync", "u_" + p + "_fifo")
      .param("DEPTH", std::to_string(depth))
      .param("WIDTH", std::to_string(width))
      .connect("clk", "clk")
      .connect("rst_n", "rst_n")
      .connect("push", push)
      .connect("wdata", p + "_wdata")
      .connect("pop", pop)
      .connect("space", p + "_space")
      .connect("valid", p + "_valid")
      .connect("rdata", p + "_rdata");
}

// A lookup of `key` among `entries` tagged entries whose tags are distinct (at
// most one matches): SV that sets `hit` to `hit_value` and `sel` to `sel_value`
// (expressions of the loop index k) on the match, else 1'b0 and 0. `valid` and
// `tag` are the entries' arrays.
struct TagMatch {
  std::string entries, valid, tag, key;
  std::string hit, hit_value;  // e.g. "win_hit", "!inval"
  std::string sel, sel_value;  // e.g. "hit_line", "win_line_q[k]"
};
inline std::string tag_match(const TagMatch& t) {
  return fmt::format(R"(always_comb begin
  {hit} = 1'b0;
  {sel} = '0;
  for (int k = 0; k < {n}; k++)
    if ({valid}[k] && ({tag}[k] == {key})) begin
      {hit} = {hv};
      {sel} = {sv};
    end
end)",
                     fmt::arg("hit", t.hit), fmt::arg("sel", t.sel), fmt::arg("n", t.entries), fmt::arg("valid", t.valid),
                     fmt::arg("tag", t.tag), fmt::arg("key", t.key), fmt::arg("hv", t.hit_value), fmt::arg("sv", t.sel_value));
}

// Round-robin pick among `n` requesters (a CB-bit index): an instance
// `u_<grant>_pick` of rtl/rr_pick.sv that sets `grant` to the first requester
// whose bit of `valid` is set after `last`, in the order last+1 .. last+n;
// `grant` stays `last` when none is. The caller keeps `last` in a register.
inline void round_robin_pick(SvModule& m, int n, int cb, const std::string& valid, const std::string& last,
                             const std::string& grant) {
  m.instantiate("rr_pick", "u_" + grant + "_pick")
      .param("N", std::to_string(n))
      .param("CB", std::to_string(cb))
      .connect("valid", valid)
      .connect("last", last)
      .connect("grant", grant);
}

// Records the part in the design: its block entry (kind, params), the rtl/
// primitives it instantiates (the one place a top part's primitives are
// recorded, so the helpers that instantiate them need no Design), then the module.
inline void finish_part(Design& design, SvModule& m, const std::string& kind, const nlohmann::json& params) {
  design.blocks.push_back(block_entry(m, kind, params));
  static const std::vector<std::string> primitives = rtl_primitive_names();
  for (const std::string& child : m.instantiated_modules())
    if (std::find(primitives.begin(), primitives.end(), child) != primitives.end()) design.primitives.insert(child);
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen::top_parts
