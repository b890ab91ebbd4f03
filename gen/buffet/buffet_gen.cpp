#include "gen/buffet/buffet_gen.hpp"

#include <fmt/format.h>

#include "gen/sv_expr.hpp"
#include "gen/sv_module.hpp"

namespace cello::gen {

namespace {

// Widths and region expressions shared by every section of one buffet.
struct BuffetShape {
  const BuffetConfig& c;
  int SW, CW, XW, IW, W;
  bool sram;            // 1-cycle-latency SRAM instead of a flop array
  bool cam;             // RAW scoreboard as a CAM rather than one bit per slot
  int nwr;              // RAM write ports: 2 for a separate update port
  std::string ok;       // appended to the fill/credit conditions: the region is usable
  std::string size;     // CW-bit region size
  std::string size_lo;  // size modulo 2^SW (SW bits): the wrap-around subtrahend
  std::string end_x;    // XW-bit region end (one past the last slot)

  explicit BuffetShape(const BuffetConfig& cfg)
      : c(cfg),
        SW(cfg.slot_width()),
        CW(cfg.count_width()),
        XW(SW + 1),
        IW(cfg.index_width),
        W(cfg.data_width),
        sram(cfg.ram == "sram"),
        cam(cfg.scoreboard && cfg.scoreboard_entries > 0),
        nwr((cfg.update && !cfg.shared_write_port) ? 2 : 1),
        ok(cfg.base_bound ? " && !region_bad" : "") {
    if (c.base_bound) {
      size = "region_size";
      size_lo = low_bits("region_size", CW, SW);
      end_x = zext("bound_q", CW, XW);
    } else {
      size = sv_const(CW, c.depth);
      size_lo = sv_const(SW, c.depth % (1LL << SW));
      end_x = sv_const(XW, c.depth);
    }
  }

