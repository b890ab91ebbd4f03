#include "gen/top/top_gen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <iterator>

#include "gen/sv_module.hpp"
#include "gen/top/chord_cmd_gen.hpp"
#include "gen/top/chord_dram_gen.hpp"
#include "gen/top/chord_port_gen.hpp"
#include "gen/top/chord_route_gen.hpp"
#include "gen/top/cmd_decoder_gen.hpp"
#include "gen/top/counters_gen.hpp"
#include "gen/top/dram_arbiter_gen.hpp"
#include "gen/top/load_unit_gen.hpp"
#include "gen/top/stream_engine_gen.hpp"
#include "gen/top/sequencer_gen.hpp"
#include "gen/top/store_unit_gen.hpp"
#include "gen/top/tiles_gen.hpp"
#include "gen/top/top_chord.hpp"
#include "gen/top/top_config.hpp"
#include "gen/top/top_gen_parts.hpp"
#include "sw/stream/format.hpp"

namespace cello::gen {

namespace {

// The top's load units: operand reads (port A), SPMM's row-pointer, column-index
// and value streams, and the engine's second operand port (B: GEMM's C, Gram's
// B) (docs/top.md, "Stream engine" and "Load unit").
struct ReadUnit {
  const char* name;
  bool pins;        // its reads may pin a granule (SPMM's entry fetcher's); the others' req_pin is 0
  bool deep_queue;  // the value unit: the same ports, a read queue twice as deep
  bool pairs;       // an operand port: with word pairs (TopShapes::pairs), the pair load unit
};
constexpr ReadUnit kReadUnits[] = {{"ld", false, false, true},
                                   {"rp", false, false, false},
                                   {"col", true, false, false},
                                   {"val", true, true, false},
                                   {"lb", false, false, true}};
static_assert(std::size(kReadUnits) == kTopReadUnits);

// The DRAM port of the top, passed straight through to the arbiter.
constexpr const char* kDramPorts[] = {"dram_req_valid", "dram_req_ready", "dram_req_addr",  "dram_req_write",
                                      "dram_req_wdata", "dram_req_strb",  "dram_req_tag",   "dram_rsp_valid",
                                      "dram_rsp_ready", "dram_rsp_rdata", "dram_rsp_tag"};

using top_parts::connect_all;
using top_parts::declare_part_signals;
using top_parts::module_named;
using top_parts::port_width;

// The shapes the parts of the top were generated with.
struct TopShapes {
  std::string n;  // the top's module name (the parts' prefix)
  LoadUnitShape mem;
  DramArbiterShape arb;
  StreamEngineShape eng;
  const ChordConfig* chord = nullptr;  // the top's CHORD
  bool cj = false;                     // on the datapath (chord_on_datapath)
  // Word pairs on the operand ports and the store unit (the engine's GEMM row
  // pairs): a split array and granules of 2 words or more.
  bool pairs = false;
  // Tiles (arch::engine_tiles; docs/top.md, "Tiles"): with more than one, TB
  // bits of tile index sit above the operand units' line tags (their clients'
  // tags are UT = LW + TB bits) and above nothing in the store client's tag.
  int tiles = 1;
  int TB = 0, LW = 0, UT = 0;
  int CDT = 0;  // CHORD's DRAM adapter's tag (with CHORD on the datapath)
  bool tiled() const { return tiles > 1; }
};



// Arbiter clients: 0 the operand load unit (port A), 1 the store unit, 2..4 the
// CSR streams' load units (rp, col, val), 5 the operand port B's (lb), and 6
// CHORD's DRAM adapter when CHORD is on the datapath.
constexpr int kStoreClient = 1;

}  // namespace

int tile_tag_bits_of(const arch::Arch& a) {
  const int tiles = arch::engine_tiles(a);
  return tiles > 1 ? bits_for(tiles - 1) : 0;
}

int arbiter_tag_bits(const HwConfig& cfg, const arch::Arch& a) {
  const ChordConfig* c = top_chord(cfg);
  const int lines = line_tag_bits(load_unit_shape(a)) + tile_tag_bits_of(a);
  if (!c || !chord_on_datapath(*c, static_cast<int>(a.granule_bytes))) return lines;
  return std::max(lines, bits_for(chord_dram_shape(a).slots - 1));
}

namespace {

// Generates every part of the top (decoder, memory units, arbiter, sequencer,
// engine, counters) and returns their shapes.
TopShapes add_top_parts(Design& d, const HwConfig& cfg, const arch::Arch& a) {
  const TopConfig& t = *cfg.top;
  TopShapes sh;
  sh.n = t.name;
  const std::string& n = sh.n;
  add_cmd_decoder(d, n + "_cmd_decoder", a);
  sh.mem = load_unit_shape(a);
  const LoadUnitShape& mem = sh.mem;
  sh.pairs = arch::engine_split_gram(a) && mem.granule_bytes >= 8;
  LoadUnitShape paired = mem;
  paired.pairs = sh.pairs;
  add_load_unit(d, n + "_load_unit", mem);
  if (sh.pairs) add_load_unit(d, n + "_pair_load_unit", paired);
  add_load_unit(d, n + "_value_load_unit", value_load_unit_shape(a));
  add_store_unit(d, n + "_store_unit", paired);
  DramArbiterShape& arb = sh.arb;
  sh.chord = top_chord(cfg);
  sh.cj = sh.chord && chord_on_datapath(*sh.chord, mem.granule_bytes);
  sh.tiles = arch::engine_tiles(a);
  sh.TB = tile_tag_bits_of(a);
  sh.LW = line_tag_bits(mem);
  sh.UT = sh.LW + sh.TB;
  if (sh.cj) sh.CDT = bits_for(chord_dram_shape(a).slots - 1);
  if (sh.tiled()) {
    add_tile_dispatch(d, n + "_tile_dispatch", {sh.tiles, engine_count_bits(mem.addr_bits), mem.granule_bytes, t.gather_words});
    add_tile_read_merge(d, n + "_tile_read_merge", {sh.tiles, mem.addr_bits, mem.granule_bytes, sh.LW, 0});
    add_tile_write_merge(d, n + "_tile_write_merge",
                         {sh.tiles, mem.addr_bits, mem.granule_bytes, 0, sh.cj ? chord_port_acks() : 0});
  }
  // The load units and the store unit, and CHORD's DRAM adapter on the datapath.
  arb.clients = static_cast<int>(std::size(kReadUnits)) + 1 + (sh.cj ? 1 : 0);
  arb.granule_bytes = mem.granule_bytes;
  arb.addr_bits = mem.addr_bits;
  arb.tag_bits = arbiter_tag_bits(cfg, a);
  add_dram_arbiter(d, n + "_dram_arb", arb);
  // With CHORD (each part generated and tested on its own, and on the datapath
  // when chord_on_datapath): its DRAM port as an arbiter client, with enough
  // requests in flight for DRAM's bandwidth; the units' side, where the load units
  // read and the store unit and the fill path write; the command unit, which
  // turns the stream's RIFF records into CHORD's commands; and the router.
  if (const ChordConfig* c = sh.chord) {
    add_chord_dram(d, n + "_chord_dram", chord_dram_shape(a));
    add_chord_port(d, n + "_chord_port", chord_port_shape(*c, mem, sh.TB));
    add_chord_cmd(d, n + "_chord_cmd", chord_cmd_shape(*c, mem, t.tensor_table));
    if (sh.cj)
      add_chord_route(d, n + "_chord_route",
                      {kTopReadUnits, mem.addr_bits - std::countr_zero(static_cast<unsigned>(mem.granule_bytes)), c->id_width});
  }
  SequencerShape seq;
  seq.addr_bits = mem.addr_bits;
  seq.granule_bytes = mem.granule_bytes;
  seq.tensor_table = t.tensor_table;
  seq.rf_rows = static_cast<int>(a.rf_rows);
  seq.chord = a.has_chord();
  seq.chord_datapath = sh.cj;
  add_sequencer(d, n + "_sequencer", seq);
  StreamEngineShape& eng = sh.eng;
  eng.addr_bits = mem.addr_bits;
  eng.granule_bytes = mem.granule_bytes;
  eng.fma_stages = a.fma_stages;
  eng.gram_lanes = a.fma_stages;
  eng.rf_rows = static_cast<int>(a.rf_rows);
  eng.queue = mem.queue;
  eng.lanes = arch::engine_lanes(a);
  eng.gather_words = t.gather_words;
  eng.split_gram = arch::engine_split_gram(a);
  eng.pairs = sh.pairs;
  eng.row_range = sh.tiled();
  add_stream_engine(d, n + "_engine", eng);
  add_counters(d, n + "_counters", sh.tiled() ? bits_for(sh.tiles) : 1);
  return sh;
}

// Ports of the top: command port, DRAM port, HOST handshake, register read port, status.
void top_ports(SvModule& m, const TopShapes& sh) {
  const int AW = sh.mem.addr_bits, G = sh.mem.granule_bytes,
            DT = sh.arb.tag_bits + bits_for(sh.arb.clients - 1);
  const int RB = bits_for(static_cast<long long>(top_counters().size()) + 1);
  m.clock_reset();
  m.sink(top_parts::command_port());
  m.source({"dram_req", "", "DRAM request", "DRAM request taken",
            {{"addr", AW, "DRAM: granule-aligned byte address"},
             {"write", 1, "DRAM: write"},
             {"wdata", 8 * G, "DRAM: write data, byte k at [8k +: 8]"},
             {"strb", G, "DRAM: write byte enables"},
             {"tag", DT, "DRAM: tag, returned with the response"}}});
  m.sink({"dram_rsp", "", "DRAM response (read data, or a write's acknowledgement)", "DRAM response taken",
          {{"rdata", 8 * G, "DRAM: read data"}, {"tag", DT, "DRAM: the request's tag"}}});
  top_parts::host_ports(m);
  m.input("reg_addr", RB, "register read port: index (docs/top.md, \"Registers\")");
  m.output("reg_rdata", 64, "register read port: value");
  m.output("running", 1, "the header was accepted");
  m.output("done", 1, "END ran: every write landed");
  m.output("halted", 1, "stopped at an illegal command (status, err_record)");
  m.output("status", 7, "sticky status bits (docs/commands.md, \"Status\")");
  m.output("cur_record", 64, "record being run");
}

// The generated parts the top instantiates.
struct TopParts {
  const SvModule& dec;
  const SvModule& sq;
  const SvModule& en;
  const SvModule& ld;
  const SvModule& ldv;  // SPMM's value unit
  const SvModule& ldp;  // the operand ports' (ld, lb): with word pairs, the pair load unit, else ld
  const SvModule& st;
  const SvModule& ar;
  // With tiles: the dispatch and the merges.
  const SvModule* disp = nullptr;
  const SvModule* read_merge = nullptr;
  const SvModule* write_merge = nullptr;
};

// A top signal for every port of every part (except those wired to the top's
// ports), and the status and counter signals.
void declare_tile_signals(SvModule& m, const TopParts& p, const TopShapes& sh);

void declare_top_signals(SvModule& m, const TopParts& p, const TopShapes& sh) {
  const SvModule &dec = p.dec, &sq = p.sq, &ld = p.ld, &st = p.st, &ar = p.ar;
  declare_part_signals(m, dec, "dec_", {"cmd_valid", "cmd_ready", "cmd_data", "cmd_last"});
  declare_part_signals(m, sq, "seq_", {"rec_valid", "rec_ready", "rec_data", "rec_index", "memory_bytes", "host_req",
                                       "host_record", "host_ack", "cur_record"});
  if (sh.tiled()) {
    declare_tile_signals(m, p, sh);
  } else {
    for (const ReadUnit& u : kReadUnits)
      declare_part_signals(m, u.pairs ? p.ldp : ld, std::string(u.name) + "_",
                           u.pins ? std::vector<std::string>{} : std::vector<std::string>{"req_pin"});
    declare_part_signals(m, st, "st_", {});
  }
  declare_part_signals(m, ar, "arb_", std::vector<std::string>(std::begin(kDramPorts), std::end(kDramPorts)));
  const int counters = static_cast<int>(top_counters().size());
  m.signal("events", counters * (sh.tiled() ? bits_for(sh.tiles) : 1), "counter events (top_counters order): a count per counter");
  m.signal("status_word", 11, "{err_in_header, halted, done, running, status}");
  m.signal("quiet", 1, "no read or write outstanding");
  m.signal("err_record", 64, "record that stopped the top");
  m.signal("proto_record_q", 64, "record running when a port protocol error was raised");
  m.signal("cmd_held_q", 1, "a command word was offered and not taken last cycle");
  m.signal("port_err_q", 1, "sticky: a command word was withdrawn before it was taken, or host_ack came without host_req");
  m.signal("proto_err", 1, "a port protocol error: the DRAM arbiter's or port_err_q");
}

// ---- A top of several tiles (docs/top.md, "Tiles"): one engine per tile,
// each with its own load units, store unit and copy of the gather buffer
// (which tile 0 fills for all). The tiles' units of one
// kind share that kind's client through a merge, whose merged side takes the
// names the one-tile top gives its unit (ld_dram_*, st_dram_*, ...), so the
// arbiter, CHORD and the status wiring are the same for both.

// Tile t's name for a signal of its own.
std::string tile_name(int t, const std::string& name) { return fmt::format("t{}_{}", t, name); }
// {t<E-1>_<name>, ..., t0_<name>}: one field per tile, tile 0 lowest.
std::string tile_concat(int tiles, const std::string& name) {
  std::string s;
  for (int t = tiles - 1; t >= 0; --t) s += tile_name(t, name) + (t ? ", " : "");
  return "{" + s + "}";
}

// A merge's ports other than its merged side (dram_req_*, dram_rsp_*): the
// tiles' (t_*) and CHORD's routing inputs, which the top wires by hand.
std::vector<std::string> merged_side_skip(const SvModule& merge) {
  std::vector<std::string> skip;
  for (const auto& port : merge.ports())
    if (port.name.rfind("dram_", 0) != 0) skip.push_back(port.name);
  return skip;
}

void declare_tile_signals(SvModule& m, const TopParts& p, const TopShapes& sh) {
  const int AW = sh.mem.addr_bits, G = sh.mem.granule_bytes, E = sh.tiles, CW = engine_count_bits(AW);
  for (const ReadUnit& u : kReadUnits) {
    const std::string n = u.name;
    std::vector<std::string> skip = {"inval", "dram_rsp_data", "dram_rsp_tag"};
    if (!u.pins) skip.push_back("req_pin");
    for (int t = 0; t < E; ++t) declare_part_signals(m, u.pairs ? p.ldp : p.ld, tile_name(t, n + "_"), skip);
    declare_part_signals(m, *p.read_merge, n + "_", merged_side_skip(*p.read_merge));
    m.signal(n + "_tile_rsp_data", 8 * G, n + ": the response's granule, to every tile's unit");
    m.signal(n + "_tile_rsp_tag", sh.LW, n + ": the response's line tag, to every tile's unit");
    m.signal(n + "_idle", 1, n + ": every tile's unit is idle");
    m.signal(n + "_inval", 1, n + ": empty every tile's reuse window");
  }
  for (int t = 0; t < E; ++t) declare_part_signals(m, p.st, tile_name(t, "st_"), {"flush"});
  declare_part_signals(m, *p.write_merge, "st_", merged_side_skip(*p.write_merge));
  m.signal("st_flush", 1, "every tile's store unit: send the open granules");
  m.signal("st_idle", 1, "every tile's store unit is idle");
  m.signal("st_pending", port_width(p.st, "pending"), "the tiles' store units' outstanding writes, OR-ed: zero when none has any");
  for (const auto& [name, what] : std::vector<std::pair<std::string, std::string>>{{"tile_start", "start"},
                                                                                   {"tile_done", "done pulse"},
                                                                                   {"tile_err", "err pulse"},
                                                                                   {"tile_busy", "a launch is running"},
                                                                                   {"tile_fma", "an FMA step issued"},
                                                                                   {"tile_gram", "a Gram product step issued"},
                                                                                   {"tile_pair", "a row-pair step issued"}})
    m.signal(name, E, "tile t's engine: " + what);
  m.signal("disp_row_lo", E * CW, "tile t's first row, at [CW t +: CW]");
  m.signal("disp_row_hi", E * CW, "tile t's row past its last");
  for (int t = 0; t < E; ++t) m.signal(tile_name(t, "cycle_class"), 6, fmt::format("tile {}'s engine: where its cycle went", t));
  m.signal("eng_busy", 1, "a tile runs a launch");
  m.signal("eng_cycle_class", 6, "where the cycle went, on the lowest tile running");
  // Tiles 1 and up follow tile 0's fill of the gather buffer (they never
  // write it), and a fused launch never runs on them.
  const int GWL = port_width(p.en, "fill_words");
  m.signal("fill_words_q", GWL, "gather buffer: words of X tile 0 has written in this launch");
  for (int t = 1; t < E; ++t) {
    m.unread_signal(tile_name(t, "fused"), 1, "only tile 0 runs a launch that fuses its GRAM");
    for (const char* x : {"xb_we", "xb_waddr", "xb_wdata"})
      m.unread_signal(tile_name(t, x), port_width(p.en, x), "only tile 0 fills the gather buffers");
    for (const char* x : {"xb_re", "xb_raddr", "xb_rdata"}) m.signal(tile_name(t, x), port_width(p.en, x), fmt::format("tile {}'s gather buffer copy", t));
  }
}

void connect_tile_engines(SvModule& m, const TopParts& p, const TopShapes& sh) {
  const int E = sh.tiles, CW = engine_count_bits(sh.mem.addr_bits);
  for (int t = 0; t < E; ++t) {
    std::vector<std::pair<std::string, std::string>> ports = {
        {"clk", "clk"},
        {"rst_n", "rst_n"},
        {"start", fmt::format("tile_start[{}]", t)},
        {"done", fmt::format("tile_done[{}]", t)},
        {"err", fmt::format("tile_err[{}]", t)},
        {"busy", fmt::format("tile_busy[{}]", t)},
        {"fma_fire", fmt::format("tile_fma[{}]", t)},
        {"gram_fire", fmt::format("tile_gram[{}]", t)},
        {"pair_fire", fmt::format("tile_pair[{}]", t)},
        {"cycle_class", tile_name(t, "cycle_class")},
        {"fused", t == 0 ? "seq_eng_fused" : tile_name(t, "fused")},
        {"row_lo", fmt::format("disp_row_lo[{}:{}]", CW * t + CW - 1, CW * t)},
        {"row_hi", fmt::format("disp_row_hi[{}:{}]", CW * t + CW - 1, CW * t)}};
    ports.emplace_back("fill_follow", t == 0 ? "1'b0" : "1'b1");
    ports.emplace_back("fill_words", "fill_words_q");
    for (const auto& port : p.en.ports()) {
      const std::string& n = port.name;
      if (n.rfind("st_", 0) == 0) ports.emplace_back(n, tile_name(t, "st_wr_" + n.substr(3)));
      for (const ReadUnit& u : kReadUnits)
        if (n.rfind(std::string(u.name) + "_", 0) == 0) ports.emplace_back(n, tile_name(t, n));
      if (n.rfind("xb_", 0) == 0) ports.emplace_back(n, t == 0 ? n : tile_name(t, n));
    }
    connect_all(m.instantiate(p.en.name(), fmt::format("u_tile{}_engine", t)), p.en, "seq_eng_", ports);
  }
  const SvModule& disp = *p.disp;
  connect_all(m.instantiate(disp.name(), "u_tile_dispatch"), disp, "",
              {{"clk", "clk"}, {"rst_n", "rst_n"}, {"start", "seq_eng_start"}, {"kind", "seq_eng_kind"},
               {"pipe_gram", "seq_eng_pipe_gram"}, {"pipe_gram_x", "seq_eng_pipe_gram_x"}, {"z_rows", "seq_eng_z_rows"},
               {"z_cols", "seq_eng_z_cols"}, {"b_rows", "seq_eng_b_rows"},
               {"t_done", "tile_done"}, {"t_err", "tile_err"}, {"t_start", "tile_start"}, {"row_lo", "disp_row_lo"},
               {"row_hi", "disp_row_hi"}, {"done", "seq_eng_done"}, {"err", "seq_eng_err"}});
  std::string cls;
  for (int t = E - 1; t >= 0; --t)
    cls += fmt::format("  if (tile_busy[{0}]) eng_cycle_class = {1};\n", t, tile_name(t, "cycle_class"));
  std::string written;
  const int V = port_width(p.en, "xb_we");
  for (int v = 0; v < V; ++v) written += fmt::format("{}{}'({})", v ? " + " : "", port_width(p.en, "fill_words"), V > 1 ? fmt::format("xb_we[{}]", v) : "xb_we");
  m.section("Tiles: the engines' activity",
            "\nassign eng_busy = (tile_busy != '0);\n// The lowest running tile says where the cycle went.\n"
            "always_comb begin\n  eng_cycle_class = '0;\n" + cls + "end\n"
            "// Tile 0's fill of the gather buffers, in words: the other tiles read a row of X once it is written whole.\n"
            "always_ff @(posedge clk) begin\n  if (!rst_n || seq_eng_start) fill_words_q <= '0;\n"
            "  else fill_words_q <= fill_words_q + " + written + ";\nend");
}

// The tiles' units: tile t's operand load units and store unit, the merges,
// and SPMM's units (tile 0's).
void connect_tile_units(SvModule& m, const TopParts& p, const TopShapes& sh) {
  const int E = sh.tiles;
  for (const ReadUnit& u : kReadUnits) {
    const std::string n = u.name;
    const SvModule& part = u.deep_queue ? p.ldv : u.pairs ? p.ldp : p.ld;
    for (int t = 0; t < E; ++t)
      connect_all(m.instantiate(part.name(), fmt::format("u_tile{}_{}_load", t, n)), part, tile_name(t, n + "_"),
                  {{"clk", "clk"}, {"rst_n", "rst_n"}, {"req_pin", u.pins ? tile_name(t, n + "_req_pin") : "1'b0"},
                   {"inval", n + "_inval"}, {"dram_rsp_data", n + "_tile_rsp_data"}, {"dram_rsp_tag", n + "_tile_rsp_tag"}});
    const SvModule& rm = *p.read_merge;
    std::vector<std::pair<std::string, std::string>> ports = {{"clk", "clk"}, {"rst_n", "rst_n"},
                                                              {"t_rsp_data", n + "_tile_rsp_data"},
                                                              {"t_rsp_tag", n + "_tile_rsp_tag"}};
    for (const char* f : {"req_valid", "req_ready", "req_addr", "req_tag", "rsp_valid", "rsp_ready"})
      ports.emplace_back(fmt::format("t_{}", f), tile_concat(E, fmt::format("{}_dram_{}", n, f)));
    connect_all(m.instantiate(rm.name(), fmt::format("u_{}_merge", n)), rm, n + "_", ports);
  }
  for (int t = 0; t < E; ++t)
    connect_all(m.instantiate(p.st.name(), fmt::format("u_tile{}_store", t)), p.st, tile_name(t, "st_"),
                {{"clk", "clk"}, {"rst_n", "rst_n"}, {"flush", "st_flush"}});
  const SvModule& wm = *p.write_merge;
  std::vector<std::pair<std::string, std::string>> ports = {{"clk", "clk"}, {"rst_n", "rst_n"}};
  for (const char* f : {"req_valid", "req_ready", "req_addr", "req_data", "req_strb", "rsp_valid", "rsp_ready"})
    ports.emplace_back(fmt::format("t_{}", f), tile_concat(E, fmt::format("st_dram_{}", f)));
  if (sh.cj) {
    ports.emplace_back("to_chord", "st_to_chord");
    ports.emplace_back("rsp_chord", fmt::format("!arb_c_rsp_valid[{}]", kStoreClient));
  }
  connect_all(m.instantiate(wm.name(), "u_st_merge"), wm, "st_", ports);
  std::string idle;
  for (const char* n : {"ld", "lb", "rp", "col", "val", "st"}) {
    std::string all;
    for (int t = 0; t < E; ++t) all += (t ? " && " : "") + tile_name(t, std::string(n) + "_idle");
    idle += fmt::format("assign {}_idle = {};\n", n, all);
  }
  std::string pending;
  for (int t = 0; t < E; ++t) pending += (t ? " | " : "") + tile_name(t, "st_pending");
  m.section("Tiles: the units' idle", "\n" + idle + "assign st_pending = " + pending + ";");
}

// The counter events: one bit each on a one-tile top; on tiles, a count of
// bits_for(tiles) bits each, summed over the tiles where each has its own.
std::string counter_events(const TopShapes& sh) {
  if (!sh.tiled())
    return "{seq_eng_start, eng_pair_fire, eng_gram_fire, eng_cycle_class, lb_req_valid && lb_req_ready, eng_busy, host_req, arb_dram_fire_w, "
           "arb_dram_fire_r, st_wr_valid && st_wr_ready,\n                 ld_req_valid && ld_req_ready, eng_fma_fire, "
           "seq_launch, seq_retire,\n                 running && !done && !halted}";
  const int E = sh.tiles, EW = bits_for(E);
  const auto one = [&](const std::string& e) { return fmt::format("{}'({})", EW, e); };
  const auto sum = [&](const std::string& pattern) {  // pattern: {t} for the tile
    std::string s;
    for (int t = 0; t < E; ++t) s += (t ? " + " : "") + one(fmt::format(fmt::runtime(pattern), fmt::arg("t", t)));
    return "(" + s + ")";
  };
  // Counter order (top_counters), highest first.
  std::vector<std::string> ev = {sum("tile_start[{t}]"), sum("tile_pair[{t}]"), sum("tile_gram[{t}]")};
  for (int k = 5; k >= 0; --k) ev.push_back(one(fmt::format("eng_cycle_class[{}]", k)));
  for (const std::string& e :
       {sum("t{t}_lb_req_valid && t{t}_lb_req_ready"), one("eng_busy"), one("host_req"), one("arb_dram_fire_w"),
        one("arb_dram_fire_r"), sum("t{t}_st_wr_valid && t{t}_st_wr_ready"), sum("t{t}_ld_req_valid && t{t}_ld_req_ready"),
        sum("tile_fma[{t}]"), one("seq_launch"), one("seq_retire"), one("running && !done && !halted")})
    ev.push_back(e);
  std::string s;
  for (size_t k = 0; k < ev.size(); ++k) s += (k ? ",\n                 " : "") + ev[k];
  return "{" + s + "}";
}

// The decoder on the command port, and the sequencer behind it.
void connect_decoder_and_sequencer(SvModule& m, const TopParts& p) {
  const SvModule &dec = p.dec, &sq = p.sq;

  connect_all(m.instantiate(dec.name(), "u_decoder"), dec, "dec_",
              {{"clk", "clk"}, {"rst_n", "rst_n"}, {"cmd_valid", "cmd_valid"}, {"cmd_ready", "cmd_ready"},
               {"cmd_data", "cmd_data"}, {"cmd_last", "cmd_last"}});
  std::vector<std::pair<std::string, std::string>> sq_ports = {
      {"clk", "clk"},
      {"rst_n", "rst_n"},
      {"rec_valid", "dec_rec_valid"},
      {"rec_ready", "dec_rec_ready"},
      {"rec_data", "dec_rec_data"},
      {"rec_index", "dec_rec_index"},
      {"memory_bytes", "dec_memory_bytes"},
      {"host_req", "host_req"},
      {"host_record", "host_record"},
      {"host_ack", "host_ack"},
      {"cur_record", "cur_record"},
      {"eng_done", "seq_eng_done"},
      {"eng_err", "seq_eng_err"}};
  connect_all(m.instantiate(sq.name(), "u_sequencer"), sq, "seq_", sq_ports);
}

// The gather buffer: one RAM lane per FMA lane, GW/V lines of one word each.
// On tiles, each tile has a copy: tile 0's engine writes them all, and each
// tile's engine reads its own (tile t's read port t<t>_xb_*).
void gather_buffer(SvModule& m, const SvModule& en, int V, int gather_words, int tiles) {
  for (const auto& p : en.ports())
    if (p.name.rfind("xb_", 0) == 0) m.signal(p.name, p.width, en.name() + "." + p.name);
  const int XL = std::countr_zero(static_cast<unsigned>(gather_words / V));
  for (int t = 0; t < tiles; ++t) {
    const std::string rd = t == 0 ? "xb_" : fmt::format("t{}_xb_", t);
    for (int v = 0; v < V; ++v)
      top_parts::ram_instance(m, t == 0 ? fmt::format("u_xbuf_{}", v) : fmt::format("u_tile{}_xbuf_{}", t, v), gather_words / V,
                              32, XL,
                              {V > 1 ? fmt::format("xb_we[{}]", v) : std::string("xb_we"), "xb_waddr",
                               fmt::format("xb_wdata[{}:{}]", 32 * v + 31, 32 * v), rd + "re", rd + "raddr",
                               fmt::format("{}rdata[{}:{}]", rd, 32 * v + 31, 32 * v)});
  }
}

// The stream engine.
void connect_engine(SvModule& m, const SvModule& en, bool pairs) {
  // The engine's descriptor inputs are the sequencer's eng_* outputs; its memory
  // ports go to the load units (main operand reads and SPMM's three CSR streams,
  // each its own load unit: ld_, rp_, col_, val_) and the store unit.
  std::vector<std::pair<std::string, std::string>> en_ports = {
      {"clk", "clk"},
      {"rst_n", "rst_n"},
      {"done", "seq_eng_done"},
      {"err", "seq_eng_err"},
      {"busy", "eng_busy"},
      {"fma_fire", "eng_fma_fire"},
      {"gram_fire", "eng_gram_fire"},
      {"pair_fire", "eng_pair_fire"},
      {"cycle_class", "eng_cycle_class"},
      {"st_valid", "st_wr_valid"},
      {"st_ready", "st_wr_ready"},
      {"st_word", "st_wr_word"},
      {"st_data", "st_wr_data"}};
  for (const char* p : {"we", "waddr", "wdata", "re", "raddr", "rdata"})
    en_ports.emplace_back(fmt::format("xb_{}", p), fmt::format("xb_{}", p));
  for (const ReadUnit& u : kReadUnits) {
    for (const char* p : {"req_valid", "req_ready", "req_word", "rsp_valid", "rsp_ready", "rsp_data"})
      en_ports.emplace_back(fmt::format("{}_{}", u.name, p), fmt::format("{}_{}", u.name, p));
    if (pairs && u.pairs) en_ports.emplace_back(fmt::format("{}_rsp_data2", u.name), fmt::format("{}_rsp_data2", u.name));
  }
  if (pairs) {
    en_ports.emplace_back("st_pair", "st_wr_pair");
    en_ports.emplace_back("st_data2", "st_wr_data2");
  }
  for (const ReadUnit& u : kReadUnits)
    if (u.pins) en_ports.emplace_back(fmt::format("{}_req_pin", u.name), fmt::format("{}_req_pin", u.name));
  m.signal("eng_busy", 1, "engine: a launch is running");
  m.signal("eng_fma_fire", 1, "engine: an FMA was issued");
  m.signal("eng_gram_fire", 1, "engine: the Gram product unit issued a step");
  m.signal("eng_pair_fire", 1, "engine: a GEMM MAC step on row pairs issued");
  m.signal("eng_cycle_class", 6, "engine: where this cycle went (counters issue .. wait_store)");
  connect_all(m.instantiate(en.name(), "u_engine"), en, "seq_eng_", en_ports);
}

// The load units, the store unit, the DRAM arbiter on the DRAM port, and the counters.
void connect_tile_units(SvModule& m, const TopParts& p, const TopShapes& sh);

void connect_memory_and_counters(SvModule& m, const TopParts& p, const SvModule& counters, const TopShapes& sh) {
  const SvModule &ld = p.ld, &st = p.st, &ar = p.ar;
  const bool cj = sh.cj;
  if (sh.tiled()) {
    connect_tile_units(m, p, sh);
  } else {
    for (const ReadUnit& u : kReadUnits) {
      const SvModule& part = u.deep_queue ? p.ldv : u.pairs ? p.ldp : ld;
      const std::string unit = u.name;
      connect_all(m.instantiate(part.name(), fmt::format("u_{}_load", unit)), part, unit + "_",
                  {{"clk", "clk"}, {"rst_n", "rst_n"}, {"req_pin", u.pins ? unit + "_req_pin" : "1'b0"}});
    }
    connect_all(m.instantiate(st.name(), "u_store"), st, "st_", {{"clk", "clk"}, {"rst_n", "rst_n"}});
  }
  std::vector<std::pair<std::string, std::string>> ar_ports = {{"clk", "clk"}, {"rst_n", "rst_n"}};
  // With CHORD on the datapath, DRAM responses reach the arbiter through the fill stage.
  for (const std::string port : kDramPorts)
    ar_ports.emplace_back(port, cj && port.rfind("dram_rsp_", 0) == 0 ? "fs_rsp_" + port.substr(9) : port);
  connect_all(m.instantiate(ar.name(), "u_dram_arb"), ar, "arb_", ar_ports);
  connect_all(m.instantiate(counters.name(), "u_counters"), counters, "",
              {{"event_pulse", "events"}, {"status_word", "status_word"}});
}

// The arbiter's packed client ports, gathered from its clients (lists from the
// highest client down), and the read units' response wiring.
struct ArbiterClients {
  std::string req_valid, req_addr, req_tag, req_write, req_wdata, req_strb, rsp_ready, read_wiring;
};

// The arbiter's clients (above). Every load unit takes the line tags of one
// shape. With CHORD on the datapath a unit's request goes to the arbiter or
// the units port (<u>_to_chord), and its responses come from either, the
// arbiter's first.
// A read client's tag (UT bits: a load unit's line tag, with the tile index
// above it on tiles) is padded to the arbiter's (TW), which may be wider for
// CHORD's adapter, and its responses take their low bits. The tiles' store
// client's tag is the tile (TB bits).
ArbiterClients arbiter_clients(const TopShapes& sh) {
  const DramArbiterShape& arb = sh.arb;
  const int G = sh.mem.granule_bytes, TW = arb.tag_bits, UT = sh.UT;
  const bool cj = sh.cj;
  const auto low_bits = [](const std::string& tag, int width, int of) {
    return of > width ? fmt::format("{}[{}:0]", tag, width - 1) : tag;
  };
  const auto padded = [](const std::string& tag, int width, int to) {
    return to > width ? fmt::format("{{{}'d0, {}}}", to - width, tag) : tag;
  };
  ArbiterClients ac;
  std::string chord_rsp_ready;
  for (int c = arb.clients - 1; c >= 0; --c) {
    const std::string sep = c ? ", " : "";
    if (cj && c == arb.clients - 1) {
      for (auto [list, port] : {std::pair{&ac.req_valid, "req_valid"}, {&ac.req_addr, "req_addr"}, {&ac.req_tag, "req_tag"},
                                {&ac.req_write, "req_write"}, {&ac.req_wdata, "req_wdata"}, {&ac.req_strb, "req_strb"},
                                {&ac.rsp_ready, "rsp_ready"}})
        *list += (list == &ac.req_tag ? padded("cd_d_req_tag", sh.CDT, TW) : fmt::format("cd_d_{}", port)) + sep;
      ac.read_wiring += fmt::format("assign cd_d_req_ready = arb_c_req_ready[{0}];\nassign cd_d_rsp_valid = arb_c_rsp_valid[{0}];\n"
                                    "assign cd_d_rsp_rdata = arb_c_rsp_rdata;\nassign cd_d_rsp_tag   = {1};\n",
                                    c, low_bits("arb_c_rsp_tag", sh.CDT, TW));
      continue;
    }
    const bool store = c == kStoreClient;
    const size_t i = c == 0 ? 0 : static_cast<size_t>(c - 1);  // the read unit
    const std::string u = store ? "st" : kReadUnits[i].name;
    const std::string routed = store ? "!st_to_chord" : fmt::format("!{0}_to_chord && !{0}_fill_wait", u);
    ac.req_valid += (cj ? fmt::format("{}_dram_req_valid && {}", u, routed) : u + "_dram_req_valid") + sep;
    ac.req_addr += u + "_dram_req_addr" + sep;
    const int LW = store ? sh.TB : UT;
    const std::string unit_rsp_tag = low_bits("arb_c_rsp_tag", LW, TW);
    ac.req_tag += (store && !sh.tiled() ? fmt::format("{}'d0", TW) : padded(u + "_dram_req_tag", LW, TW)) + sep;
    if (store && sh.tiled()) ac.read_wiring += fmt::format("assign st_dram_rsp_tag   = {};\n", unit_rsp_tag);
    ac.req_write += (store ? "1'b1" : "1'b0") + sep;
    ac.req_wdata += (store ? std::string("st_dram_req_data") : fmt::format("{}'d0", 8 * G)) + sep;
    ac.req_strb += (store ? std::string("st_dram_req_strb") : fmt::format("{}'d0", G)) + sep;
    ac.rsp_ready += u + "_dram_rsp_ready" + sep;
    if (!cj) {
      ac.read_wiring += fmt::format("assign {0}_dram_req_ready = arb_c_req_ready[{1}];\n"
                                    "assign {0}_dram_rsp_valid = arb_c_rsp_valid[{1}];\n",
                                    u, c);
      if (!store)
        ac.read_wiring += fmt::format("assign {0}_dram_rsp_data  = arb_c_rsp_rdata;\n"
                                      "assign {0}_dram_rsp_tag   = {1};\n",
                                      u, unit_rsp_tag);
    } else if (store) {
      ac.read_wiring += fmt::format("assign st_dram_req_ready = st_to_chord ? cp_w_req_ready : arb_c_req_ready[{0}];\n"
                                    "assign st_dram_rsp_valid = arb_c_rsp_valid[{0}] || cp_w_rsp_valid;\n"
                                    "assign cp_w_rsp_ready    = !arb_c_rsp_valid[{0}];\n",
                                    c);
    } else {
      ac.read_wiring += fmt::format("assign {0}_dram_req_ready = {0}_to_chord ? cp_r_req_ready[{2}] : arb_c_req_ready[{1}];\n"
                                    "assign {0}_dram_rsp_valid = arb_c_rsp_valid[{1}] || cp_r_rsp_valid[{2}];\n"
                                    "assign {0}_dram_rsp_data  = arb_c_rsp_valid[{1}] ? arb_c_rsp_rdata : cp_r_rsp_rdata;\n"
                                    "assign {0}_dram_rsp_tag   = arb_c_rsp_valid[{1}] ? {3} : {4};\n",
                                    u, c, i, unit_rsp_tag, "cp_r_rsp_tag");
      chord_rsp_ready += (chord_rsp_ready.empty() ? "" : ", ") + fmt::format("!arb_c_rsp_valid[{}]", c);  // highest unit first
    }
    if (!store) ac.read_wiring += fmt::format("assign {0}_inval = seq_ld_inval;\n", u);
  }
  // CHORD's read data waits while the unit takes a DRAM response (units are always ready).
  if (cj) ac.read_wiring += "assign cp_r_rsp_ready = {" + chord_rsp_ready + "};\n";
  return ac;
}

// Wiring between the parts: arbiter clients, flush/idle, status, counter events.
void wiring_section(SvModule& m, const TopShapes& sh) {
  const bool cj = sh.cj;
  if (cj) {
    m.signal("rec_d_q", 64, "the record running last cycle");
    m.signal("port_err_d_q", 1, "port_err_q a cycle late, in step with the fill stage");
  }
  const ArbiterClients ac = arbiter_clients(sh);
  m.section("Wiring", fmt::format(R"(
assign arb_c_req_valid = {{{RV}}};
assign arb_c_req_addr  = {{{RA}}};
assign arb_c_req_tag   = {{{RT}}};
assign arb_c_req_write = {{{WR}}};
assign arb_c_req_wdata = {{{WD}}};
assign arb_c_req_strb  = {{{SB}}};
assign arb_c_rsp_ready = {{{RR}}};
{READS}assign st_flush   = seq_st_flush;
assign seq_st_idle = st_idle;
// Status: the decoder's and the sequencer's sticky bits, and port protocol
// errors (a DRAM response nobody waits for, a command word withdrawn before it
// was taken, host_ack without host_req); the first to stop wins.{CDELAY}
assign running    = dec_running;
assign proto_err  = arb_proto_err || port_err_{PERR}{CPROTO};
assign halted     = dec_halted || seq_halted || proto_err{CHALT};
// Done once END ran and nothing is outstanding in any memory unit.
assign quiet      = ld_idle && lb_idle && rp_idle && col_idle && val_idle && st_idle && (st_pending == '0){CQUIET};
assign done       = seq_done && dec_done && quiet;
assign status     = dec_status | seq_status | {{proto_err, {PB}'d0}}{CSTATUS};
assign err_record = dec_halted ? dec_err_record : seq_halted ? seq_err_record : proto_record_q;
always_ff @(posedge clk) begin
  if (!rst_n) begin
    proto_record_q <= '0;
    cmd_held_q     <= 1'b0;
    port_err_q     <= 1'b0;{CRST}
  end else begin
    // The record running when a protocol error was raised (frozen by it).
    if (!proto_err{CHALT}) proto_record_q <= {REC};
    // Ready/valid: a word offered stays offered until taken (checked until a halt).
    cmd_held_q <= cmd_valid && !cmd_ready;
    if (!halted && ((cmd_held_q && !cmd_valid) || (host_ack && !host_req))) port_err_q <= 1'b1;{CREG}
  end
end
assign status_word = {{dec_err_in_header, halted, done, running, status}};
assign events = {EVENTS};)",
                                  fmt::arg("RV", ac.req_valid), fmt::arg("RA", ac.req_addr), fmt::arg("RT", ac.req_tag),
                                  fmt::arg("RR", ac.rsp_ready), fmt::arg("READS", ac.read_wiring),
                                  fmt::arg("WR", ac.req_write),
                                  fmt::arg("CPROTO", cj ? " || chord_proto" : ""), fmt::arg("CHALT", cj ? " || chord_err" : ""),
                                  fmt::arg("CDELAY", cj ? "\n// A DRAM response reaches the arbiter through the fill stage, a cycle after\n"
                                                          "// the port: every port error is seen a cycle later, and the record\n"
                                                          "// captured is the one running a cycle before."
                                                        : ""),
                                  fmt::arg("CRST", cj ? "\n    port_err_d_q   <= 1'b0;" : ""), fmt::arg("PERR", cj ? "d_q" : "q"), fmt::arg("REC", cj ? "rec_d_q" : "cur_record"),
                                  fmt::arg("CREG", cj ? "\n    rec_d_q      <= cur_record;\n    port_err_d_q <= port_err_q;" : ""),
                                  fmt::arg("CQUIET", cj ? " && chord_quiet" : ""),
                                  fmt::arg("CSTATUS", cj ? fmt::format(" | 7'({{chord_err, {}'d0}})", static_cast<int>(stream::StatusBit::ChordError)) : ""),
                                  fmt::arg("EVENTS", counter_events(sh)), fmt::arg("WD", ac.req_wdata), fmt::arg("SB", ac.req_strb),
                                  fmt::arg("PB", static_cast<int>(stream::StatusBit::Protocol))));
}

// What the CHORD wiring needs from the top's shapes (gen/top/top_chord.hpp).
ChordDatapathShape chord_datapath_shape(const TopShapes& sh, const arch::Arch& a, int dram_tag_bits) {
  ChordDatapathShape c;
  c.chord_module = sh.chord->name;
  c.cmd_module = sh.n + "_chord_cmd";
  c.port_module = sh.n + "_chord_port";
  c.dram_module = sh.n + "_chord_dram";
  c.route_module = sh.n + "_chord_route";
  c.addr_bits = sh.mem.addr_bits;
  c.granule_bytes = sh.mem.granule_bytes;
  c.dram_tag_bits = dram_tag_bits;
  c.client_bits = bits_for(sh.arb.clients - 1);
  c.unit_tag_bits = sh.UT;
  c.id_bits = sh.chord->id_width;
  // Fills in flight: as many as DRAM's bandwidth over its latency (the DRAM
  // adapter's slots), so a launch whose reads are all fills (a solver's first
  // touch of its inputs) streams at DRAM's rate; at least a load unit's lines.
  c.fill_queue = std::max(sh.mem.lines, chord_dram_shape(a).slots);
  for (const ReadUnit& u : kReadUnits) c.read_units.push_back(u.name);
  c.non_fill_clients = {kStoreClient, sh.arb.clients - 1};
  return c;
}

// DRAM reads and writes accepted (counter events).
void dram_events_section(SvModule& m) {
  m.signal("arb_dram_fire_r", 1, "a DRAM read is accepted");
  m.signal("arb_dram_fire_w", 1, "a DRAM write is accepted");
  m.section("DRAM events", R"(
assign arb_dram_fire_r = dram_req_valid && dram_req_ready && !dram_req_write;
assign arb_dram_fire_w = dram_req_valid && dram_req_ready && dram_req_write;)");
}

}  // namespace

void add_top(Design& d, const HwConfig& cfg) {
  const TopConfig& t = *cfg.top;
  const arch::Arch a = arch_of(cfg, "<config>");
  const TopShapes sh = add_top_parts(d, cfg, a);
  const std::string& n = sh.n;
  const int AW = sh.mem.addr_bits, G = sh.mem.granule_bytes, TW = sh.arb.tag_bits,
            DT = TW + bits_for(sh.arb.clients - 1);
  SvModule m(n,
             "The accelerator top: runs a command stream (commands.bin) from the command port\n"
             "against DRAM through one tagged DRAM port. Decoder -> sequencer (tensor table,\n"
             "FENCE/HOST/END) -> stream engine (walker issuing operand reads ahead, executor with\n"
             "pipelined FMA lanes; load units for operands and SPMM's CSR streams, a store unit) ->\n"
             "DRAM arbiter. HOST raises host_req.\n"
             "Perf counters and the status word are read through reg_addr/reg_rdata.");
  const nlohmann::json params = {{"config_hash", fmt::format("{:016x}", a.config_hash)},
                                 {"addr_bits", AW},
                                 {"granule_bytes", G},
                                 {"dram_tag_bits", DT},
                                 {"tensor_table", t.tensor_table},
                                 {"chord", a.has_chord()},
                                 {"fma_stages", a.fma_stages},
                                 {"gather_words", t.gather_words}};
  nlohmann::json recorded = params;
  recorded["tiles"] = sh.tiles;
  m.record_config(recorded);
  top_ports(m, sh);
  if (sh.cj) chord_datapath_ports(m, module_named(d, sh.chord->name));
  TopParts p{module_named(d, n + "_cmd_decoder"), module_named(d, n + "_sequencer"),
             module_named(d, n + "_engine"),      module_named(d, n + "_load_unit"),
             module_named(d, n + "_value_load_unit"),
             module_named(d, n + (sh.pairs ? "_pair_load_unit" : "_load_unit")),
             module_named(d, n + "_store_unit"),  module_named(d, n + "_dram_arb")};
  if (sh.tiled()) {
    p.disp = &module_named(d, n + "_tile_dispatch");
    p.read_merge = &module_named(d, n + "_tile_read_merge");
    p.write_merge = &module_named(d, n + "_tile_write_merge");
  }
  declare_top_signals(m, p, sh);
  connect_decoder_and_sequencer(m, p);
  gather_buffer(m, p.en, sh.eng.lanes, t.gather_words, sh.tiles);
  if (sh.tiled())
    connect_tile_engines(m, p, sh);
  else
    connect_engine(m, p.en, sh.pairs);
  connect_memory_and_counters(m, p, module_named(d, n + "_counters"), sh);
  if (sh.cj) chord_datapath(d, m, chord_datapath_shape(sh, a, DT));
  wiring_section(m, sh);
  dram_events_section(m);
  top_parts::finish_part(d, m, "top", params);
}

}  // namespace cello::gen
