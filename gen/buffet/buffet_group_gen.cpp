#include "gen/buffet/buffet_group_gen.hpp"

#include <fmt/format.h>

#include "gen/buffet/buffet_gen.hpp"
#include "gen/buffet/multicast_gen.hpp"
#include "gen/sv_module.hpp"

namespace cello::gen {

namespace group_parts {

struct GroupShape {
  const BuffetGroupConfig& c;
  BuffetConfig l2, l1;
  int K, W, IW2, CW2, IW1, CW1;
  bool mc;        // K > 1: the multicast unit sits between the L2 and the L1s
  bool can_bad;   // an L2 read index can be >= the L2 depth (depth not a power of two)

  explicit GroupShape(const BuffetGroupConfig& cfg)
      : c(cfg), l2(cfg.l2()), l1(cfg.l1()), K(cfg.targets), W(cfg.data_width), IW2(l2.index_width),
        CW2(l2.count_width()), IW1(l1.index_width), CW1(l1.count_width()), mc(cfg.multicast()),
        can_bad((1LL << l2.index_width) > cfg.l2_depth) {}
};

// "sig[hi:lo]" of lane k of a packed K-lane signal whose lanes are w bits.
std::string lane(const std::string& sig, int k, int w) { return fmt::format("{}[{}:{}]", sig, (k + 1) * w - 1, k * w); }

void declare_ports(SvModule& m, const GroupShape& s) {
  m.clock_reset();
  m.sink({"fill", "L2 fill (from DRAM)", "producer offers fill_data", "the L2 has a free slot",
          {{"data", s.W, "element appended at the L2's tail"}}});
  m.source({"credit", "L2 credits", "free L2 slots returned to the fill producer", "producer takes credit_num",
            {{"num", s.CW2, "count returned (L2 depth after reset, then each L2 shrink)"}}});
  std::vector<Field> rd = {{"idx", s.IW2, "L2 index relative to its oldest element"}};
  if (s.mc) rd.push_back({"mask", s.K, "L1 buffets the element fills (bit k: L1 k)"});
  m.sink({"rd_req", "L2 read (fills the L1s)", "read offered",
          s.mc ? "accepted: in the L2's window and every masked L1 has a credit" : "accepted by the L2", rd});
  m.sink({"shr", "L2 shrink", "remove shr_num oldest L2 elements", "accepted this cycle",
          {{"num", s.CW2, "element count"}}});
  m.sink({"l1_rd_req", "L1 read requests", "lane k: L1 k read offered", "lane k: accepted",
          {{"idx", s.K * s.IW1, "lane k in bits [k*IW1 +: IW1]: index in L1 k"}}, s.K});
  m.source({"l1_rd_rsp", "L1 read responses", "lane k: data of L1 k, in request order", "lane k: taken",
            {{"data", s.K * s.W, "lane k in bits [k*W +: W]"}}, s.K});
  m.sink({"l1_shr", "L1 shrinks", "lane k: remove l1_shr_num oldest elements of L1 k", "lane k: accepted",
          {{"num", s.K * s.CW1, "lane k in bits [k*CW1 +: CW1]"}}, s.K});
  if (!s.mc)
    m.source({"l1_credit", "L1 credits (one target: no multicast unit)", "free L1 slots for the L2 read generator",
              "generator takes l1_credit_num", {{"num", s.CW1, "count returned"}}});
  m.output("status_err", s.mc ? 10 : 8,
           s.mc ? "sticky: [3:0] L2 status, [7:4] OR of the L1s' status, [9:8] multicast unit's status"
                : "sticky: [3:0] L2 status, [7:4] L1 status");
}

void declare_nets(SvModule& m, const GroupShape& s) {
  m.signal("l2_err", 4, "L2 status");
  m.signal("l1_err", 4 * s.K, "status of L1 k in bits [4k +: 4]");
  m.signal("l1_fill_valid", s.K, "fill of L1 k");
  m.signal("l1_fill_ready", s.K, "L1 k has room");
  m.signal("l1_fill_data", s.W, "element filled into the L1s");
  if (!s.mc) return;
  m.signal("l2_rd_req_valid", 1, "L2 read forwarded by the multicast unit");
  m.signal("l2_rd_req_ready", 1, "L2 accepts the read");
  m.signal("l2_rd_req_idx", s.IW2, "L2 read index");
  m.signal("l2_rd_rsp_valid", 1, "L2 read data");
  m.signal("l2_rd_rsp_ready", 1, "the multicast unit takes it");
  m.signal("l2_rd_rsp_data", s.W, "L2 read data");
  m.signal("l2_shr_valid", 1, "L2 shrink, ordered after a read offered in the same cycle");
  m.signal("l2_shr_ready", 1, "L2 accepts the shrink");
  m.signal("rd_clear", 1, "no read is held back this cycle (a shrink may not overtake one)");
  m.signal("mc_req_valid", 1, "read request to the multicast unit");
  m.signal("mc_req_ready", 1, "the multicast unit accepts it");
  m.signal("mc_err", 2, "multicast unit status");
  m.signal("l1_credit_valid", s.K, "L1 k returns credits");
  m.signal("l1_credit_ready", s.K, "the multicast unit takes them");
  m.signal("l1_credit_num", s.K * s.CW1, "credits of L1 k in bits [k*CW1 +: CW1]");
  if (s.can_bad) {
    m.signal("rd_bad", 1, "read index >= L2 depth: dropped and flagged, never forwarded");
    m.signal("bad_q", 1, "sticky: a read index >= L2 depth was dropped");
  }
}

// K > 1: the request path through the multicast unit, and the L2 shrink ordered after it.
void multicast_glue(SvModule& m, const GroupShape& s) {
  std::string bad = s.can_bad ? fmt::format("rd_req_idx >= {}", sv_const(s.IW2, s.c.l2_depth)) : "";
  m.section("Reads of the L2 go through the multicast unit; an L2 shrink waits for a read offered with it", fmt::format(R"(
{bad_assign}assign mc_req_valid = rd_req_valid{not_bad};
assign rd_req_ready = {bad_or}mc_req_ready;
assign rd_clear     = !rd_req_valid || rd_req_ready;
assign l2_shr_valid = shr_valid && rd_clear;
assign shr_ready    = l2_shr_ready && rd_clear;{bad_reg}
assign status_err   = {{mc_err, {l1_or}, l2_err{bad_bit}}};)",
      fmt::arg("bad_assign", s.can_bad ? "assign rd_bad       = " + bad + ";\n" : ""),
      fmt::arg("not_bad", s.can_bad ? " && !rd_bad" : ""), fmt::arg("bad_or", s.can_bad ? "rd_bad || " : ""),
      fmt::arg("bad_reg", s.can_bad ? R"(
always_ff @(posedge clk) begin
  if (!rst_n) bad_q <= 1'b0;
  else if (rd_req_valid && rd_bad) bad_q <= 1'b1;
end)" : ""),
      fmt::arg("l1_or", [&] {
        std::string o;
        for (int k = 0; k < s.K; ++k) o += (k ? " | " : "") + lane("l1_err", k, 4);
        return s.K > 1 ? "(" + o + ")" : o;
      }()),
      fmt::arg("bad_bit", s.can_bad ? " | {3'b000, bad_q}" : "")));
  m.instantiate(s.c.mcast_name(), "u_mcast")
      .connect("clk", "clk")
      .connect("rst_n", "rst_n")
      .connect("req_valid", "mc_req_valid")
      .connect("req_ready", "mc_req_ready")
      .connect("req_idx", "rd_req_idx")
      .connect("req_mask", "rd_req_mask")
      .connect("dn_valid", "l2_rd_req_valid")
      .connect("dn_ready", "l2_rd_req_ready")
      .connect("dn_idx", "l2_rd_req_idx")
      .connect("rsp_valid", "l2_rd_rsp_valid")
      .connect("rsp_ready", "l2_rd_rsp_ready")
      .connect("rsp_data", "l2_rd_rsp_data")
      .connect("fill_valid", "l1_fill_valid")
      .connect("fill_ready", "l1_fill_ready")
      .connect("fill_data", "l1_fill_data")
      .connect("cr_valid", "l1_credit_valid")
      .connect("cr_ready", "l1_credit_ready")
      .connect("cr_num", "l1_credit_num")
      .connect("status_err", "mc_err");
}

void l2_instance(SvModule& m, const GroupShape& s) {
  auto& i = m.instantiate(s.l2.name, "u_l2").connect("clk", "clk").connect("rst_n", "rst_n");
  i.connect("fill_valid", "fill_valid").connect("fill_ready", "fill_ready").connect("fill_data", "fill_data");
  if (s.mc) {
    i.connect("rd_req_valid", "l2_rd_req_valid").connect("rd_req_ready", "l2_rd_req_ready");
    i.connect("rd_req_idx", "l2_rd_req_idx").connect("rd_rsp_valid", "l2_rd_rsp_valid");
    i.connect("rd_rsp_ready", "l2_rd_rsp_ready").connect("rd_rsp_data", "l2_rd_rsp_data");
    i.connect("shr_valid", "l2_shr_valid").connect("shr_ready", "l2_shr_ready");
  } else {
    // One target: the L2's responses fill the L1 directly, back-pressured by its fill_ready.
    i.connect("rd_req_valid", "rd_req_valid").connect("rd_req_ready", "rd_req_ready");
    i.connect("rd_req_idx", "rd_req_idx").connect("rd_rsp_valid", "l1_fill_valid");
    i.connect("rd_rsp_ready", "l1_fill_ready").connect("rd_rsp_data", "l1_fill_data");
    i.connect("shr_valid", "shr_valid").connect("shr_ready", "shr_ready");
  }
  i.connect("shr_num", "shr_num").connect("credit_valid", "credit_valid").connect("credit_ready", "credit_ready");
  i.connect("credit_num", "credit_num").connect("status_err", "l2_err");
}

void l1_instances(SvModule& m, const GroupShape& s) {
  for (int k = 0; k < s.K; ++k) {
    auto bit = [&](const std::string& sig) { return s.K > 1 ? fmt::format("{}[{}]", sig, k) : sig; };
    auto& i = m.instantiate(s.l1.name, fmt::format("u_l1_{}", k)).connect("clk", "clk").connect("rst_n", "rst_n");
    i.connect("fill_valid", bit("l1_fill_valid")).connect("fill_ready", bit("l1_fill_ready"));
    i.connect("fill_data", "l1_fill_data");
    i.connect("rd_req_valid", bit("l1_rd_req_valid")).connect("rd_req_ready", bit("l1_rd_req_ready"));
    i.connect("rd_req_idx", s.K > 1 ? lane("l1_rd_req_idx", k, s.IW1) : "l1_rd_req_idx");
    i.connect("rd_rsp_valid", bit("l1_rd_rsp_valid")).connect("rd_rsp_ready", bit("l1_rd_rsp_ready"));
    i.connect("rd_rsp_data", s.K > 1 ? lane("l1_rd_rsp_data", k, s.W) : "l1_rd_rsp_data");
    i.connect("shr_valid", bit("l1_shr_valid")).connect("shr_ready", bit("l1_shr_ready"));
    i.connect("shr_num", s.K > 1 ? lane("l1_shr_num", k, s.CW1) : "l1_shr_num");
    if (s.mc) {
      i.connect("credit_valid", bit("l1_credit_valid")).connect("credit_ready", bit("l1_credit_ready"));
      i.connect("credit_num", lane("l1_credit_num", k, s.CW1));
    } else {
      i.connect("credit_valid", "l1_credit_valid").connect("credit_ready", "l1_credit_ready");
      i.connect("credit_num", "l1_credit_num");
    }
    i.connect("status_err", s.K > 1 ? lane("l1_err", k, 4) : "l1_err");
  }
}

SvModule group_module(const GroupShape& s) {
  SvModule m(s.c.name,
             "Buffet hierarchy (buffets paper, Sec. 4.1-4.2): an L2 buffet whose reads fill K L1\n"
             "buffets. The L2 read generator offers (index, target mask); the multicast unit\n"
             "forwards the read only while every masked L1 has a credit and fills all of them\n"
             "with the one response. Both levels are gen/buffet buffets; this module wires them.");
  m.record_config(s.c.to_json());
  m.note(s.mc ? fmt::format("K = {} L1 buffets of {} slots under an L2 of {} slots, through {}.", s.K, s.c.l1_depth,
                            s.c.l2_depth, s.c.mcast_name())
              : fmt::format("One L1 buffet of {} slots under an L2 of {} slots: no multicast unit, no mask; the "
                            "L2's responses fill the L1 directly and its credits leave on l1_credit_*.",
                            s.c.l1_depth, s.c.l2_depth));
  return m;
}

}  // namespace group_parts