  // slot = head + offset, wrapped into the region; sum_expr is XW bits wide and
  // below end + size, so a single conditional subtraction suffices.
  std::string wrap(const std::string& prefix, const std::string& sum_expr) const {
    std::string lo = low_bits(prefix + "_sum", XW, SW);
    return fmt::format("assign {0}_sum  = {1};\nassign {0}_slot = ({0}_sum >= {2}) ? ({3} - {4}) : {3};\n", prefix,
                       sum_expr, end_x, lo, size_lo);
  }
  std::string head_plus(const std::string& off, int off_width) const {
    return fmt::format("{} + {}", zext("head_q", SW, XW), zext(off, off_width, XW));
  }
  // wrap() of head + the low SW bits of an index (or count) idx of width idx_width.
  std::string wrap_index(const std::string& prefix, const std::string& idx, int idx_width) const {
    return wrap(prefix, head_plus(low_bits(idx, idx_width, SW), SW));
  }
  // "(a op b)" for two unsigned values of different widths, both zero-extended
  // to the wider one; op is any SystemVerilog comparison ("<" by default).
  std::string compare(const std::string& a, int wa, const std::string& b, int wb, const char* op = "<") const {
    int w = std::max(wa, wb);
    return fmt::format("({} {} {})", zext(a, wa, w), op, zext(b, wb, w));
  }
};

void declare_ports(SvModule& m, const BuffetShape& s) {
  const auto& c = s.c;
  m.clock_reset();
  if (c.base_bound) {
    m.input("cfg_base", s.SW, "first RAM slot of this buffet's region (sampled while rst_n is low)");
    m.input("cfg_bound", s.CW, "one past the last slot of the region (sampled while rst_n is low)");
  }
  m.sink({"fill", "fill", "producer offers fill_data",
          "a free slot exists (and, shared port, the write port is granted)",
          {{"data", s.W, "element appended at the tail"}}});
  std::vector<Field> rd_req = {{"idx", s.IW, "index relative to the oldest element"}};
  if (c.scoreboard) rd_req.push_back({"will_update", 1, "the slot will be updated; later reads wait"});
  m.sink({"rd_req", "read request", "index valid", "accepted this cycle", rd_req});
  m.source({"rd_rsp", "read response", "data valid (responses in request order)", "consumer takes rd_rsp_data",
            {{"data", s.W, "element"}}});
  if (c.update)
    m.sink({"upd", "update", "write upd_data at upd_idx", "accepted this cycle",
            {{"idx", s.IW, "index relative to the oldest element"}, {"data", s.W, "new element value"}}});
  m.sink({"shr", "shrink", "remove shr_num oldest elements", "accepted this cycle",
          {{"num", s.CW, "element count (0..DEPTH)"}}});
  m.source({"credit", "credits", "free slots to return to the fill producer", "producer takes credit_num",
            {{"num", s.CW, "count returned (DEPTH after reset, then each shrink)"}}});
  m.output("status_err", 4, "sticky errors: [0] read idx >= size, [1] illegal shrink, [2] illegal update, [3] bad region");
}

void region_logic(SvModule& m, const BuffetShape& s) {
  if (!s.c.base_bound) return;
  m.signal("base_q", s.SW, "region base captured in reset");
  m.signal("bound_q", s.CW, "region bound captured in reset");
  m.signal("region_size", s.CW, "slots in the region");
  m.signal("region_bad", 1, "region empty or past the RAM");
  // A bound past the RAM is only representable when DEPTH < 2^CW - 1.
  std::string past_ram = s.c.depth < (1LL << s.CW) - 1
                             ? fmt::format(" || (bound_q > {})", sv_const(s.CW, s.c.depth))
                             : std::string();
  m.section("Runtime region [base, bound): several buffets may share one RAM", fmt::format(R"(
always_ff @(posedge clk) begin
  if (!rst_n) begin
    base_q  <= cfg_base;
    bound_q <= cfg_bound;
  end
end
assign region_size = bound_q - {base};
assign region_bad  = (bound_q <= {base}){past_ram};
)",
                                                                                                 fmt::arg("base", zext("base_q", s.SW, s.CW)),
                                                                                                 fmt::arg("past_ram", past_ram)));
}

// RAW scoreboard as a CAM of scoreboard_entries outstanding will_update slots:
// control independent of DEPTH. A will_update read needs a free entry; a read
// of a slot held in the CAM waits; an update or a new fill of the slot frees it.
void scoreboard_cam(SvModule& m, const BuffetShape& s) {
  const int k = s.c.scoreboard_entries;
  m.localparam("SB_ENTRIES", std::to_string(k), "scoreboard CAM entries (outstanding will_update reads)");
  m.signal("sb_valid_q", k, "CAM entry holds a slot awaiting its update");
  m.array("sb_slot_q", s.SW, k, "CAM entry: the slot awaiting its update");
  m.signal("sb_rd_hit", k, "CAM entries matching the read slot");
  m.signal("sb_upd_hit", k, "CAM entries matching the update slot");
  m.signal("sb_fill_hit", k, "CAM entries matching the fill slot");
  m.signal("sb_free_1h", k, "lowest free CAM entry, one-hot (0 when full)");
  m.signal("sb_alloc", 1, "an accepted will_update read takes the free entry");
  m.section("RAW scoreboard CAM: a will_update read takes a free entry; the update or a new fill of the slot frees it",
            fmt::format(R"(
always_comb begin
  for (int e = 0; e < SB_ENTRIES; e++) begin
    sb_rd_hit[e]   = sb_valid_q[e] && (sb_slot_q[e] == rd_slot);
    sb_upd_hit[e]  = sb_valid_q[e] && (sb_slot_q[e] == upd_slot);
    sb_fill_hit[e] = sb_valid_q[e] && (sb_slot_q[e] == fill_slot);
  end
end
// The lowest clear bit of sb_valid_q: ~v & (v + 1).
assign sb_free_1h = ~sb_valid_q & (sb_valid_q + {one});
assign sb_alloc   = rd_take && rd_req_will_update;
always_ff @(posedge clk) begin
  if (!rst_n) sb_valid_q <= '0;
  else sb_valid_q <= (sb_valid_q & ~({{SB_ENTRIES{{fill_fire}}}} & sb_fill_hit) & ~({{SB_ENTRIES{{upd_take}}}} & sb_upd_hit))
                     | ({{SB_ENTRIES{{sb_alloc}}}} & sb_free_1h);
end
always_ff @(posedge clk) begin
  for (int e = 0; e < SB_ENTRIES; e++)
    if (sb_alloc && sb_free_1h[e]) sb_slot_q[e] <= rd_slot;
end)",
                        fmt::arg("one", sv_const(k, 1))));
}

