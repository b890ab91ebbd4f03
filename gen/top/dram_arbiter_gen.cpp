#include "gen/top/dram_arbiter_gen.hpp"

#include <fmt/format.h>

#include "gen/sv_module.hpp"
#include "gen/top/top_gen_parts.hpp"

namespace cello::gen {

namespace {

// Widths shared by the parts of the arbiter.
struct ArbDims {
  int N;   // clients
  int G;   // granule bytes
  int AW;  // byte address
  int TW;  // client tag
  int CB;  // client index
};

constexpr int OB = 16;  // outstanding requests per client (a client's queue is far shorter)

// Ports: N client request/response ports (packed) and the one DRAM port.
void arbiter_ports(SvModule& m, const ArbDims& d) {
  const int N = d.N, G = d.G, AW = d.AW, TW = d.TW, CB = d.CB;
  m.clock_reset();
  m.sink({"c_req", "", "client requests", "client request taken",
          {{"addr", N * AW, "client: granule-aligned byte address"},
           {"write", N, "client: write"},
           {"wdata", N * 8 * G, "client: write data"},
           {"strb", N * G, "client: write byte enables"},
           {"tag", N * TW, "client: tag"}},
          N});
  m.source({"c_rsp", "", "client responses", "client response taken",
            {{"rdata", 8 * G, "response data (shared by the clients)"}, {"tag", TW, "response: the client's tag"}},
            N});
  m.source({"dram_req", "", "DRAM request", "DRAM request taken",
            {{"addr", AW, "DRAM: granule-aligned byte address"},
             {"write", 1, "DRAM: write"},
             {"wdata", 8 * G, "DRAM: write data"},
             {"strb", G, "DRAM: write byte enables"},
             {"tag", CB + TW, "DRAM: {client, client tag}"}}});
  m.sink({"dram_rsp", "", "DRAM response", "DRAM response taken",
          {{"rdata", 8 * G, "DRAM: read data"}, {"tag", CB + TW, "DRAM: the request's tag"}}});
  m.output("proto_err", 1, "sticky: a DRAM response named no client with a request outstanding (it was dropped)");
}

// The request slot, the last client granted, and the grant terms.
void arbiter_signals(SvModule& m, const ArbDims& d) {
  const int G = d.G, AW = d.AW, TW = d.TW, CB = d.CB;
  m.signal("slot_valid_q", 1, "the request slot holds a request");
  m.signal("slot_addr_q", AW, "slot: address");
  m.signal("slot_write_q", 1, "slot: write");
  m.signal("slot_wdata_q", 8 * G, "slot: write data");
  m.signal("slot_strb_q", G, "slot: byte enables");
  m.signal("slot_tag_q", CB + TW, "slot: DRAM tag");
  m.signal("last_q", CB, "client granted last");
  m.signal("slot_free", 1, "the slot can take a request this cycle");
  m.signal("grant_any", 1, "a client is granted");
  m.signal("grant", CB, "the client granted");
  m.signal("rsp_client", CB, "client the response belongs to");
  m.array("outst_q", OB, d.N, "requests sent to DRAM and not yet answered, per client");
  m.signal("rsp_known", 1, "the response's client exists and has a request outstanding");
  m.signal("req_fire", 1, "a request is taken by DRAM");
  m.signal("rsp_fire", 1, "a known response is taken");
  m.signal("proto_err_q", 1, "sticky: a response was unknown");
}

// Round-robin grant and the clients' ready signals.
void grant_section(SvModule& m, const ArbDims& d) {
  const int N = d.N, CB = d.CB;
  top_parts::round_robin_pick(m, N, CB, "c_req_valid", "last_q", "grant");
  m.section("Grant", R"(
assign slot_free = !slot_valid_q || dram_req_ready;
assign grant_any = slot_free && (c_req_valid != '0);
always_comb begin
  c_req_ready = '0;
  if (grant_any) c_req_ready[grant] = 1'b1;
end)");
}

// The request slot towards DRAM and the routing of responses by tag.
void request_slot_section(SvModule& m, const ArbDims& d) {
  const int N = d.N, G = d.G, AW = d.AW, TW = d.TW, CB = d.CB;
  m.section("Request slot and responses", fmt::format(R"(
assign dram_req_valid = slot_valid_q;
assign dram_req_addr  = slot_addr_q;
assign dram_req_write = slot_write_q;
assign dram_req_wdata = slot_wdata_q;
assign dram_req_strb  = slot_strb_q;
assign dram_req_tag   = slot_tag_q;
assign rsp_client     = dram_rsp_tag[{TW} +: {CB}];
assign c_rsp_rdata    = dram_rsp_rdata;
assign c_rsp_tag      = dram_rsp_tag[{TW1}:0];
// A response for a client with nothing outstanding (or no such client) breaks
// the DRAM protocol: it is taken and dropped, and proto_err stays set.
assign rsp_known      = {RANGE}(outst_q[rsp_client] != {OB}'d0);
assign dram_rsp_ready = rsp_known ? c_rsp_ready[rsp_client] : 1'b1;
assign req_fire       = slot_valid_q && dram_req_ready;
assign rsp_fire       = dram_rsp_valid && dram_rsp_ready && rsp_known;
assign proto_err      = proto_err_q;
always_comb begin
  c_rsp_valid = '0;
  c_rsp_valid[rsp_client] = dram_rsp_valid && rsp_known;
end
always_ff @(posedge clk) begin
  if (!rst_n) begin
    proto_err_q <= 1'b0;
    for (int c = 0; c < {N}; c++) outst_q[c] <= '0;
  end else begin
    if (dram_rsp_valid && !rsp_known) proto_err_q <= 1'b1;
    for (int c = 0; c < {N}; c++)
      outst_q[c] <= outst_q[c] + {OB}'(req_fire && slot_tag_q[{TW} +: {CB}] == {CB}'(c))
                                - {OB}'(rsp_fire && rsp_client == {CB}'(c));
  end
end
always_ff @(posedge clk) begin
  if (!rst_n) begin
    slot_valid_q <= 1'b0;
    last_q       <= {LASTINIT};
  end else if (slot_free) begin
    slot_valid_q <= grant_any;
    if (grant_any) begin
      last_q       <= grant;
      slot_addr_q  <= c_req_addr[{AW}*grant +: {AW}];
      slot_write_q <= c_req_write[grant];
      slot_wdata_q <= c_req_wdata[{GD}*grant +: {GD}];
      slot_strb_q  <= c_req_strb[{G}*grant +: {G}];
      slot_tag_q   <= {{grant, c_req_tag[{TW}*grant +: {TW}]}};
    end
  end
end)",
                                                          fmt::arg("TW", TW), fmt::arg("TW1", TW - 1), fmt::arg("CB", CB),
                                                          fmt::arg("AW", AW), fmt::arg("GD", 8 * G), fmt::arg("G", G),
                                                          fmt::arg("LASTINIT", sv_const(CB, N - 1)), fmt::arg("N", N),
                                                          fmt::arg("OB", OB),
                                                          fmt::arg("RANGE", (1 << CB) != N ? fmt::format("rsp_client < {} && ", sv_const(CB, N)) : std::string())));
}

}  // namespace

void add_dram_arbiter(Design& design, const std::string& module, const DramArbiterShape& s) {
  const ArbDims d{s.clients, s.granule_bytes, s.addr_bits, s.tag_bits, bits_for(s.clients - 1)};
  const int N = d.N, G = d.G, AW = d.AW, TW = d.TW;
  SvModule m(module,
             "DRAM arbiter of the top: one DRAM port shared by N clients. Each cycle the request\n"
             "slot is free (or leaving) it takes the next valid client after the last one granted\n"
             "(round robin), so no client waits for more than N-1 grants of the others. The DRAM tag\n"
             "is {client, client tag}; each response goes back to the client its tag names. A\n"
             "response naming a client with no request outstanding is dropped and sets proto_err.");
  const nlohmann::json params = {{"clients", N}, {"granule_bytes", G}, {"addr_bits", AW}, {"tag_bits", TW}};
  m.record_config(params);
  m.note("Client c's signals are the slices [c*W +: W] of the c_* ports.");
  arbiter_ports(m, d);
  arbiter_signals(m, d);
  grant_section(m, d);
  request_slot_section(m, d);
  top_parts::finish_part(design, m, "dram_arbiter", params);
}

}  // namespace cello::gen
