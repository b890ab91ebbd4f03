#include "gen/top/chord_port_gen.hpp"

#include <fmt/format.h>

#include <bit>
#include <stdexcept>

#include "gen/sv_module.hpp"
#include "gen/top/top_gen_parts.hpp"
#include "sw/common/bits.hpp"

namespace cello::gen {

namespace {

// Store acknowledgements pending: the counter's width. The store unit takes
// them at once; a full counter holds the store writes back.
constexpr int kAckBits = 8;

// Widths shared by the parts of the port.
struct ChordPortDims {
  int N;   // read clients
  int CB;  // client index
  int G;   // granule bytes
  int WA;  // CHORD word (granule) address
  int IW;  // CHORD id
  int TW;  // client tag
  int Q;   // routing FIFO entries
};

void chord_port_ports(SvModule& m, const ChordPortDims& d) {
  const int N = d.N, G = d.G, WA = d.WA, IW = d.IW, TW = d.TW;
  m.clock_reset();
  m.sink({"r_req", "", "client reads", "client read taken",
          {{"addr", N * WA, "client: granule address (byte address / granule)"},
           {"id", N * IW, "client: the tensor's CHORD id"},
           {"tag", N * TW, "client: tag"}},
          N});
  m.source({"r_rsp", "", "read data for the client", "taken by the client",
            {{"rdata", 8 * G, "read data (shared by the clients)"}, {"tag", TW, "the client's tag"}},
            N});
  m.sink({"w_req", "", "a store write", "taken by CHORD",
          {{"addr", WA, "granule address"},
           {"id", IW, "the tensor's CHORD id"},
           {"data", 8 * G, "granule data, byte k at [8k +: 8]"},
           {"strb", G, "byte enables (CHORD's wr_be)"}}});
  m.source({"w_rsp", "", "a store write's acknowledgement", "taken", {}});
  m.sink({"f_req", "", "a fill: an input's granule as DRAM returned it", "taken by CHORD",
          {{"addr", WA, "granule address"}, {"id", IW, "the tensor's CHORD id"}, {"data", 8 * G, "granule data"}}});
  m.source({"ch_rd_req", "", "CHORD read request", "taken by CHORD",
            {{"id", IW, "CHORD: tensor id"}, {"addr", WA, "CHORD: word address"}}});
  m.sink({"ch_rd_rsp", "", "CHORD read data, in request order", "taken",
          {{"data", 8 * G, "CHORD: read data"}}});
  m.source({"ch_wr", "", "CHORD write", "taken by CHORD",
            {{"id", IW, "CHORD: tensor id"},
             {"addr", WA, "CHORD: word address"},
             {"data", 8 * G, "CHORD: data"},
             {"be", G, "CHORD: byte enables (all for a fill)"},
             {"fill", 1, "CHORD: a fill (clean)"}}});
  m.output("idle", 1, "no read in the slot or waiting for its data, no acknowledgement pending");
  m.output("proto_err", 1, "sticky: CHORD returned read data nobody asked for (it was dropped)");
}

void chord_port_signals(SvModule& m, const ChordPortDims& d) {
  m.signal("rd_slot_valid_q", 1, "the read slot holds a granted read");
  m.signal("rd_slot_id_q", d.IW, "read slot: CHORD id");
  m.signal("rd_slot_addr_q", d.WA, "read slot: word address");
  m.signal("rd_slot_client_q", d.CB, "read slot: the client");
  m.signal("rd_slot_tag_q", d.TW, "read slot: the client's tag");
  m.signal("rd_last_q", d.CB, "read client granted last");
  m.signal("rd_slot_free", 1, "the read slot can take a read this cycle");
  m.signal("rd_grant_any", 1, "a read client is granted");
  m.signal("rd_grant", d.CB, "the read client granted");
  m.signal("rd_issue", 1, "the slot's read is taken by CHORD");
  m.signal("rd_deliver", 1, "CHORD's read data is taken by its client");
  m.signal("store_ok", 1, "a store write is offered and its acknowledgement has room");
  m.signal("pick_fill", 1, "the write port carries the fill this cycle");
  m.signal("wr_fire", 1, "CHORD takes a write");
  m.signal("wr_last_fill_q", 1, "the last write taken was a fill");
  m.signal("ack_q", kAckBits, "store writes taken and not yet acknowledged");
  m.signal("proto_err_q", 1, "sticky: read data with no read waiting");
}

// Reads: a round-robin grant into the slot, the slot to CHORD, CHORD's data
// back through the routing FIFO.
void read_section(SvModule& m, const ChordPortDims& d) {
  const int N = d.N, CB = d.CB, WA = d.WA, IW = d.IW, TW = d.TW;
  top_parts::small_fifo(m, "route", "read routing", d.Q,
                        {{"client", CB, "rd_slot_client_q"}, {"tag", TW, "rd_slot_tag_q"}}, "rd_issue", "rd_deliver");
  top_parts::round_robin_pick(m, N, CB, "r_req_valid", "rd_last_q", "rd_grant");
  m.section("Reads: grant, slot, routing of CHORD's in-order data", fmt::format(R"(
assign rd_slot_free = !rd_slot_valid_q || rd_issue;
assign rd_grant_any = rd_slot_free && (r_req_valid != '0);
always_comb begin
  r_req_ready = '0;
  if (rd_grant_any) r_req_ready[rd_grant] = 1'b1;
end
// A read goes to CHORD only with room to route its data back.
assign ch_rd_req_valid = rd_slot_valid_q && route_space;
assign ch_rd_req_id    = rd_slot_id_q;
assign ch_rd_req_addr  = rd_slot_addr_q;
assign rd_issue        = ch_rd_req_valid && ch_rd_req_ready;
always_ff @(posedge clk) begin
  if (!rst_n) begin
    rd_slot_valid_q <= 1'b0;
    rd_last_q       <= {LASTINIT};
  end else if (rd_slot_free) begin
    rd_slot_valid_q <= rd_grant_any;
    if (rd_grant_any) begin
      rd_last_q        <= rd_grant;
      rd_slot_id_q     <= r_req_id[{IW}*rd_grant +: {IW}];
      rd_slot_addr_q   <= r_req_addr[{WA}*rd_grant +: {WA}];
      rd_slot_client_q <= rd_grant;
      rd_slot_tag_q    <= r_req_tag[{TW}*rd_grant +: {TW}];
    end
  end
end
// CHORD answers in request order: the FIFO's head names the client and tag.
// Data with no read waiting breaks the protocol: taken, dropped, proto_err set.
assign r_rsp_rdata     = ch_rd_rsp_data;
assign r_rsp_tag       = route_tag;
assign ch_rd_rsp_ready = route_valid ? r_rsp_ready[route_client] : 1'b1;
assign rd_deliver      = ch_rd_rsp_valid && route_valid && r_rsp_ready[route_client];
always_comb begin
  r_rsp_valid = '0;
  r_rsp_valid[route_client] = ch_rd_rsp_valid && route_valid;
end)",
                                                                     fmt::arg("LASTINIT", sv_const(CB, N - 1)), fmt::arg("IW", IW),
                                                                     fmt::arg("WA", WA), fmt::arg("TW", TW)));
}

// Writes: stores and fills share CHORD's write port, alternating when both
// wait; a store is acknowledged once CHORD takes it.
void write_section(SvModule& m) {
  m.section("Writes: stores and fills, acknowledgements, idle", fmt::format(R"(
assign store_ok    = w_req_valid && (ack_q != '1);
assign pick_fill   = f_req_valid && (!store_ok || !wr_last_fill_q);
assign ch_wr_valid = store_ok || f_req_valid;
assign ch_wr_id    = pick_fill ? f_req_id : w_req_id;
assign ch_wr_addr  = pick_fill ? f_req_addr : w_req_addr;
assign ch_wr_data  = pick_fill ? f_req_data : w_req_data;
assign ch_wr_be    = pick_fill ? '1 : w_req_strb;
assign ch_wr_fill  = pick_fill;
assign wr_fire     = ch_wr_valid && ch_wr_ready;
assign w_req_ready = ch_wr_ready && store_ok && !pick_fill;
assign f_req_ready = ch_wr_ready && pick_fill;
assign w_rsp_valid = (ack_q != '0);
assign idle        = !rd_slot_valid_q && !route_valid && (ack_q == '0);
assign proto_err   = proto_err_q;
always_ff @(posedge clk) begin
  if (!rst_n) begin
    wr_last_fill_q <= 1'b0;
    ack_q          <= '0;
    proto_err_q    <= 1'b0;
  end else begin
    if (wr_fire) wr_last_fill_q <= pick_fill;
    ack_q <= ack_q + {AB}'(w_req_valid && w_req_ready) - {AB}'(w_rsp_valid && w_rsp_ready);
    if (ch_rd_rsp_valid && !route_valid) proto_err_q <= 1'b1;
  end
end)",
                                                                     fmt::arg("AB", kAckBits)));
}

}  // namespace

ChordPortShape chord_port_shape(const ChordConfig& c, const LoadUnitShape& mem, int tile_bits) {
  return {kTopReadUnits, mem.granule_bytes, mem.addr_bits, line_tag_bits(mem) + tile_bits, c.id_width, c.read_queue};
}
int chord_port_acks() { return (1 << kAckBits) - 1; }

void add_chord_port(Design& design, const std::string& module, const ChordPortShape& s) {
  if (s.clients < 2) throw std::logic_error(fmt::format("{}: {} read clients (at least 2)", module, s.clients));
  if (s.reads < 2 || !std::has_single_bit(static_cast<unsigned>(s.reads)))
    throw std::logic_error(fmt::format("{}: reads {} is not a power of two >= 2", module, s.reads));
  if (!std::has_single_bit(static_cast<unsigned>(s.granule_bytes)))
    throw std::logic_error(fmt::format("{}: granule of {} bytes is not a power of two", module, s.granule_bytes));
  const int GB = std::countr_zero(static_cast<unsigned>(s.granule_bytes));
  if (s.addr_bits <= GB) throw std::logic_error(fmt::format("{}: {} address bits hold no granule", module, s.addr_bits));
  const ChordPortDims d{s.clients, bits_for(s.clients - 1), s.granule_bytes, s.addr_bits - GB, s.id_bits, s.tag_bits, s.reads};
  SvModule m(module,
             "The units' side of CHORD: reads of CHORD-bound tensors from N clients, granted round\n"
             "robin into a registered slot and sent to CHORD's read port with their tensor id and\n"
             "granule (word) address; CHORD answers in request order, and a FIFO of (client, tag)\n"
             "hands each answer to the client that asked. Store writes (byte strobes as wr_be) and\n"
             "fills (whole granules, wr_fill) share CHORD's write port, alternating when both wait;\n"
             "a store write is acknowledged once CHORD takes it.");
  const nlohmann::json params = {{"clients", s.clients}, {"granule_bytes", s.granule_bytes}, {"addr_bits", s.addr_bits},
                                 {"tag_bits", s.tag_bits}, {"id_bits", s.id_bits}, {"reads", s.reads}};
  m.record_config(params);
  m.note("Client c's request signals are the slices [c*W +: W] of the r_req_* ports.");
  chord_port_ports(m, d);
  chord_port_signals(m, d);
  read_section(m, d);
  write_section(m);
  top_parts::finish_part(design, m, "chord_port", params);
}

}  // namespace cello::gen