// Bit-per-slot RAW scoreboard: set by a will_update read, cleared by the update or a new fill.
void scoreboard_bits(SvModule& m) {
  m.section("RAW scoreboard: set by a will_update read, cleared by the update or a new fill", R"(
always_ff @(posedge clk) begin
  if (!rst_n) pending_q <= '0;
  else begin
    if (fill_fire) pending_q[fill_slot] <= 1'b0;
    if (upd_take) pending_q[upd_slot] <= 1'b0;
    if (rd_take && rd_req_will_update) pending_q[rd_slot] <= 1'b1;
  end
end)");
}

SvModule buffet_module(const BuffetShape& s) {
  const auto& c = s.c;
  SvModule m(c.name,
             "Buffet: explicitly decoupled staging buffer with fill / read / update / shrink\n"
             "and credit flow (buffets paper, Algorithm 1). Indices are relative to the\n"
             "oldest element. All ports see the state at the start of a cycle: a read or\n"
             "update accepted together with a shrink uses the old head; the shrink's new\n"
             "head is seen from the next cycle. A read's data is captured when it is\n"
             "accepted, so a later shrink (and the fills it allows) never changes it.");
  m.record_config(c.to_json());
  std::string sb_kind = !c.scoreboard ? "off"
                        : c.scoreboard_entries > 0 ? fmt::format("on (CAM of {} slots)", c.scoreboard_entries)
                                                   : "on (one bit per slot)";
  m.note(fmt::format("Options: update path {}, RAW scoreboard {}, {} write port, shrink sync {}, base/bound {}, {} RAM.",
                     c.update ? "on" : "off (upd_* ports removed)", sb_kind,
                     c.shared_write_port ? "shared" : (c.update ? "separate" : "single"),
                     c.shrink_sync ? "on" : "off", c.base_bound ? "on" : "off",
                     s.sram ? "1-cycle-latency SRAM" : "flop-array"));
  return m;
}

// Window registers: head slot, occupancy, credits on offer and collected, sticky errors.
void declare_window(SvModule& m, const BuffetShape& s) {
  m.localparam("DEPTH", std::to_string(s.c.depth), "physical slots");
  m.signal("head_q", s.SW, "slot of the oldest element");
  m.signal("occ_q", s.CW, "elements in the window (0..size)");
  m.signal("credit_q", s.CW, "credits on offer to the producer (held until taken)");
  m.signal("credit_acc_q", s.CW, "credits freed while credit_q waits");
  m.signal("err_q", 4, "sticky status bits");
}

// Fill port: append at the tail slot while the window has room.
void fill_port(SvModule& m, const BuffetShape& s) {
  m.signal("fill_space", 1, "a free slot exists");
  m.signal("fill_fire", 1, "fill handshake");
  m.signal("fill_sum", s.XW, "head + occupancy before wrap");
  m.signal("fill_slot", s.SW, "tail slot written by a fill");
  std::string fill_ready = "fill_space" + s.ok;
  if (s.c.shared_write_port) fill_ready += " && !(upd_valid && !prefer_fill_q)";
  m.section("Fill: append at the tail", fmt::format(R"(
assign fill_space = {space};
assign fill_ready = {ready};
assign fill_fire  = fill_valid && fill_ready;
{wrap})",
                                                     fmt::arg("space", s.compare("occ_q", s.CW, s.size, s.CW)),
                                                     fmt::arg("ready", fill_ready),
                                                     fmt::arg("wrap", s.wrap_index("fill", "occ_q", s.CW))));
}

