#include "gen/buffet/multicast_gen.hpp"

#include <fmt/format.h>

#include "gen/sv_module.hpp"

namespace cello::gen {

namespace multicast_parts {

void declare_ports(SvModule& m, const MulticastShape& s) {
  const int K = s.targets;
  m.clock_reset();
  m.sink({"req", "transfer request", "a read for the masked targets is offered",
          "accepted: every masked target had a credit and the upstream took the read",
          {{"idx", s.index_width, "index passed to the upstream read port"},
           {"mask", K, "targets that receive the element (bit k: target k)"}}});
  m.source({"dn", "upstream read", "request forwarded (never waits for dn_ready)", "upstream accepts the read",
            {{"idx", s.index_width, "read index"}}});
  m.sink({"rsp", "upstream response", "read data, in request order", "always 1: a response is delivered at once",
          {{"data", s.data_width, "element"}}});
  m.output("fill_valid", K, "fill of target k (bit k), one cycle per delivered element");
  m.input("fill_ready", K, "target k has room (always, under the credit contract; a refusal is flagged)");
  m.output("fill_data", s.data_width, "the element, the same for every masked target");
  m.sink({"cr", "credits", "target k returns cr_num[k] credits (bit k)", "always 1: credits are counted at once",
          {{"num", K * s.count_width, "count of target k in bits [k*CW +: CW]"}}, K});
  m.output("status_err", 2, "sticky: [0] response with no request recorded, [1] a target refused a fill");
}

void credit_vector(SvModule& m) {
  m.section("Credit vector: a request leaves only while every masked target has a credit, and takes one from each",
            R"(
always_comb begin
  for (int k = 0; k < K; k++) has_cr[k] = cnt_q[k*CW +: CW] != '0;
end
assign req_ok    = &(~req_mask | has_cr);
assign dn_valid  = req_valid && req_ok && mq_space;
assign dn_idx    = req_idx;
assign req_ready = req_ok && mq_space && dn_ready;
assign take      = req_valid && req_ready;
assign cr_ready  = '1;
always_ff @(posedge clk) begin
  for (int k = 0; k < K; k++) begin
    if (!rst_n) cnt_q[k*CW +: CW] <= '0;
    else cnt_q[k*CW +: CW] <= cnt_q[k*CW +: CW] + (cr_valid[k] ? cr_num[k*CW +: CW] : '0)
                             - {{(CW-1){1'b0}}, take && req_mask[k]};
  end
end)");
}

void delivery(SvModule& m) {
  m.section("Delivery: the mask of each forwarded read waits in a FIFO; its response fills the masked targets", R"(
assign rsp_ready  = 1'b1;
assign deliver    = rsp_valid && mq_valid;
assign fill_valid = {K{deliver}} & mq_mask;
assign fill_data  = rsp_data;
always_ff @(posedge clk) begin
  if (!rst_n) err_q <= 2'b00;
  else err_q <= err_q | {|(fill_valid & ~fill_ready), rsp_valid && !mq_valid};
end
assign status_err = err_q;)");
}

}  // namespace multicast_parts

void add_multicast(Design& design, const MulticastShape& s, const nlohmann::json& config) {
  SvModule m(s.name,
             "Multicast fill/credit unit (buffets paper, Sec. 4.2): the fill side of K target\n"
             "buffets. One credit counter per target; a request goes upstream only while every\n"
             "target in its mask has a credit, and takes one credit from each of them; the\n"
             "upstream's response fills all masked targets in the same cycle. Each target\n"
             "returns its shrinks' credits on its own lane of cr_*.");
  m.record_config(config);
  m.note(fmt::format("K = {} targets, credit counts of {} bits, mask FIFO of 2 entries (a flop-RAM L2 has one read in flight).",
                     s.targets, s.count_width));
  multicast_parts::declare_ports(m, s);
  m.localparam("K", std::to_string(s.targets), "targets");
  m.localparam("CW", std::to_string(s.count_width), "bits of one credit count");
  m.signal("cnt_q", s.targets * s.count_width, "credits of target k in bits [k*CW +: CW]: free slots not yet reserved");
  m.signal("has_cr", s.targets, "target k has at least one credit");
  m.signal("req_ok", 1, "every masked target has a credit");
  m.signal("take", 1, "request accepted: reserve one slot in each masked target");
  m.signal("mq_space", 1, "mask FIFO has room");
  m.signal("mq_valid", 1, "a forwarded read awaits its response");
  m.signal("mq_mask", s.targets, "mask of the oldest forwarded read");
  m.signal("deliver", 1, "response delivered to the masked targets");
  m.signal("err_q", 2, "sticky status bits");
  multicast_parts::credit_vector(m);
  multicast_parts::delivery(m);
  design.primitives.insert("fifo_sync");
  m.instantiate("fifo_sync", "u_maskq")
      .param("DEPTH", "2")
      .param("WIDTH", "K")
      .connect("clk", "clk")
      .connect("rst_n", "rst_n")
      .connect("push", "take")
      .connect("wdata", "req_mask")
      .connect("pop", "deliver")
      .connect("space", "mq_space")
      .connect("valid", "mq_valid")
      .connect("rdata", "mq_mask");
  design.blocks.push_back(block_entry(m, "multicast", {{"targets", s.targets}, {"index_width", s.index_width},
                                                       {"data_width", s.data_width}, {"count_width", s.count_width}}));
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen
