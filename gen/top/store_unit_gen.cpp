#include "gen/top/store_unit_gen.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "gen/sv_module.hpp"
#include "gen/top/top_gen_parts.hpp"

namespace cello::gen {

namespace {

constexpr int CW = 16;  // outstanding-write counter (DRAM queues are far shorter)

// Widths shared by the parts of the store unit: the granule widths and the
// window of open granules.
struct StoreDims : GranuleDims {
  int W;   // granules open for merging
  int WB;  // slot index
  int NB;  // open-granule count
  bool PAIRS;  // wr_pair, wr_data2 (LoadUnitShape::pairs)
};
StoreDims store_dims(const LoadUnitShape& s) {
  StoreDims d{granule_dims(s), s.store_window, std::max(1, bits_for(s.store_window - 1)), bits_for(s.store_window),
              false};
  d.PAIRS = s.pairs && d.GW > 1;
  return d;
}

// Ports: word writes in, the DRAM write port, idle and the writes outstanding.
void store_unit_ports(SvModule& m, const StoreDims& d) {
  const int G = d.G, AW = d.AW;
  m.clock_reset();
  std::vector<Field> wr = {{"word", AW - 2, "word address (byte address / 4)"}, {"data", 32, "data"}};
  if (d.PAIRS) {
    wr.push_back({"pair", 1, "data2 goes to word + 1 (word is even: the pair lies in one granule)"});
    wr.push_back({"data2", 32, "the pair's second word"});
  }
  m.sink({"wr", "write", "a word (or an aligned pair) is offered", "taken", wr});
  m.input("flush", 1, "send the open granules, one per cycle (hold until idle to drain everything)");
  m.source({"dram_req", "", "DRAM write request", "DRAM write request taken",
            {{"addr", AW, "DRAM: granule-aligned byte address"},
             {"data", 8 * G, "DRAM: granule data, byte k at [8k +: 8]"},
             {"strb", G, "DRAM: byte enables"}}});
  m.sink({"dram_rsp", "", "DRAM write acknowledgement", "always ready", {}});
  m.output("idle", 1, "every write sent and acknowledged");
  m.output("pending", CW, "DRAM writes sent and not yet acknowledged");
  m.localparam("WINDOW", std::to_string(d.W), "granules open for merging (the last WINDOW opened)");
}

// The open granules (a ring, oldest at the head), the outgoing granule write,
// and the handshake terms.
void store_unit_signals(SvModule& m, const StoreDims& d) {
  const int G = d.G, GB = d.GB, AW = d.AW;
  m.array("slot_valid_q", 1, d.W, "open granule: slot in use");
  m.array("slot_gran_q", AW - GB, d.W, "open granule: its granule");
  m.array("slot_data_q", 8 * G, d.W, "open granule: its data");
  m.array("slot_strb_q", G, d.W, "open granule: its byte enables");
  m.signal("head_q", d.WB, "oldest open granule");
  m.signal("count_q", d.NB, "open granules");
  m.signal("out_valid_q", 1, "a granule write waits for DRAM");
  m.signal("out_gran_q", AW - GB, "its granule");
  m.signal("out_data_q", 8 * G, "its data");
  m.signal("out_strb_q", G, "its byte enables");
  m.signal("pending_q", CW, "unacknowledged DRAM writes");
  m.signal("wr_gran", AW - GB, "granule of the offered write");
  m.signal("hit", 1, "the offered write's granule is open");
  m.signal("hit_slot", d.WB, "its slot");
  m.signal("full", 1, "every slot is open");
  m.signal("tail_sum", d.WB + 1, "head + count, before wrapping");
  m.signal("new_slot", d.WB, "slot a new granule opens in");
  m.signal("head_next", d.WB, "the slot after the head");
  m.signal("out_free", 1, "the outgoing slot is empty or leaves this cycle");
  m.signal("evict", 1, "the oldest open granule moves to the outgoing slot");
  m.signal("take", 1, "a write is taken");
  m.signal("open_new", 1, "the write taken opens a granule");
  m.signal("sent", 1, "a DRAM write is taken");
  m.signal("word_strb", G, "byte enables of the offered word");
  m.signal("word_data", 8 * G, "the offered word in its place");
}

// Merging words into the open granules, sending the oldest, and counting acknowledgements.
void assemble_section(SvModule& m, const StoreDims& d) {
  const int G = d.G, GB = d.GB, GW = d.GW, AW = d.AW;
  const std::string off = GW > 1 ? fmt::format("wr_word[{}:0]", GB - 3) : "";
  // A pair's two words go to the even offset and the one after it.
  const std::string place_strb =
      GW > 1 ? (d.PAIRS ? fmt::format("(wr_pair ? {0}'(8'hff) : {0}'(8'h0f)) << (4 * {1})", G, off)
                        : fmt::format("{}'(4'hf) << (4 * {})", G, off))
             : "4'hf";
  const std::string place_data =
      GW > 1 ? fmt::format("{}'({}) << (32 * {})", 8 * G, d.PAIRS ? "{wr_data2, wr_data}" : "wr_data", off) : "wr_data";
  // A merge writes the word's 32 bits in place: no byte loop, which Verilator
  // cannot unroll past 64 iterations (granules of 128 bytes and more).
  const std::string merge = GW > 1 ? fmt::format("slot_data_q[hit_slot][32 * {} +: 32]", off) : "slot_data_q[hit_slot]";
  m.section("Merge, open and send", fmt::format(R"(
assign wr_gran   = wr_word[{AW3}:{GB2}];
assign word_strb = {PS};
assign word_data = {PD};
// The open granules are distinct (a granule opens only on a miss), so at most one matches.
{MATCH}
assign full      = (count_q == {NB}'(WINDOW));
assign tail_sum  = {{1'b0, head_q}} + {WB1}'(count_q);
// A new granule opens after the newest, or in the head's slot when the window is full.
assign new_slot  = full ? head_q : (tail_sum >= {WB1}'(WINDOW)) ? {WB}'(tail_sum - {WB1}'(WINDOW)) : {WB}'(tail_sum);
assign head_next = (head_q == {WB}'(WINDOW - 1)) ? '0 : head_q + {WB}'d1;
assign sent      = out_valid_q && dram_req_ready;
assign out_free  = !out_valid_q || dram_req_ready;
// The oldest open granule leaves on flush, or to make room for a new one.
assign evict     = out_free && (count_q != '0) && (flush || (wr_valid && !hit && full));
// No write is taken while flushing; a new granule waits for room.
assign wr_ready  = !flush && (hit || !full || evict);
assign take      = wr_valid && wr_ready;
assign open_new  = take && !hit;
assign dram_req_valid = out_valid_q;
assign dram_req_addr  = {{out_gran_q, {GB}'d0}};
assign dram_req_data  = out_data_q;
assign dram_req_strb  = out_strb_q;
assign dram_rsp_ready = 1'b1;
assign pending        = pending_q;
assign idle           = (count_q == '0) && !out_valid_q && (pending_q == {CW}'d0);
always_ff @(posedge clk) begin
  if (!rst_n) begin
    for (int k = 0; k < WINDOW; k++) slot_valid_q[k] <= 1'b0;
    head_q      <= '0;
    count_q     <= '0;
    out_valid_q <= 1'b0;
    pending_q   <= '0;
  end else begin
    if (evict) begin
      out_valid_q <= 1'b1;
      out_gran_q  <= slot_gran_q[head_q];
      out_data_q  <= slot_data_q[head_q];
      out_strb_q  <= slot_strb_q[head_q];
      head_q      <= head_next;
      if (!open_new) slot_valid_q[head_q] <= 1'b0;
    end else if (sent) begin
      out_valid_q <= 1'b0;
    end
    count_q <= count_q + {NB}'(open_new && !evict) - {NB}'(evict && !open_new);
    if (open_new) begin  // a fresh granule (the evicted head's slot when full)
      slot_valid_q[new_slot] <= 1'b1;
      slot_gran_q[new_slot]  <= wr_gran;
      slot_data_q[new_slot]  <= word_data;
      slot_strb_q[new_slot]  <= word_strb;
    end else if (take) begin  // merge into the open one (a later write of a word wins)
      {MERGE} <= wr_data;{MERGE2}
      slot_strb_q[hit_slot] <= slot_strb_q[hit_slot] | word_strb;
    end
    pending_q <= pending_q + {{{CW1}'d0, sent}} - {{{CW1}'d0, dram_rsp_valid}};
  end
end)",
                                                     fmt::arg("AW3", AW - 3), fmt::arg("GB2", GB - 2), fmt::arg("GB", GB),
                                                     fmt::arg("PS", place_strb), fmt::arg("PD", place_data),
                                                     fmt::arg("MATCH", top_parts::tag_match({"WINDOW", "slot_valid_q", "slot_gran_q", "wr_gran", "hit", "1'b1", "hit_slot", fmt::format("{}'(k)", d.WB)})),
                                                     fmt::arg("WB", d.WB), fmt::arg("WB1", d.WB + 1), fmt::arg("NB", d.NB),
                                                     fmt::arg("CW", CW), fmt::arg("CW1", CW - 1),
                                                     fmt::arg("MERGE", merge),
                                                     fmt::arg("MERGE2", d.PAIRS ? fmt::format("\n      if (wr_pair) slot_data_q[hit_slot][32 * {} +: 32] <= wr_data2;", odd_word(GB - 2, "wr_word")) : std::string())));
}

}  // namespace

void add_store_unit(Design& design, const std::string& module, const LoadUnitShape& s) {
  const StoreDims d = store_dims(s);
  const int G = d.G, AW = d.AW;
  SvModule m(module,
             "Store unit of the top: 32-bit word writes merged into granule writes. The last\n"
             "WINDOW granules written stay open: a write to one of them merges into it; a write\n"
             "to another opens it, sending the oldest open granule when all WINDOW are open, with\n"
             "byte enables for the words written. flush sends the open granules, oldest first.\n"
             "Every DRAM write is acknowledged; idle means nothing is open, waiting or unacknowledged.");
  const nlohmann::json params = {{"granule_bytes", G}, {"addr_bits", AW}, {"window", d.W}};
  m.record_config(params);
  store_unit_ports(m, d);
  store_unit_signals(m, d);
  assemble_section(m, d);
  top_parts::finish_part(design, m, "store_unit", params);
}

}  // namespace cello::gen