// Read request port: index check, RAW hazard wait, slot address.
void read_request(SvModule& m, const BuffetShape& s) {
  m.signal("rd_fire", 1, "read request handshake");
  m.signal("rd_idx_bad", 1, "index can never be in the window: dropped and flagged");
  m.signal("rd_in_window", 1, "index below occupancy");
  m.signal("rd_take", 1, "accepted read that produces a response");
  m.signal("rd_sum", s.XW, "head + index before wrap");
  m.signal("rd_slot", s.SW, "slot read");
  m.signal("rsp_room", 1, "response path can take one more read this cycle");
  m.signal("ram_rdata", s.W, "RAM read data");
  std::string hazard;
  if (s.cam) {
    hazard = " && !(|sb_rd_hit) && (!rd_req_will_update || (|sb_free_1h))";
  } else if (s.c.scoreboard) {
    m.signal("pending_q", s.c.depth, "RAW scoreboard: slot read with will_update, update not yet landed");
    hazard = " && !pending_q[rd_slot]";
  }
  m.section("Read request: wait until the index is filled and not awaiting an update", fmt::format(R"(
assign rd_idx_bad   = {bad};
assign rd_in_window = {inwin};
assign rd_req_ready = rd_idx_bad || (rd_in_window{hazard} && rsp_room);
assign rd_fire      = rd_req_valid && rd_req_ready;
assign rd_take      = rd_fire && !rd_idx_bad;
{wrap})",
                                                                                                     fmt::arg("bad", s.compare("rd_req_idx", s.IW, s.size, s.CW, ">=")),
                                                                                                     fmt::arg("inwin", s.compare("rd_req_idx", s.IW, "occ_q", s.CW)),
                                                                                                     fmt::arg("hazard", hazard),
                                                                                                     fmt::arg("wrap", s.wrap_index("rd", "rd_req_idx", s.IW))));
}

// Read response with a flop RAM: one output register.
void read_response_flop(SvModule& m, const BuffetShape& s) {
  m.signal("rsp_valid_q", 1, "response register full");
  m.signal("rsp_data_q", s.W, "response register");
  m.section("Read response: one register; the flop RAM is read combinationally at acceptance", R"(
assign rsp_room = !rsp_valid_q || rd_rsp_ready;
always_ff @(posedge clk) begin
  if (!rst_n) rsp_valid_q <= 1'b0;
  else if (rd_take) rsp_valid_q <= 1'b1;
  else if (rd_rsp_ready) rsp_valid_q <= 1'b0;
end
always_ff @(posedge clk) begin
  if (rd_take) rsp_data_q <= ram_rdata;
end
assign rd_rsp_valid = rsp_valid_q;
assign rd_rsp_data  = rsp_data_q;)");
}

