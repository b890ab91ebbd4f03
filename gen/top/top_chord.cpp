#include "gen/top/top_chord.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "gen/top/top_gen_parts.hpp"
#include "sw/common/bits.hpp"

namespace cello::gen {

namespace {

using top_parts::port_width;

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// Where each port of the CHORD block goes: the command unit's commands, the
// units port's reads and writes, the DRAM adapter, and the top's counter and
// monitor ports. Addresses widen from granules to CHORD's word addresses.
std::vector<std::pair<std::string, std::string>> chord_block_ports(const SvModule& chord) {
  std::vector<std::pair<std::string, std::string>> map = {{"clk", "clk"}, {"rst_n", "rst_n"}};
  for (const auto& p : chord.ports()) {
    const std::string& n = p.name;
    std::string to;
    if (n == "cmd_base" || n == "cmd_end" || n == "wr_addr" || n == "rd_req_addr")
      to = fmt::format("{}'({}{})", p.width, starts_with(n, "cmd_") ? "cc_" : "cp_ch_", n);
    else if (starts_with(n, "cmd_")) to = "cc_" + n;
    else if (starts_with(n, "wr_") || starts_with(n, "rd_req_") || n == "rd_rsp_valid" || n == "rd_rsp_ready" ||
             n == "rd_rsp_data")
      to = "cp_ch_" + n;
    else if (starts_with(n, "rd_rsp_")) to = "chord_mon_" + n.substr(3);  // hit, err
    else if (starts_with(n, "cnt_") || starts_with(n, "mon_")) to = "chord_" + n;
    else if (n == "dram_req_addr" || n == "status_err") to = "cb_" + n;
    else if (starts_with(n, "dram_")) to = "cd_c_" + n.substr(5);
    if (!to.empty()) map.emplace_back(n, to);
  }
  return map;
}

// The router's inputs (the sequencer's regions, the command unit's answers),
// the read units' and the store unit's requests into the units port.
std::string route_wiring(const ChordDatapathShape& s) {
  const int AW = s.addr_bits, GB = std::countr_zero(static_cast<unsigned>(s.granule_bytes)), IW = s.id_bits;
  std::string addrs, valids, tags, units, grants;
  for (size_t i = 0; i < s.read_units.size(); ++i) {
    const std::string& u = s.read_units[i];
    const std::string sep = i ? ", " : "";
    addrs = fmt::format("{}_dram_req_addr[{}:{}]", u, AW - 1, GB) + sep + addrs;
    valids = fmt::format("{0}_dram_req_valid && {0}_to_chord", u) + sep + valids;
    tags = u + "_dram_req_tag" + sep + tags;
    units += fmt::format("assign {0}_to_chord = cr_r_chord[{1}];\nassign {0}_fill_wait = cr_r_fill[{1}] && !fc_credit;\n", u, i);
    grants += std::string(i ? " || " : "") + fmt::format("({0}_dram_req_valid && {0}_dram_req_ready && cr_r_fill[{1}])", u, i);
  }
  return fmt::format(R"(
// The router: the launch's read operands (regions from the sequencer, live /
// fill / id from the command unit's mirror) and its result, latched at start.
assign cr_load     = seq_eng_start;
assign cr_op_base  = seq_rt_base;
assign cr_op_col   = seq_rt_col;
assign cr_op_val   = seq_rt_val;
assign cr_op_end   = seq_rt_end;
assign cr_op_csr   = seq_rt_csr;
assign cr_op_live  = cc_q_live[3:1] & seq_rt_present;
assign cr_op_fill  = cc_q_fill[3:1];
assign cr_op_id    = cc_q_id[{IW4}:{IW}];
assign cr_res_live = cc_q_live[0];
assign cr_res_id   = cc_q_id[{IW1}:0];
// A read unit's granule request goes to CHORD or to the DRAM arbiter.
assign cr_r_addr   = {{{ADDRS}}};
{UNITS}// A fill read granted by the arbiter takes a fill credit (at most one grant a cycle).
assign fc_grant       = {GRANTS};
assign cp_r_req_valid = {{{VALIDS}}};
assign cp_r_req_addr  = cr_r_addr;
assign cp_r_req_id    = cr_r_id;
assign cp_r_req_tag   = {{{TAGS}}};
// The store unit's granule writes go to CHORD when the result is live.
assign st_to_chord    = cr_w_chord;
assign cp_w_req_valid = st_dram_req_valid && st_to_chord;
assign cp_w_req_addr  = st_dram_req_addr[{AW1}:{GB}];
assign cp_w_req_id    = cr_w_id;
assign cp_w_req_data  = st_dram_req_data;
assign cp_w_req_strb  = st_dram_req_strb;
)",
                     fmt::arg("IW4", 4 * IW - 1), fmt::arg("IW", IW), fmt::arg("IW1", IW - 1), fmt::arg("ADDRS", addrs),
                     fmt::arg("UNITS", units), fmt::arg("GRANTS", grants), fmt::arg("VALIDS", valids), fmt::arg("TAGS", tags),
                     fmt::arg("AW1", AW - 1), fmt::arg("GB", GB));
}

// Every DRAM response passes one register stage. The granule address of each
// read request is kept by its tag (fa_*); a load unit's read of a granule of an
// operand whose reads are fills is also pushed into the fill queue, whose head
// CHORD's write port takes. A response never waits for CHORD: CHORD's writes
// may wait for its DRAM queue, which drains only while DRAM answers. So a
// unit's fill read goes to the arbiter only with a fill credit (fc_q counts
// the fill reads granted and not yet written into CHORD), and the queue always
// has room for the answer.
// The fill-address RAM is indexed by a tag's client field and its load-unit tag
// bits: only a load unit's reads are fills (a wider tag, CHORD's adapter's, may
// alias there).
int fill_addr_bits(const ChordDatapathShape& s) { return std::min(s.dram_tag_bits, s.client_bits + s.unit_tag_bits); }

std::string fill_stage(const ChordDatapathShape& s) {
  const int AW = s.addr_bits, GB = std::countr_zero(static_cast<unsigned>(s.granule_bytes)), DT = s.dram_tag_bits,
            CB = s.client_bits;
  std::string others;
  for (int c : s.non_fill_clients) others += fmt::format(" && (fs_tag_q[{}:{}] != {}'d{})", DT - 1, DT - CB, CB, c);
  const auto index = [&](const char* tag) {
    return fill_addr_bits(s) < DT
               ? fmt::format("{{{0}[{1}:{2}], {0}[{3}:0]}}", tag, DT - 1, DT - CB, s.unit_tag_bits - 1)
               : std::string(tag);
  };
  return fmt::format(R"(
assign fa_we          = dram_req_valid && dram_req_ready && !dram_req_write;
assign fa_waddr       = {WADDR};
assign fa_wdata       = dram_req_addr[{AW1}:{GB}];
assign fa_re          = dram_rsp_valid && dram_rsp_ready;
assign fa_raddr       = {RADDR};
assign dram_rsp_ready = !fs_valid_q || fs_take;
always_ff @(posedge clk) begin
  if (!rst_n) fs_valid_q <= 1'b0;
  else if (dram_rsp_ready) begin
    fs_valid_q <= dram_rsp_valid;
    fs_rdata_q <= dram_rsp_rdata;
    fs_tag_q   <= dram_rsp_tag;
  end
end
assign cr_f_addr      = fa_rdata;
assign fs_fill        = cr_f_fill{OTHERS};
assign fs_rsp_valid   = fs_valid_q;
assign fs_rsp_rdata   = fs_rdata_q;
assign fs_rsp_tag     = fs_tag_q;
assign fs_take        = fs_rsp_valid && fs_rsp_ready;
assign fq_push        = fs_take && fs_fill;
assign cp_f_req_valid = fq_valid;
assign cp_f_req_addr  = fq_addr;
assign cp_f_req_id    = fq_id;
assign cp_f_req_data  = fq_data;
assign fq_pop         = fq_valid && cp_f_req_ready;
assign fc_credit      = fc_q != {FCB}'d{FQ};
always_ff @(posedge clk) begin
  if (!rst_n) fc_q <= '0;
  else fc_q <= fc_q + {FCB}'(fc_grant) - {FCB}'(fq_pop);
end
)",
                     fmt::arg("AW1", AW - 1), fmt::arg("GB", GB), fmt::arg("OTHERS", others),
                     fmt::arg("FCB", bits_for(s.fill_queue)), fmt::arg("FQ", s.fill_queue),
                     fmt::arg("WADDR", index("dram_req_tag")), fmt::arg("RADDR", index("dram_rsp_tag")));
}

}  // namespace

