#include "gen/top/chord_dram_gen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "gen/sv_module.hpp"
#include "gen/top/load_unit_gen.hpp"
#include "gen/top/top_gen_parts.hpp"
#include "sw/common/bits.hpp"

namespace cello::gen {

namespace {

// Widths shared by the parts of the adapter.
struct ChordDramDims {
  int G;   // granule bytes
  int GB;  // log2(G)
  int AW;  // DRAM byte address
  int R;   // ring slots
  int RB;  // slot index (the DRAM tag)
  int NB;  // slots in use, 0..R
};

void chord_dram_ports(SvModule& m, const ChordDramDims& d) {
  const int G = d.G;
  m.clock_reset();
  m.sink({"c_req", "", "CHORD's DRAM request", "taken",
          {{"write", 1, "CHORD: 1 write (spill, write-back, flush), 0 read (miss)"},
           {"addr", d.AW - d.GB, "CHORD: word (granule) address"},
           {"data", 8 * G, "CHORD: write data"},
           {"be", G, "CHORD: write byte enables"}}});
  m.source({"c_rsp", "", "read data for CHORD, in request order", "taken by CHORD",
            {{"data", 8 * G, "the oldest unanswered read's data"}}});
  m.source({"d_req", "", "DRAM request (an arbiter client)", "taken by the arbiter",
            {{"addr", d.AW, "granule-aligned byte address"},
             {"write", 1, "write"},
             {"wdata", 8 * G, "write data"},
             {"strb", G, "write byte enables"},
             {"tag", d.RB, "the request's ring slot"}}});
  m.sink({"d_rsp", "", "DRAM response (read data or write acknowledgement)", "always ready",
          {{"rdata", 8 * G, "read data"}, {"tag", d.RB, "the slot of the request it answers"}}});
  m.output("idle", 1, "no request unanswered");
  m.output("proto_err", 1, "sticky: a response named a slot with no request waiting (it was dropped)");
  m.localparam("SLOTS", std::to_string(d.R), "requests in flight");
}

void chord_dram_signals(SvModule& m, const ChordDramDims& d) {
  m.signal("busy_q", d.R, "per slot: a request sent, not yet retired");
  m.signal("done_q", d.R, "per slot: its response arrived");
  m.array("write_q", 1, d.R, "slot: the request is a write");
  m.array("data_q", 8 * d.G, d.R, "slot: read data");
  m.signal("head_q", d.RB, "oldest slot in use");
  m.signal("tail_q", d.RB, "next slot to use");
  m.signal("count_q", d.NB, "slots in use");
  m.signal("proto_err_q", 1, "sticky: an unexpected response");
  m.signal("send", 1, "a request goes to DRAM");
  m.signal("answer", 1, "an expected response is taken");
  m.signal("retire", 1, "the head slot retires");
}

void chord_dram_section(SvModule& m, const ChordDramDims& d) {
  m.section("Ring of slots: send in order, answer by tag, retire in order", fmt::format(R"(
assign d_req_valid = c_req_valid && (count_q != {NB}'(SLOTS));
assign c_req_ready = d_req_ready && (count_q != {NB}'(SLOTS));
assign d_req_addr  = {{c_req_addr, {GB}'d0}};
assign d_req_write = c_req_write;
assign d_req_wdata = c_req_data;
assign d_req_strb  = c_req_be;
assign d_req_tag   = tail_q;
assign send        = d_req_valid && d_req_ready;
assign d_rsp_ready = 1'b1;
// Only a slot with a request waiting takes an answer; anything else is dropped.
assign answer      = d_rsp_valid && busy_q[d_rsp_tag] && !done_q[d_rsp_tag];
// The head retires once answered: a write at once, a read when CHORD takes its data.
assign c_rsp_valid = busy_q[head_q] && done_q[head_q] && !write_q[head_q];
assign c_rsp_data  = data_q[head_q];
assign retire      = busy_q[head_q] && done_q[head_q] && (write_q[head_q] || c_rsp_ready);
assign idle        = (count_q == '0);
assign proto_err   = proto_err_q;
always_ff @(posedge clk) begin
  if (!rst_n) begin
    busy_q      <= '0;
    done_q      <= '0;
    head_q      <= '0;
    tail_q      <= '0;
    count_q     <= '0;
    proto_err_q <= 1'b0;
  end else begin
    if (d_rsp_valid && !answer) proto_err_q <= 1'b1;
    if (answer) done_q[d_rsp_tag] <= 1'b1;
    // A send and a retirement never touch one slot: a send takes a free slot,
    // and the head is in use whenever it retires.
    if (retire) begin
      busy_q[head_q] <= 1'b0;
      done_q[head_q] <= 1'b0;
      head_q         <= head_q + 1'b1;
    end
    if (send) begin
      busy_q[tail_q]  <= 1'b1;
      write_q[tail_q] <= c_req_write;
      tail_q          <= tail_q + 1'b1;
    end
    count_q <= count_q + {NB}'(send) - {NB}'(retire);
  end
end
always_ff @(posedge clk) begin
  if (answer) data_q[d_rsp_tag] <= d_rsp_rdata;
end)",
                                                                                fmt::arg("NB", d.NB), fmt::arg("GB", d.GB)));
}

}  // namespace

ChordDramShape chord_dram_shape(const arch::Arch& a) {
  const LoadUnitShape mem = load_unit_shape(a);  // the top's granule and byte-address widths
  return {mem.granule_bytes, mem.addr_bits, static_cast<int>(std::clamp(std::bit_ceil(dram_requests_in_flight(a)), 4u, 1024u))};
}

void add_chord_dram(Design& design, const std::string& module, const ChordDramShape& s) {
  if (s.slots < 2 || !std::has_single_bit(static_cast<unsigned>(s.slots)))
    throw std::logic_error(fmt::format("{}: slots {} is not a power of two >= 2", module, s.slots));
  if (!std::has_single_bit(static_cast<unsigned>(s.granule_bytes)))
    throw std::logic_error(fmt::format("{}: granule of {} bytes is not a power of two", module, s.granule_bytes));
  const int GB = std::countr_zero(static_cast<unsigned>(s.granule_bytes));
  if (s.addr_bits <= GB) throw std::logic_error(fmt::format("{}: {} address bits hold no granule", module, s.addr_bits));
  const ChordDramDims d{s.granule_bytes, GB, s.addr_bits, s.slots, bits_for(s.slots - 1), bits_for(s.slots)};
  SvModule m(module,
             "CHORD's DRAM port as a client of the top's DRAM arbiter. A request goes out at once\n"
             "(CHORD's word is the top's granule: its address gains log2(granule) zero bits), tagged\n"
             "with the next of SLOTS ring slots; a full ring holds CHORD back. Responses come back\n"
             "by tag in any order and are kept in their slots; the oldest slot retires once answered:\n"
             "a write at once, a read when CHORD takes its data, so CHORD sees read data in the order\n"
             "it asked. A response for a slot with nothing waiting is dropped and sets proto_err.");
  const nlohmann::json params = {{"granule_bytes", s.granule_bytes}, {"addr_bits", s.addr_bits}, {"slots", s.slots}};
  m.record_config(params);
  chord_dram_ports(m, d);
  chord_dram_signals(m, d);
  chord_dram_section(m, d);
  top_parts::finish_part(design, m, "chord_dram", params);
}

}  // namespace cello::gen