// Read response with an SRAM: the read is in flight one cycle, then lands in a 2-entry queue.
void read_response_sram(SvModule& m, const BuffetShape& s) {
  m.signal("inflight_q", 1, "a RAM read was issued last cycle; its data is on ram_rdata");
  m.signal("rsp_cnt_q", 2, "responses held in the 2-entry output queue");
  m.signal("rsp_q0", s.W, "output queue head");
  m.signal("rsp_q1", s.W, "output queue second entry");
  m.signal("rsp_pop", 1, "consumer takes the head");
  m.section("Read response: the SRAM answers one cycle after the read; a 2-entry queue keeps 1 read/cycle under back-pressure", R"(
assign rsp_pop  = (rsp_cnt_q != 2'd0) && rd_rsp_ready;
// Issue only if the queue can hold this read's data next cycle.
assign rsp_room = !(((rsp_cnt_q == 2'd2) || ((rsp_cnt_q == 2'd1) && inflight_q)) && !rsp_pop);
always_ff @(posedge clk) begin
  if (!rst_n) begin
    inflight_q <= 1'b0;
    rsp_cnt_q  <= 2'd0;
  end else begin
    inflight_q <= rd_take;
    rsp_cnt_q  <= rsp_cnt_q + {1'b0, inflight_q} - {1'b0, rsp_pop};
  end
end
always_ff @(posedge clk) begin
  if (rsp_pop) begin
    rsp_q0 <= (rsp_cnt_q == 2'd2) ? rsp_q1 : ram_rdata;
    if (rsp_cnt_q == 2'd2 && inflight_q) rsp_q1 <= ram_rdata;
  end else if (inflight_q) begin
    if (rsp_cnt_q == 2'd0) rsp_q0 <= ram_rdata;
    else rsp_q1 <= ram_rdata;
  end
end
assign rd_rsp_valid = rsp_cnt_q != 2'd0;
assign rd_rsp_data  = rsp_q0;)");
}

// Update port: in-place write inside the window; with a shared write port, round-robin with fill.
void update_port(SvModule& m, const BuffetShape& s) {
  const auto& c = s.c;
  m.signal("upd_fire", 1, "update handshake");
  m.signal("upd_legal", 1, "update targets a slot in the window (awaiting an update, with scoreboard)");
  m.signal("upd_take", 1, "accepted legal update: writes the RAM");
  m.signal("upd_sum", s.XW, "head + index before wrap");
  m.signal("upd_slot", s.SW, "slot written");
  std::string legal = s.compare("upd_idx", s.IW, "occ_q", s.CW);
  if (s.cam) legal += " && (|sb_upd_hit)";
  else if (c.scoreboard) legal += " && pending_q[upd_slot]";
  std::string ready = c.shared_write_port ? "!(fill_valid && fill_space" + s.ok + " && prefer_fill_q)" : "1'b1";
  m.section("Update: in-place write of an element in the window", fmt::format(R"(
assign upd_ready = {ready};
assign upd_fire  = upd_valid && upd_ready;
assign upd_legal = {legal};
assign upd_take  = upd_fire && upd_legal;
{wrap})",
                                                                               fmt::arg("ready", ready), fmt::arg("legal", legal),
                                                                               fmt::arg("wrap", s.wrap_index("upd", "upd_idx", s.IW))));
  if (c.shared_write_port) {
    m.signal("prefer_fill_q", 1, "round-robin: fill wins the next conflict");
    m.section("Shared write port: fill and update alternate when both want it", R"(
always_ff @(posedge clk) begin
  if (!rst_n) prefer_fill_q <= 1'b0;
  else if (fill_fire) prefer_fill_q <= 1'b0;
  else if (upd_fire) prefer_fill_q <= 1'b1;
end)");
  }
}

// Shrink port: frees the oldest elements and moves the head.
void shrink_port(SvModule& m, const BuffetShape& s) {
  const auto& c = s.c;
  m.signal("shr_fits", 1, "shr_num <= occupancy");
  m.signal("shr_bad", 1, "illegal shrink: dropped and flagged");
  m.signal("shr_take", 1, "accepted legal shrink");
  m.signal("shr_amount", s.CW, "elements removed this cycle");
  m.signal("shr_sum", s.XW, "head + shr_num before wrap");
  m.signal("shr_slot", s.SW, "new head after the shrink");
  // With synchronisation only a count above the size is illegal; it cannot be
  // expressed when the size is the largest shr_num value.
  bool num_can_exceed = c.base_bound || c.depth < (1LL << s.CW) - 1;
  std::string shr_bad = !c.shrink_sync ? "!shr_fits"
                        : num_can_exceed ? s.compare("shr_num", s.CW, s.size, s.CW, ">")
                                         : "1'b0";
  // A read or update offered in the same cycle is ordered before the shrink: the
  // shrink waits until they are accepted, so it can never overtake them.
  std::string same_cycle = "(!rd_req_valid || rd_req_ready)";
  if (c.update && c.shared_write_port) same_cycle += " && (!upd_valid || upd_ready)";
  std::string shr_ready = c.shrink_sync ? "(shr_fits || shr_bad) && " + same_cycle : same_cycle;
  m.section(c.shrink_sync ? "Shrink: waits until shr_num <= occupancy, then frees slots and returns credits"
                          : "Shrink: no synchronisation (design guarantees shr_num <= occupancy); violations are flagged",
            fmt::format(R"(
assign shr_fits   = {fits};
assign shr_bad    = {bad};
assign shr_ready  = {ready};
assign shr_take   = shr_valid && shr_ready && !shr_bad;
assign shr_amount = shr_take ? shr_num : {zero};
{wrap})",
                        fmt::arg("fits", s.compare("shr_num", s.CW, "occ_q", s.CW, "<=")), fmt::arg("bad", shr_bad),
                        fmt::arg("ready", shr_ready), fmt::arg("zero", sv_const(s.CW, 0)),
                        fmt::arg("wrap", s.wrap("shr", s.head_plus("shr_num", s.CW)))));
}

// Head / occupancy registers and the credit port.
void window_state(SvModule& m, const BuffetShape& s) {
  const auto& c = s.c;
  std::string head_reset = c.base_bound ? "cfg_base" : sv_const(s.SW, 0);
  std::string credit_reset = c.base_bound ? "cfg_bound - " + zext("cfg_base", s.SW, s.CW) : sv_const(s.CW, c.depth);
  m.section("Window state and credits", fmt::format(R"(
always_ff @(posedge clk) begin
  if (!rst_n) begin
    head_q <= {head_reset};
    occ_q  <= {zero};
  end else begin
    if (shr_take) head_q <= shr_slot;
    occ_q <= occ_q + {fill_inc} - shr_amount;
  end
end
// credit_q is on offer and holds until taken; shrinks meanwhile collect in
// credit_acc_q and are offered together once the port is free.
always_ff @(posedge clk) begin
  if (!rst_n) begin
    credit_q     <= {credit_reset};
    credit_acc_q <= {zero};
  end else if (!credit_valid || credit_ready) begin
    credit_q     <= credit_acc_q + shr_amount;
    credit_acc_q <= {zero};
  end else begin
    credit_acc_q <= credit_acc_q + shr_amount;
  end
end
assign credit_valid = (credit_q != {zero}){ok};
assign credit_num   = credit_q;)",
                                                    fmt::arg("head_reset", head_reset), fmt::arg("credit_reset", credit_reset),
                                                    fmt::arg("zero", sv_const(s.CW, 0)),
                                                    fmt::arg("fill_inc", zext("fill_fire", 1, s.CW)), fmt::arg("ok", s.ok)));
}