void chord_datapath_ports(SvModule& top, const SvModule& chord) {
  for (const auto& p : chord.ports()) {
    if (starts_with(p.name, "cnt_") || starts_with(p.name, "mon_"))
      top.output("chord_" + p.name, p.width, "CHORD " + p.comment);
    else if (p.name == "rd_rsp_hit" || p.name == "rd_rsp_err")
      top.output("chord_mon_" + p.name.substr(3), p.width, "CHORD monitor, " + p.comment);
  }
}

void chord_datapath(Design& design, SvModule& m, const ChordDatapathShape& s) {
  const SvModule& cb = top_parts::module_named(design, s.chord_module);
  const SvModule& cc = top_parts::module_named(design, s.cmd_module);
  const SvModule& cp = top_parts::module_named(design, s.port_module);
  const SvModule& cd = top_parts::module_named(design, s.dram_module);
  const SvModule& cr = top_parts::module_named(design, s.route_module);
  const int GA = s.addr_bits - std::countr_zero(static_cast<unsigned>(s.granule_bytes));
  const int chord_aw = port_width(cb, "dram_req_addr");
  // The command unit's events and routing questions come from the sequencer's ports.
  std::vector<std::pair<std::string, std::string>> cc_ports = {{"clk", "clk"}, {"rst_n", "rst_n"},
                                                              {"q_tensor", "seq_q_tensor"}};
  for (const auto& p : cc.ports())
    if (starts_with(p.name, "ev_")) cc_ports.emplace_back(p.name, "seq_" + p.name);
  std::vector<std::string> from_sequencer;
  for (const auto& [port, signal] : cc_ports) from_sequencer.push_back(port);
  top_parts::declare_part_signals(m, cc, "cc_", from_sequencer);
  top_parts::declare_part_signals(m, cp, "cp_", {});
  top_parts::declare_part_signals(m, cd, "cd_", {});
  top_parts::declare_part_signals(m, cr, "cr_", {});
  m.signal("cb_dram_req_addr", chord_aw, "CHORD.dram_req_addr");
  m.signal("cb_status_err", port_width(cb, "status_err"), "CHORD.status_err");
  for (const auto& u : s.read_units) {
    m.signal(u + "_to_chord", 1, "this unit's granule request goes to CHORD");
    m.signal(u + "_fill_wait", 1, "this unit's request is a fill read and no fill credit is left");
  }
  m.signal("fc_q", bits_for(s.fill_queue), "fill credits taken: fill reads granted and not yet written into CHORD");
  m.signal("fc_credit", 1, "a fill read may be granted");
  m.signal("fc_grant", 1, "the arbiter grants a fill read");
  m.signal("fq_push", 1, "fill queue: a fill's granule arrives");
  m.signal("fq_pop", 1, "fill queue: CHORD takes the head");
  m.signal("st_to_chord", 1, "the store unit's writes go to CHORD");
  for (const char* p : {"we", "re"}) m.signal(fmt::format("fa_{}", p), 1, "fill address RAM");
  const int FA = fill_addr_bits(s);
  m.signal("fa_waddr", FA, "fill address RAM: a read request's client and unit tag");
  m.signal("fa_raddr", FA, "fill address RAM: a response's client and unit tag");
  m.signal("fa_wdata", GA, "fill address RAM: the read's granule");
  m.signal("fa_rdata", GA, "fill address RAM: the staged response's granule");
  m.signal("fs_valid_q", 1, "fill stage: holds a DRAM response");
  m.signal("fs_rdata_q", 8 * s.granule_bytes, "fill stage: its data");
  m.signal("fs_tag_q", s.dram_tag_bits, "fill stage: its tag");
  m.signal("fs_fill", 1, "fill stage: a load unit's read of a filling operand");
  m.signal("fs_take", 1, "fill stage: the arbiter takes the response");
  top_parts::small_fifo(m, "fq", "fill queue", s.fill_queue,
                        {{"addr", GA, "fa_rdata"}, {"id", s.id_bits, "cr_f_id"}, {"data", 8 * s.granule_bytes, "fs_rdata_q"}},
                        "fq_push", "fq_pop");
  for (const char* p : {"valid", "ready"}) m.signal(fmt::format("fs_rsp_{}", p), 1, "fill stage to the arbiter");
  m.signal("fs_rsp_rdata", 8 * s.granule_bytes, "fill stage to the arbiter");
  m.signal("fs_rsp_tag", s.dram_tag_bits, "fill stage to the arbiter");
  m.signal("chord_quiet", 1, "CHORD and its parts hold nothing in flight");
  m.signal("chord_err", 1, "CHORD reported an illegal command or access, or the command unit an overflow");
  m.signal("chord_proto", 1, "a protocol error at CHORD's ports");

  top_parts::connect_all(m.instantiate(cc.name(), "u_chord_cmd"), cc, "cc_", cc_ports);
  top_parts::connect_all(m.instantiate(cp.name(), "u_chord_port"), cp, "cp_", {{"clk", "clk"}, {"rst_n", "rst_n"}});
  top_parts::connect_all(m.instantiate(cd.name(), "u_chord_dram"), cd, "cd_", {{"clk", "clk"}, {"rst_n", "rst_n"}});
  top_parts::connect_all(m.instantiate(cr.name(), "u_chord_route"), cr, "cr_", {{"clk", "clk"}, {"rst_n", "rst_n"}});
  top_parts::connect_all(m.instantiate(cb.name(), "u_chord"), cb, "", chord_block_ports(cb));
  top_parts::ram_instance(m, "u_fill_addr", 1 << FA, GA, FA,
                          {"fa_we", "fa_waddr", "fa_wdata", "fa_re", "fa_raddr", "fa_rdata"});
  const std::string high = chord_aw > GA ? fmt::format(" || (cd_c_req_valid && cb_dram_req_addr[{}:{}] != '0)", chord_aw - 1, GA)
                                         : std::string();
  m.section("CHORD on the datapath", route_wiring(s) + fill_stage(s) + fmt::format(R"(
// CHORD's DRAM port through its adapter (an arbiter client); its word
// addresses are the memory's granule addresses.
assign cd_c_req_addr  = cb_dram_req_addr[{GA1}:0];
// The sequencer sends a launch's start event once the command unit and CHORD
// are idle and CHORD's write-backs have landed, starts it once the command
// unit has sent its claims, and sends the launch's end once its accesses are
// done.
assign seq_ch_idle    = cc_idle && cc_cmd_ready && !cd_c_req_valid && cd_idle;
assign seq_ch_sent    = cc_idle;
assign seq_ch_drained = cp_idle && !fs_valid_q && !fq_valid;
assign chord_quiet    = seq_ch_idle && seq_ch_drained;
// A launch whose result the command unit calls an input still to be read
// whole cannot follow the sequencer's checks (a result is never an input): it
// would mean the unit's mirror is wrong, so it stops the top. The host reads
// and writes DRAM only, so a HOST record naming a tensor live in CHORD is one
// this top cannot run: it stops with chord_error rather than give wrong values.
assign chord_err      = (cb_status_err != '0) || cc_err || (cr_load && cc_q_fill[0]) || (host_req && (cc_q_live[2:0] != '0));
// A fill with no room in the queue would mean the credits failed: a protocol error.
assign chord_proto    = cp_proto_err || cd_proto_err || (fq_push && !fq_space){HIGH};)",
                                                                          fmt::arg("GA1", GA - 1), fmt::arg("HIGH", high)));
}

}  // namespace cello::gen
