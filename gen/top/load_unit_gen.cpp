#include "gen/top/load_unit_gen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include "gen/sv_module.hpp"
#include "gen/top/top_gen_parts.hpp"

namespace cello::gen {

unsigned dram_requests_in_flight(const arch::Arch& a) {
  return static_cast<unsigned>(std::ceil(a.dram_latency * a.dram_bytes_per_cycle / a.granule_bytes)) + 2;
}

LoadUnitShape load_unit_shape(const arch::Arch& a) {
  LoadUnitShape s;
  s.granule_bytes = static_cast<int>(a.granule_bytes);
  s.addr_bits = bits_for(static_cast<long long>(a.memory_bytes - 1));
  const unsigned in_flight = dram_requests_in_flight(a);
  s.window = static_cast<int>(a.load_window);
  s.store_window = static_cast<int>(a.store_window);
  // The window's lines stay held, so at least as many more cover the requests in flight.
  s.lines = static_cast<int>(std::max(std::clamp(std::bit_ceil(in_flight), 4u, 64u), std::bit_ceil(2u * a.load_window)));
  s.queue = static_cast<int>(std::clamp(std::bit_ceil(a.dram_latency + 8), 16u, 512u));
  return s;
}

LoadUnitShape value_load_unit_shape(const arch::Arch& a) {
  LoadUnitShape s = load_unit_shape(a);
  s.queue = std::min(2 * s.queue, 1024);
  return s;
}

namespace {

// Reads served from a pinned copy take their word at once into a FIFO of this
// many words (a row's last entries in the next row's first granule: at most 3
// per row of a group), so a pin slot can be replaced while its reads wait.
constexpr int kSideWords = 16;

// New lines' DRAM requests wait in a FIFO of this many entries for the DRAM
// arbiter's grant. A row of a column-major operand opens a granule per word,
// one per cycle, while other units request too; two entries were too few
// there (docs/top.md, "Load unit").
constexpr int kDramFifo = 4;

// Widths shared by the parts of the load unit.
struct LoadDims : GranuleDims {
  int D;   // lines
  int LW;  // line index
  int F;   // read queue entries
  int FW;  // read queue index
  int UW;  // reads waiting on a line
  int OW;  // word offset in a granule
  int W;   // reuse window entries
  int WB;  // reuse window pointer
  int P;   // pinned granules
  int PB;  // pin slot index
  int S;   // words served from pinned copies and not yet returned
  int SB;  // their FIFO's index
  bool PAIRS;  // rsp_data2 (LoadUnitShape::pairs)
};

LoadDims load_dims(const LoadUnitShape& s) {
  LoadDims d{};
  static_cast<GranuleDims&>(d) = granule_dims(s);
  d.D = s.lines;
  d.LW = line_tag_bits(s);
  d.F = s.queue;
  d.FW = log2_pow2(d.F);
  d.UW = d.FW + 1;
  d.OW = d.GB - 2;
  d.W = s.window;
  d.WB = bits_for(d.W - 1);
  d.P = s.pins;
  d.PB = bits_for(d.P - 1);
  d.S = kSideWords;
  d.SB = log2_pow2(d.S);
  d.PAIRS = s.pairs && d.GW > 1;
  return d;
}

// Ports: word reads in and out, the DRAM read port; sizes as localparams.
void load_unit_ports(SvModule& m, const LoadDims& d) {
  const int G = d.G, AW = d.AW, D = d.D, LW = d.LW, F = d.F;
  m.clock_reset();
  m.input("inval", 1, "empty the reuse window before this cycle's read (pulse between ops)");
  m.sink({"req", "read", "a word address is offered", "taken",
          {{"word", AW - 2, "word address (byte address / 4)"},
           {"pin", 1, "keep this read's granule readable until PINS newer granules are pinned or inval"}}});
  std::vector<Field> rsp = {{"data", 32, "data"}};
  if (d.PAIRS) rsp.push_back({"data2", 32, "the odd word of data's aligned pair (data itself for an odd word; 0 from a pinned copy)"});
  m.source({"rsp", "word out", "the oldest read's data is here", "taken", rsp});
  m.source({"dram_req", "", "DRAM read request", "DRAM read request taken",
            {{"addr", AW, "DRAM: granule-aligned byte address"}, {"tag", LW, "DRAM: line the response fills"}}});
  m.sink({"dram_rsp", "", "DRAM read response", "always ready: every request has its line reserved",
          {{"data", 8 * G, "DRAM: granule data, byte k at [8k +: 8]"}, {"tag", LW, "DRAM: line of the response"}}});
  m.output("idle", 1, "no read waiting (every requested word has left)");
  m.localparam("LINES", std::to_string(D), "granule lines");
  m.localparam("QUEUE", std::to_string(F), "reads in flight");
  m.localparam("WINDOW", std::to_string(d.W), "reuse window: the last WINDOW lines allocated since inval");
  m.localparam("PINS", std::to_string(d.P), "pinned granules: copies of the last PINS granules pinned since inval");
  m.localparam("SIDE", std::to_string(d.S), "words served from pinned copies and not yet returned");
}

// Lines, the reuse window, the read queue, and the handshake terms.
void load_unit_signals(SvModule& m, const LoadDims& d) {
  const int G = d.G, GB = d.GB, GW = d.GW, AW = d.AW, D = d.D, LW = d.LW, F = d.F, FW = d.FW, UW = d.UW,
            OW = d.OW;
  m.array("line_data_q", 8 * G, D, "line data");
  m.signal("line_valid_q", D, "line holds its granule");
  m.array("uses_q", UW, D, "reads waiting on each line");
  m.signal("alloc_q", LW, "next line to allocate");
  m.signal("free_q", LW, "oldest allocated line");
  m.signal("lines_q", LW + 1, "allocated lines");
  m.array("win_valid_q", 1, d.W, "reuse window: entry holds a line");
  m.array("win_gran_q", AW - GB, d.W, "reuse window: granule of each entry");
  m.array("win_line_q", LW, d.W, "reuse window: line of each entry");
  if (d.W > 1) m.signal("win_ptr_q", d.WB, "reuse window: entry the next new line replaces (oldest)");
  m.array("pin_valid_q", 1, d.P, "pin: slot holds a pinned granule");
  m.array("pin_full_q", 1, d.P, "pin: its copy has been taken (a read of its line has left)");
  m.array("pin_gran_q", AW - GB, d.P, "pin: its granule");
  m.array("pin_line_q", LW, d.P, "pin: the line its copy comes from");
  m.array("pin_data_q", 8 * G, d.P, "pin: the copy");
  m.signal("pin_ptr_q", d.PB, "pin: slot the next pinned granule replaces (oldest)");
  m.array("side_q", 32, d.S, "pinned words: the words of reads served from a pinned copy, in request order");
  m.signal("side_wr_q", d.SB, "pinned words: write pointer");
  m.signal("side_rd_q", d.SB, "pinned words: read pointer");
  m.signal("side_cnt_q", d.SB + 1, "pinned words: words held");
  m.signal("side_word", 32, "the offered read's word in its pinned copy");
  m.signal("side_take", 1, "the offered read takes its word from a pinned copy that has arrived");
  m.signal("pin_match", 1, "the offered read's granule is pinned");
  m.signal("pin_slot", d.PB, "its slot");
  m.signal("pin_hit", 1, "the offered read's granule is pinned and not in the window");
  m.signal("pin_push", 1, "the read taken pins its granule");
  m.signal("push_line", LW, "the line of the granule being pinned");
  m.signal("head_data", 8 * G, "the oldest read's line");
  m.signal("pin_copy", d.P, "pin k takes its copy from the oldest read's line this cycle");
  m.signal("head_pin", 1, "the oldest read takes its word from a pinned copy");
  m.array("q_pin_q", 1, F, "read queue: the read's word was taken from a pinned copy (it waits in side_q)");
  m.array("q_line_q", LW, F, "read queue: line of each read");
  if (GW > 1) m.array("q_off_q", OW, F, "read queue: word offset in the granule");
  m.signal("q_head_q", FW, "read queue head");
  m.signal("q_tail_q", FW, "read queue tail");
  m.signal("q_count_q", FW + 1, "reads in the queue");
  m.signal("req_gran", AW - GB, "granule of the offered read");
  m.signal("win_hit", 1, "the offered read coalesces into a line of the reuse window");
  m.signal("hit_line", LW, "the window's line of the offered read's granule");
  m.signal("line_avail", 1, "a line can be allocated");
  m.signal("q_space", 1, "the read queue has room");
  m.signal("take", 1, "a read is taken");
  top_parts::small_fifo(m, "dq", "DRAM request FIFO", kDramFifo, {{"gran", AW - GB, "req_gran"}, {"tag", LW, "alloc_q"}},
                            "new_line", "dram_req_valid && dram_req_ready");
  m.signal("new_line", 1, "the read allocates a line and requests its granule");
  m.signal("word_line", LW, "line of the read taken");
  m.signal("head_line", LW, "line of the oldest read");
  m.signal("pop", 1, "the oldest read's word leaves");
  m.signal("free_held", 1, "the oldest line is in the reuse window");
  m.signal("free_now", 1, "the oldest line is released");
}

// Read side: a read coalesces into a line of the reuse window or allocates a
// line and requests its granule.
void read_side_section(SvModule& m, const LoadDims& d) {
  const int GB = d.GB, AW = d.AW, D = d.D, LW = d.LW, FW = d.FW;
  m.section("Read side: coalesce or allocate a line", fmt::format(R"(
assign req_gran   = req_word[{AW1}:{GB}];
// The window's granules are distinct (a line is allocated only on a miss), so at
// most one entry matches; inval empties the window before this cycle's read.
{WIN_MATCH}
// Pinned granules are distinct too (a granule already pinned is not pinned
// again). A read the window misses is served by a pinned granule.
{PIN_MATCH}
assign pin_hit   = pin_match && !win_hit;
assign push_line = win_hit ? hit_line : alloc_q;
assign side_word = pin_data_q[pin_slot]{OFFSEL};
assign line_avail = (lines_q != {LW1}'d{D});
assign q_space    = (q_count_q != {FW1}'(QUEUE));
// A read of a new granule enters a two-entry FIFO of DRAM requests (room is a
// registered count), so a read waits for a line and queue room, never for the
// DRAM arbiter's grant in the same cycle.
assign dram_req_valid = dq_valid;
assign dram_req_addr  = {{dq_gran, {GBB}'d0}};
assign dram_req_tag   = dq_tag;
// A read served from a pinned copy takes its word into side_q at once, and
// waits for room there; before the copy is taken it joins the line the copy
// comes from (still held: the pinned read waits on it).
assign side_take      = pin_hit && pin_full_q[pin_slot];
assign req_ready      = q_space && (win_hit || (pin_hit && !side_take) ||
                                    (side_take ? (side_cnt_q != {SB1}'(SIDE)) : (line_avail && dq_space)));
assign take           = req_valid && req_ready;
assign new_line       = take && !win_hit && !pin_hit;
assign pin_push       = take && req_pin && !pin_match;
assign word_line      = win_hit ? hit_line : pin_hit ? pin_line_q[pin_slot] : alloc_q;)",
                                                                    fmt::arg("AW1", AW - 3), fmt::arg("GB", GB - 2), fmt::arg("GBB", GB),
                                                                    fmt::arg("SB1", d.SB + 1),
                                                                    fmt::arg("WIN_MATCH", top_parts::tag_match({"WINDOW", "win_valid_q", "win_gran_q", "req_gran", "win_hit", "!inval", "hit_line", "win_line_q[k]"})),
                                                                    fmt::arg("PIN_MATCH", top_parts::tag_match({"PINS", "pin_valid_q", "pin_gran_q", "req_gran", "pin_match", "!inval", "pin_slot", fmt::format("{}'(k)", d.PB)})),
                                                                    fmt::arg("OFFSEL", d.GW > 1 ? fmt::format("[32*req_word[{}:0] +: 32]", GB - 3) : std::string()),
                                                                    fmt::arg("LW1", LW + 1), fmt::arg("D", D),
                                                                    fmt::arg("FW1", FW + 1)));
}

}  // namespace

std::string odd_word(int offset_bits, const std::string& word) {
  return offset_bits > 1 ? fmt::format("{{{}[{}:1], 1'b1}}", word, offset_bits - 1) : std::string("1'b1");
}

namespace {

// Word side: the oldest read's word leaves once its line is filled; lines are released in order.
void word_side_section(SvModule& m, const LoadDims& d) {
  const int GW = d.GW, LW = d.LW, FW = d.FW, UW = d.UW;
  const std::string off = GW > 1 ? "[32*q_off_q[q_head_q] +: 32]" : "";
  const std::string word_sel = fmt::format("head_pin ? side_q[side_rd_q] : head_data{}", off);
  m.section("Word side: in request order", fmt::format(R"(
assign head_line      = q_line_q[q_head_q];
assign head_pin       = q_pin_q[q_head_q];
assign rsp_valid      = (q_count_q != {FW1}'d0) && (head_pin || line_valid_q[head_line]);
assign head_data      = line_data_q[head_line];
// A pinned granule's copy is taken from its line when a read of that line
// leaves (the pinned read itself at the latest, which holds the line till
// then): the word port already reads the whole line.
always_comb
  for (int k = 0; k < PINS; k++) pin_copy[k] = !pin_full_q[k] && pop && !head_pin && (head_line == pin_line_q[k]);
assign rsp_data       = {SEL};{DATA2}
assign pop            = rsp_valid && rsp_ready;
assign dram_rsp_ready = 1'b1;
assign idle           = (q_count_q == {FW1}'d0);
// The oldest line is released once no read waits on it and no window entry holds it.
always_comb begin
  free_held = 1'b0;
  for (int k = 0; k < WINDOW; k++)
    if (win_valid_q[k] && (win_line_q[k] == free_q)) free_held = 1'b1;
end
assign free_now = (lines_q != {LW1}'d0) && line_valid_q[free_q] && (uses_q[free_q] == {UW}'d0) && !free_held;)",
                                                           fmt::arg("FW1", FW + 1), fmt::arg("SEL", word_sel),
                                                           fmt::arg("DATA2", d.PAIRS ? fmt::format("\nassign rsp_data2      = head_pin ? '0 : head_data[32*{} +: 32];", odd_word(d.OW, "q_off_q[q_head_q]")) : std::string()),
                                                           fmt::arg("LW1", LW + 1), fmt::arg("UW", UW)));
}

// State: line allocation and release, reads waiting per line, the read queue, line data.
void load_state_section(SvModule& m, const LoadDims& d) {
  const int GB = d.GB, GW = d.GW, LW = d.LW, FW = d.FW, UW = d.UW;
  const std::string off_expr = fmt::format("req_word[{}:0]", GB - 3);
  m.section("State", fmt::format(R"(
always_ff @(posedge clk) begin
  if (!rst_n) begin
    line_valid_q <= '0;
    alloc_q      <= '0;
    free_q       <= '0;
    lines_q      <= '0;
    for (int k = 0; k < WINDOW; k++) win_valid_q[k] <= 1'b0;
{PTR_RESET}    q_head_q     <= '0;
    q_tail_q     <= '0;
    q_count_q    <= '0;
    for (int i = 0; i < LINES; i++) uses_q[i] <= '0;
    for (int k = 0; k < PINS; k++) pin_valid_q[k] <= 1'b0;
    pin_ptr_q    <= '0;
    side_wr_q    <= '0;
    side_rd_q    <= '0;
    side_cnt_q   <= '0;
  end else begin
    if (inval) begin
      for (int k = 0; k < WINDOW; k++) win_valid_q[k] <= 1'b0;
      for (int k = 0; k < PINS; k++) pin_valid_q[k] <= 1'b0;
    end
    // A new line enters the window in place of its oldest entry, which leaves
    // that entry's line free to be released.
    if (new_line) begin
      alloc_q            <= alloc_q + {LW}'d1;
      win_valid_q[{PTR}] <= 1'b1;
      win_gran_q[{PTR}]  <= req_gran;
      win_line_q[{PTR}]  <= alloc_q;
{ADVANCE}    end
    lines_q <= lines_q + {{{LW}'d0, new_line}} - {{{LW}'d0, free_now}};
    if (free_now) begin
      free_q               <= free_q + {LW}'d1;
      line_valid_q[free_q] <= 1'b0;
    end
    if (dram_rsp_valid) line_valid_q[dram_rsp_tag] <= 1'b1;
    for (int i = 0; i < LINES; i++)
      uses_q[i] <= uses_q[i] + {{{UW1}'d0, take && !side_take && (word_line == {LW}'(i))}}
                             - {{{UW1}'d0, pop && !head_pin && (head_line == {LW}'(i))}};
    if (take && side_take) begin
      side_q[side_wr_q] <= side_word;
      side_wr_q         <= side_wr_q + {SB}'d1;
    end
    if (pop && head_pin) side_rd_q <= side_rd_q + {SB}'d1;
    side_cnt_q <= side_cnt_q + {SB1}'(take && side_take) - {SB1}'(pop && head_pin);
    for (int k = 0; k < PINS; k++)
      if (pin_copy[k]) pin_full_q[k] <= 1'b1;
    if (pin_push) begin
      pin_valid_q[pin_ptr_q] <= 1'b1;
      pin_gran_q[pin_ptr_q]  <= req_gran;
      pin_line_q[pin_ptr_q]  <= push_line;
      pin_full_q[pin_ptr_q]  <= 1'b0;
      pin_ptr_q              <= (pin_ptr_q == {PB}'(PINS - 1)) ? '0 : pin_ptr_q + {PB}'d1;
    end
    if (take) begin
      q_pin_q[q_tail_q]  <= side_take;
      q_line_q[q_tail_q] <= word_line;
{OFF}      q_tail_q           <= q_tail_q + {FW}'d1;
    end
    if (pop) q_head_q <= q_head_q + {FW}'d1;
    q_count_q <= q_count_q + {{{FW}'d0, take}} - {{{FW}'d0, pop}};
  end
end
always_ff @(posedge clk) begin
  if (dram_rsp_valid) line_data_q[dram_rsp_tag] <= dram_rsp_data;
  for (int k = 0; k < PINS; k++)
    if (pin_copy[k]) pin_data_q[k] <= head_data;
end)",
                                                fmt::arg("LW", LW), fmt::arg("UW1", UW - 1), fmt::arg("FW", FW), fmt::arg("PB", d.PB),
                                                fmt::arg("SB", d.SB), fmt::arg("SB1", d.SB + 1),
                                                fmt::arg("PTR", d.W > 1 ? "win_ptr_q" : "0"),
                                                fmt::arg("PTR_RESET", d.W > 1 ? "    win_ptr_q    <= '0;\n" : ""),
                                                fmt::arg("ADVANCE", d.W > 1 ? fmt::format("      win_ptr_q <= (win_ptr_q == {}'(WINDOW - 1)) ? '0 : win_ptr_q + {}'d1;\n", d.WB, d.WB) : std::string()),
                                                fmt::arg("OFF", GW > 1 ? fmt::format("      q_off_q[q_tail_q]  <= {};\n", off_expr) : std::string())));
}

}  // namespace

void add_load_unit(Design& design, const std::string& module, const LoadUnitShape& s) {
  const LoadDims d = load_dims(s);
  const int G = d.G, AW = d.AW, D = d.D, F = d.F;
  SvModule m(module,
             "Load unit of the top: 32-bit word reads served from DRAM one granule at a time.\n"
             "A read of one of the last WINDOW granules fetched (the reuse window) shares that\n"
             "granule's line; reads of other granules are in flight together, one line each, and\n"
             "their responses may return in any order (dram_rsp_tag names the line). Words leave\n"
             "in request order. inval empties the window, so that the next read of any granule\n"
             "goes to DRAM again.");
  const nlohmann::json params = {{"granule_bytes", G}, {"addr_bits", AW}, {"lines", D}, {"queue", F}, {"window", d.W}};
  m.record_config(params);
  load_unit_ports(m, d);
  load_unit_signals(m, d);
  read_side_section(m, d);
  word_side_section(m, d);
  load_state_section(m, d);
  top_parts::finish_part(design, m, "load_unit", params);
}

}  // namespace cello::gen
