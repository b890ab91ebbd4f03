#include "gen/top/store_unit_gen.hpp"

#include <fmt/format.h>

#include "gen/sv_module.hpp"
#include "gen/top/top_gen_parts.hpp"

namespace cello::gen {

namespace {

constexpr int CW = 16;  // outstanding-write counter (DRAM queues are far shorter)

// Widths shared by the parts of the store unit: the granule widths alone.
using StoreDims = GranuleDims;
StoreDims store_dims(const LoadUnitShape& s) { return granule_dims(s); }

// Ports: word writes in, the DRAM write port, idle and the writes outstanding.
void store_unit_ports(SvModule& m, const StoreDims& d) {
  const int G = d.G, AW = d.AW;
  m.clock_reset();
  m.sink({"wr", "write", "a word is offered", "taken",
          {{"word", AW - 2, "word address (byte address / 4)"}, {"data", 32, "data"}}});
  m.input("flush", 1, "send the assembled granule (hold until idle to drain everything)");
  m.source({"dram_req", "", "DRAM write request", "DRAM write request taken",
            {{"addr", AW, "DRAM: granule-aligned byte address"},
             {"data", 8 * G, "DRAM: granule data, byte k at [8k +: 8]"},
             {"strb", G, "DRAM: byte enables"}}});
  m.sink({"dram_rsp", "", "DRAM write acknowledgement", "always ready", {}});
  m.output("idle", 1, "every write sent and acknowledged");
  m.output("pending", CW, "DRAM writes sent and not yet acknowledged");
}

// The granule being assembled, the outgoing granule write, and the handshake terms.
void store_unit_signals(SvModule& m, const StoreDims& d) {
  const int G = d.G, GB = d.GB, AW = d.AW;
  m.signal("buf_valid_q", 1, "a granule is being assembled");
  m.signal("buf_gran_q", AW - GB, "its granule");
  m.signal("buf_data_q", 8 * G, "its data");
  m.signal("buf_strb_q", G, "its byte enables");
  m.signal("out_valid_q", 1, "a granule write waits for DRAM");
  m.signal("out_gran_q", AW - GB, "its granule");
  m.signal("out_data_q", 8 * G, "its data");
  m.signal("out_strb_q", G, "its byte enables");
  m.signal("pending_q", CW, "unacknowledged DRAM writes");
  m.signal("wr_gran", AW - GB, "granule of the offered write");
  m.signal("out_free", 1, "the outgoing slot is empty or leaves this cycle");
  m.signal("evict", 1, "the assembled granule moves to the outgoing slot");
  m.signal("take", 1, "a write is taken");
  m.signal("sent", 1, "a DRAM write is taken");
  m.signal("word_strb", G, "byte enables of the offered word");
  m.signal("word_data", 8 * G, "the offered word in its place");
}

// Merging words into the assembled granule, sending it, and counting acknowledgements.
void assemble_section(SvModule& m, const StoreDims& d) {
  const int G = d.G, GB = d.GB, GW = d.GW, AW = d.AW;
  const std::string off = GW > 1 ? fmt::format("wr_word[{}:0]", GB - 3) : "";
  const std::string place_strb = GW > 1 ? fmt::format("{}'hf << (4 * {})", G, off) : "4'hf";
  const std::string place_data = GW > 1 ? fmt::format("{}'(wr_data) << (32 * {})", 8 * G, off) : "wr_data";
  m.section("Assemble and send", fmt::format(R"(
assign wr_gran   = wr_word[{AW3}:{GB2}];
assign word_strb = {PS};
assign word_data = {PD};
assign sent      = out_valid_q && dram_req_ready;
assign out_free  = !out_valid_q || dram_req_ready;
// The assembled granule leaves for a write to another granule, or on flush.
assign evict     = buf_valid_q && out_free && ((wr_valid && (wr_gran != buf_gran_q)) || flush);
// A write to another granule waits until the assembled one can leave.
assign wr_ready  = !buf_valid_q || (wr_gran == buf_gran_q && !flush) || evict;
assign take      = wr_valid && wr_ready;
assign dram_req_valid = out_valid_q;
assign dram_req_addr  = {{out_gran_q, {GB}'d0}};
assign dram_req_data  = out_data_q;
assign dram_req_strb  = out_strb_q;
assign dram_rsp_ready = 1'b1;
assign pending        = pending_q;
assign idle           = !buf_valid_q && !out_valid_q && (pending_q == {CW}'d0);
always_ff @(posedge clk) begin
  if (!rst_n) begin
    buf_valid_q <= 1'b0;
    out_valid_q <= 1'b0;
    pending_q   <= '0;
  end else begin
    if (evict) begin
      out_valid_q <= 1'b1;
      out_gran_q  <= buf_gran_q;
      out_data_q  <= buf_data_q;
      out_strb_q  <= buf_strb_q;
    end else if (sent) begin
      out_valid_q <= 1'b0;
    end
    if (take) begin
      buf_valid_q <= 1'b1;
      buf_gran_q  <= wr_gran;
      if (!buf_valid_q || evict) begin  // a fresh granule
        buf_data_q <= word_data;
        buf_strb_q <= word_strb;
      end else begin                    // merge into the assembled one
        for (int b = 0; b < {G}; b++)
          if (word_strb[b]) buf_data_q[8*b +: 8] <= word_data[8*b +: 8];
        buf_strb_q <= buf_strb_q | word_strb;
      end
    end else if (evict) begin
      buf_valid_q <= 1'b0;
    end
    pending_q <= pending_q + {{{CW1}'d0, sent}} - {{{CW1}'d0, dram_rsp_valid}};
  end
end)",
                                                     fmt::arg("AW3", AW - 3), fmt::arg("GB2", GB - 2), fmt::arg("GB", GB),
                                                     fmt::arg("PS", place_strb), fmt::arg("PD", place_data),
                                                     fmt::arg("CW", CW), fmt::arg("CW1", CW - 1), fmt::arg("G", G)));
}

}  // namespace

void add_store_unit(Design& design, const std::string& module, const LoadUnitShape& s) {
  const StoreDims d = store_dims(s);
  const int G = d.G, AW = d.AW;
  SvModule m(module,
             "Store unit of the top: 32-bit word writes merged into granule writes. A write to\n"
             "the granule being assembled merges into it; a write to another granule, or flush,\n"
             "sends the assembled granule with byte enables for the words written. Every DRAM\n"
             "write is acknowledged; idle means nothing is assembled, waiting or unacknowledged.");
  const nlohmann::json params = {{"granule_bytes", G}, {"addr_bits", AW}};
  m.record_config(params);
  store_unit_ports(m, d);
  store_unit_signals(m, d);
  assemble_section(m, d);
  top_parts::finish_part(design, m, "store_unit", params);
}

}  // namespace cello::gen
