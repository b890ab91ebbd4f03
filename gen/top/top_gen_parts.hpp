// Small helpers shared by the generators of the accelerator top (gen/top/*.cpp
// only): the register-file RAM instance and the last step of every part (its
// block entry and the module itself).
#pragma once

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

// A FIFO of `depth` entries (a power of two, at least 2) in flops, `<p>_*`: it
// decouples a producer from a consumer's ready without a combinational path
// between them (room is a registered count). Declares `<p>_<field>_q` per
// payload field, `<p>_head_q`, `<p>_cnt_q`, and the views `<p>_space` (room for
// a push), `<p>_valid` (an entry waits) and `<p>_<field>` (the head entry's
// field); emits the state in a section. `push` and `pop` are expressions of the
// caller's signals; a push needs `<p>_space` and a pop needs `<p>_valid`.
struct FifoField {
  std::string name;
  int width;
  std::string value;  // what a push stores
};
inline void small_fifo(SvModule& m, const std::string& p, const std::string& what, int depth,
                       const std::vector<FifoField>& fields, const std::string& push, const std::string& pop) {
  if (depth < 2 || (depth & (depth - 1)) != 0)
    throw std::logic_error(fmt::format("{}: FIFO depth {} is not a power of two >= 2", what, depth));
  const int hb = bits_for(depth - 1);  // head pointer bits
  const int cb = hb + 1;               // count bits
  // The tail is head + count modulo the depth: the count's low bits, added in
  // the head's width (for two entries, head ^ cnt[0]).
  const std::string tail = fmt::format("{0}_head_q + {0}_cnt_q[{1}:0]", p, hb - 1);
  std::string heads, writes;
  for (const auto& f : fields) {
    m.array(fmt::format("{}_{}_q", p, f.name), f.width, depth, fmt::format("{}: {}", what, f.name));
    m.signal(fmt::format("{}_{}", p, f.name), f.width, fmt::format("{}: the head entry's {}", what, f.name));
    heads += fmt::format("assign {0}_{1} = {0}_{1}_q[{0}_head_q];\n", p, f.name);
    writes += fmt::format("    if ({1}) {0}_{2}_q[{4}] <= {3};\n", p, push, f.name, f.value, tail);
  }
  m.signal(p + "_head_q", hb, what + ": head");
  m.signal(p + "_cnt_q", cb, what + ": entries");
  m.signal(p + "_space", 1, what + ": room for a push");
  m.signal(p + "_valid", 1, what + ": an entry waits");
  m.section(fmt::format("{} ({} entries)", what, depth), fmt::format(R"(assign {0}_space = ({0}_cnt_q != {5}'d{6});
assign {0}_valid = ({0}_cnt_q != {5}'d0);
{1}always_ff @(posedge clk) begin
  if (!rst_n) begin
    {0}_head_q <= '0;
    {0}_cnt_q  <= '0;
  end else begin
{2}    if ({4}) {0}_head_q <= {0}_head_q + {7}'d1;
    {0}_cnt_q <= {0}_cnt_q + {5}'({3}) - {5}'({4});
  end
end
)",
                                                 p, heads, writes, push, pop, cb, depth, hb));
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

// Round-robin pick among `n` requesters (a CB-bit index): SV for an
// always_comb body that sets `grant` to the first requester whose bit of
// `valid` is set after `last`, in the order last+1 .. last+n (the assignments
// run from the farthest to the nearest, so the nearest wins); `grant` stays
// `last` when none is.
inline std::string round_robin_pick(int n, int cb, const std::string& valid, const std::string& last,
                                    const std::string& grant) {
  std::string pick = fmt::format("  {} = {};\n  case ({})\n", grant, last, last);
  for (int l = 0; l < n; ++l) {
    pick += fmt::format("    {}: begin\n", sv_const(cb, l));
    for (int k = n; k >= 1; --k) {
      const int c = (l + k) % n;
      pick += fmt::format("      if ({}[{}]) {} = {};\n", valid, c, grant, sv_const(cb, c));
    }
    pick += "    end\n";
  }
  if ((1 << cb) != n) pick += "    default: ;\n";
  pick += "  endcase\n";
  return pick;
}

// Records the part in the design: its block entry (kind, params), then the module.
inline void finish_part(Design& design, SvModule& m, const std::string& kind, const nlohmann::json& params) {
  design.blocks.push_back(block_entry(m, kind, params));
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen::top_parts