// Sticky status bits for dropped commands and a bad region.
void status(SvModule& m, const BuffetShape& s) {
  std::string upd_err = s.c.update ? "upd_fire && !upd_legal" : "1'b0";
  std::string region_err = s.c.base_bound ? "region_bad" : "1'b0";
  m.section("Status: illegal commands are dropped and reported, never hang the buffet", fmt::format(R"(
always_ff @(posedge clk) begin
  if (!rst_n) err_q <= 4'd0;
  else err_q <= err_q | {{{region}, {upd}, shr_valid && shr_ready && shr_bad, rd_fire && rd_idx_bad}};
end
assign status_err = err_q;)",
                                                                                                     fmt::arg("region", region_err), fmt::arg("upd", upd_err)));
}

// The RAM instance (flop array or SRAM) and, for a shared write port, its write mux.
void ram(Design& design, SvModule& m, const BuffetShape& s) {
  design.primitives.insert(s.sram ? "ram_sram" : "ram_flop");
  std::string we, waddr, wdata;
  if (s.nwr == 2) {
    we = "{upd_take, fill_fire}";
    waddr = "{upd_slot, fill_slot}";
    wdata = "{upd_data, fill_data}";
  } else if (s.c.shared_write_port) {
    m.signal("ram_we", 1, "shared write port enable");
    m.signal("ram_waddr", s.SW, "shared write port address");
    m.signal("ram_wdata", s.W, "shared write port data");
    m.section("Shared write port mux (arbitration above guarantees one writer)", R"(
assign ram_we    = fill_fire || upd_take;
assign ram_waddr = fill_fire ? fill_slot : upd_slot;
assign ram_wdata = fill_fire ? fill_data : upd_data;)");
    we = "ram_we";
    waddr = "ram_waddr";
    wdata = "ram_wdata";
  } else {
    we = "fill_fire";
    waddr = "fill_slot";
    wdata = "fill_data";
  }
  auto& inst = m.instantiate(s.sram ? "ram_sram" : "ram_flop", "u_ram")
                   .param("DEPTH", "DEPTH")
                   .param("WIDTH", std::to_string(s.W))
                   .param("AW", std::to_string(s.SW))
                   .param("NWR", std::to_string(s.nwr))
                   .connect("clk", "clk")
                   .connect("we", we)
                   .connect("waddr", waddr)
                   .connect("wdata", wdata);
  if (s.sram) inst.connect("re", "rd_take");
  inst.connect("raddr", "rd_slot").connect("rdata", "ram_rdata");
}

// The block record for the design's manifest: module, parameters and ports.
void record_block(Design& design, const SvModule& m, const BuffetConfig& c) {
  design.blocks.push_back(block_entry(m, "buffet", c.to_json()));
}

}  // namespace

void add_buffet(Design& design, const BuffetConfig& c) {
  BuffetShape s(c);
  SvModule m = buffet_module(s);
  declare_ports(m, s);
  declare_window(m, s);
  region_logic(m, s);

  fill_port(m, s);
  read_request(m, s);
  if (s.sram) read_response_sram(m, s);
  else read_response_flop(m, s);
  if (c.update) update_port(m, s);
  if (s.cam) scoreboard_cam(m, s);
  else if (c.scoreboard) scoreboard_bits(m);
  shrink_port(m, s);

  window_state(m, s);
  status(m, s);
  ram(design, m, s);

  record_block(design, m, c);
  design.modules.push_back(std::move(m));
}

}  // namespace cello::gen