void add_buffet_group(Design& design, const BuffetGroupConfig& c) {
  group_parts::GroupShape s(c);
  add_buffet(design, s.l2);
  add_buffet(design, s.l1);
  if (s.mc)
    add_multicast(design, {c.mcast_name(), s.K, s.IW2, s.W, s.CW1},
                  {{"buffet_group", c.name}, {"targets", s.K}, {"index_width", s.IW2}, {"data_width", s.W},
                   {"count_width", s.CW1}});
  SvModule m = group_parts::group_module(s);
  group_parts::declare_ports(m, s);
  group_parts::declare_nets(m, s);
  if (s.mc) group_parts::multicast_glue(m, s);
  else m.section("Status", "assign status_err = {l1_err, l2_err};");
  group_parts::l2_instance(m, s);
  group_parts::l1_instances(m, s);
  nlohmann::json block = block_entry(m, "buffet_group", c.to_json());
  block["l2_module"] = s.l2.name;
  block["l1_module"] = s.l1.name;
  if (s.mc) block["multicast_module"] = c.mcast_name();
  block["l1_index_width"] = s.IW1;
  block["l1_count_width"] = s.CW1;
  block["l2_index_width"] = s.IW2;
  block["l2_count_width"] = s.CW2;
  design.blocks.push_back(std::move(block));
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen
