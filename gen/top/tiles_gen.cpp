#include "gen/top/tiles_gen.hpp"

#include <fmt/format.h>

#include <bit>
#include <stdexcept>

#include "gen/sv_module.hpp"
#include "gen/top/top_gen_parts.hpp"
#include "sw/arch/arch.hpp"

namespace cello::gen {

namespace {

void check_tiles(int tiles, const std::string& what) {
  if (tiles < 2 || tiles > arch::kMaxTiles || (tiles & (tiles - 1)) != 0)
    throw std::logic_error(fmt::format("{}: {} tiles is not a power of two in [2, {}]", what, tiles, arch::kMaxTiles));
}

int tile_bits(int tiles) { return bits_for(tiles - 1); }

}  // namespace

int tile_tag_bits(const TileMergeShape& s) { return s.tag_bits + tile_bits(s.tiles); }

void add_tile_dispatch(Design& design, const std::string& module, const TileDispatchShape& s) {
  check_tiles(s.tiles, module);
  const int E = s.tiles, CW = s.count_bits, ELG = std::countr_zero(static_cast<unsigned>(E));
  const int QLG = std::countr_zero(static_cast<unsigned>(arch::tile_row_quantum(static_cast<uint64_t>(s.granule_bytes))));
  const int XW = CW + ELG + 1;  // the slice products, wide enough for t * slice without wrapping
  SvModule m(module,
             "Starts each launch on the top's tiles (docs/top.md, \"Tiles\"). A GEMM pass and an\n"
             "SPMM that pipeline no GRAM (the SPMM's X in one gather block) and an ELTW run on every tile, tile t on result rows\n"
             "[t S, (t + 1) S) (clipped to the result), S = ceil(rows / (TILES Q)) Q rows with\n"
             "Q = 2^QLG (arch::tile_rows); a tile whose slice is empty is not started. Any other\n"
             "launch runs on tile 0 alone, on every row. done (and err with it) pulses once every\n"
             "started tile has pulsed its done.");
  const nlohmann::json params = {{"tiles", E}, {"count_bits", CW}, {"granule_bytes", s.granule_bytes},
                                 {"gather_words", s.gather_words}};
  m.record_config(params);
  m.clock_reset();
  m.input("start", 1, "the sequencer starts a launch (pulse; the descriptor holds until done)");
  m.input("kind", 2, "its kind: 0 GEMM pass, 1 GRAM, 2 SPMM, 3 ELTW");
  m.input("pipe_gram", 1, "its pipe_gram flag");
  m.input("pipe_gram_x", 1, "its pipe_gram_x flag");
  m.input("z_rows", CW, "its result's rows");
  m.input("z_cols", CW, "its result's columns");
  m.input("b_rows", CW, "SPMM: its dense operand's rows");
  m.input("t_done", E, "tile t's engine: done pulse");
  m.input("t_err", E, "tile t's engine: err pulse (with done)");
  m.output("t_start", E, "tile t: start its engine");
  m.output("row_lo", E * CW, "tile t's first row, at [CW t +: CW]");
  m.output("row_hi", E * CW, "tile t's row past its last, at [CW t +: CW]");
  m.output("done", 1, "pulse: every started tile is done");
  m.output("err", 1, "pulse with done: a tile stopped at a damaged operand");
  m.localparam("TILES", std::to_string(E), "tiles");
  m.localparam("QLG", std::to_string(QLG), "log2 of the slice quantum Q in rows");
  m.signal("on_tiles", 1, "the launch runs on every tile");
  m.signal("one_block", 1, "SPMM: X fits the gather buffer in one block of the result's columns");
  m.signal("slice", XW, "rows per tile");
  m.array("lo_w", XW, E, "tile t's first row, unclipped");
  m.array("hi_w", XW, E, "tile t's row past its last, unclipped");
  m.signal("pend_q", E, "started tiles not yet done");
  m.signal("err_q", 1, "a started tile has reported err");
  m.section("Slices", fmt::format(R"(
// X fits in one block: some power of two from 1 to 16 columns holds the
// result's columns and its rows fit (arch::spmm_block_cols).
always_comb begin
  one_block = 1'b0;
  for (int l = 0; l <= 4; l++)
    if (z_cols != '0 && b_rows != '0 && 64'(z_cols) <= (64'd1 << l) && (64'(b_rows) << l) <= 64'd{GW}) one_block = 1'b1;
end
assign on_tiles = (kind == 2'd3) || (((kind == 2'd0) || ((kind == 2'd2) && one_block)) && !pipe_gram && !pipe_gram_x);
assign slice    = ((({XW}'(z_rows) + {XW}'({EQM1})) >> {SH}) << QLG);
always_comb begin
  for (int t = 0; t < TILES; t++) begin
    lo_w[t] = {XW}'(t) * slice;
    hi_w[t] = lo_w[t] + slice;
    if (lo_w[t] > {XW}'(z_rows)) lo_w[t] = {XW}'(z_rows);
    if (hi_w[t] > {XW}'(z_rows)) hi_w[t] = {XW}'(z_rows);
  end
end
for (genvar t = 0; t < TILES; t++) begin : g_tile
  if (t == 0) begin : g_first
    assign row_lo[{CW1}:0] = on_tiles ? {CW}'(lo_w[0]) : '0;
    assign row_hi[{CW1}:0] = on_tiles ? {CW}'(hi_w[0]) : z_rows;
    assign t_start[0]      = start;
  end else begin : g_other
    assign row_lo[{CW} * t +: {CW}] = on_tiles ? {CW}'(lo_w[t]) : '0;
    assign row_hi[{CW} * t +: {CW}] = on_tiles ? {CW}'(hi_w[t]) : '0;
    assign t_start[t]           = start && on_tiles && (lo_w[t] < hi_w[t]);
  end
end)",
                                    fmt::arg("XW", XW), fmt::arg("EQM1", (E << QLG) - 1), fmt::arg("SH", ELG + QLG),
                                    fmt::arg("CW", CW), fmt::arg("CW1", CW - 1), fmt::arg("GW", s.gather_words)));
  m.section("Done", R"(
assign done = (pend_q != '0) && ((pend_q & ~t_done) == '0);
assign err  = done && (err_q || ((t_err & pend_q) != '0));
always_ff @(posedge clk) begin
  if (!rst_n) begin
    pend_q <= '0;
    err_q  <= 1'b0;
  end else if (start) begin
    pend_q <= t_start;
    err_q  <= 1'b0;
  end else begin
    pend_q <= pend_q & ~t_done;
    if ((t_err & pend_q) != '0) err_q <= 1'b1;
  end
end)");
  top_parts::finish_part(design, m, "top_tile_dispatch", params);
}

void add_tile_read_merge(Design& design, const std::string& module, const TileMergeShape& s) {
  check_tiles(s.tiles, module);
  const int E = s.tiles, AW = s.addr_bits, G = s.granule_bytes, LW = s.tag_bits, TB = tile_bits(E);
  SvModule m(module,
             "The tiles' load units of one operand port on that port's one DRAM/CHORD client\n"
             "(docs/top.md, \"Tiles\"): a round-robin pick among the tiles' granule requests,\n"
             "the tile index above the unit's line tag, and each response to the tile its tag\n"
             "names. A load unit is always ready for its responses, so the merge is too.");
  const nlohmann::json params = {{"tiles", E}, {"addr_bits", AW}, {"granule_bytes", G}, {"tag_bits", LW}};
  m.record_config(params);
  m.clock_reset();
  m.input("t_req_valid", E, "tile t's load unit: a granule request");
  m.output("t_req_ready", E, "tile t's request taken");
  m.input("t_req_addr", E * AW, "tile t's granule address, at [AW t +: AW]");
  m.input("t_req_tag", E * LW, "tile t's line tag, at [LW t +: LW]");
  m.output("t_rsp_valid", E, "a response for tile t");
  m.input("t_rsp_ready", E, "tile t takes its response (a load unit always does)");
  m.output("t_rsp_data", 8 * G, "the response's granule (every tile)");
  m.output("t_rsp_tag", LW, "the response's line tag (every tile)");
  m.source({"dram_req", "", "the port's granule request", "taken",
            {{"addr", AW, "granule-aligned byte address"}, {"tag", LW + TB, "{tile, line tag}"}}});
  m.sink({"dram_rsp", "", "a response", "taken by its tile", {{"data", 8 * G, "granule"}, {"tag", LW + TB, "{tile, line tag}"}}});
  m.signal("grant", TB, "the tile whose request is offered");
  m.signal("last_q", TB, "the tile granted last");
  m.signal("rsp_tile", TB, "the tile a response is for");
  top_parts::round_robin_pick(m, E, TB, "t_req_valid", "last_q", "grant");
  m.section("Requests and responses", fmt::format(R"(
assign dram_req_valid = (t_req_valid != '0);
assign dram_req_addr  = t_req_addr[{AW} * grant +: {AW}];
assign dram_req_tag   = {{grant, t_req_tag[{LW} * grant +: {LW}]}};
assign t_req_ready    = dram_req_ready ? {E}'(1) << grant : '0;
always_ff @(posedge clk) begin
  if (!rst_n) last_q <= '0;
  else if (dram_req_valid && dram_req_ready) last_q <= grant;
end
assign rsp_tile       = dram_rsp_tag[{LW} +: {TB}];
assign t_rsp_valid    = dram_rsp_valid ? {E}'(1) << rsp_tile : '0;
assign t_rsp_data     = dram_rsp_data;
assign t_rsp_tag      = dram_rsp_tag[{LW1}:0];
assign dram_rsp_ready = t_rsp_ready[rsp_tile];)",
                                                        fmt::arg("AW", AW), fmt::arg("LW", LW), fmt::arg("LW1", LW - 1),
                                                        fmt::arg("TB", TB), fmt::arg("E", E)));
  top_parts::finish_part(design, m, "top_tile_read_merge", params);
}

void add_tile_write_merge(Design& design, const std::string& module, const TileMergeShape& s) {
  check_tiles(s.tiles, module);
  const int E = s.tiles, AW = s.addr_bits, G = s.granule_bytes, TB = tile_bits(E);
  const bool chord = s.chord_acks > 0;
  SvModule m(module,
             "The tiles' store units on the top's one store client (docs/top.md, \"Tiles\"): a\n"
             "round-robin pick among their granule writes, the tile index as the write's tag,\n"
             "and each acknowledgement to the tile its tag names." +
                 std::string(chord ? "\nCHORD acknowledges its writes in order and without a tag: a FIFO keeps the\n"
                                     "tile of each write sent to CHORD, and a write waits while it is full."
                                   : ""));
  const nlohmann::json params = {{"tiles", E}, {"addr_bits", AW}, {"granule_bytes", G}, {"chord_acks", s.chord_acks}};
  m.record_config(params);
  m.clock_reset();
  m.input("t_req_valid", E, "tile t's store unit: a granule write");
  m.output("t_req_ready", E, "tile t's write taken");
  m.input("t_req_addr", E * AW, "tile t's granule address, at [AW t +: AW]");
  m.input("t_req_data", E * 8 * G, "tile t's granule, at [8G t +: 8G]");
  m.input("t_req_strb", E * G, "tile t's byte enables, at [G t +: G]");
  m.output("t_rsp_valid", E, "an acknowledgement for tile t");
  m.source({"dram_req", "", "the store client's granule write", "taken",
            {{"addr", AW, "granule-aligned byte address"},
             {"data", 8 * G, "granule"},
             {"strb", G, "byte enables"},
             {"tag", TB, "the tile"}}});
  m.sink({"dram_rsp", "", "an acknowledgement", "taken by its tile", {{"tag", TB, "a DRAM acknowledgement's tag: the tile"}}});
  m.input("t_rsp_ready", E, "tile t takes its acknowledgement (a store unit always does)");
  if (chord) {
    m.input("to_chord", 1, "the writes go to CHORD (the launch's result is live there)");
    m.input("rsp_chord", 1, "the acknowledgement is CHORD's (it has no tag)");
  }
  m.signal("grant", TB, "the tile whose write is offered");
  m.signal("last_q", TB, "the tile granted last");
  m.signal("rsp_tile", TB, "the tile an acknowledgement is for");
  m.signal("room", 1, "a write may be offered (with CHORD: the FIFO has room for its tile)");
  top_parts::round_robin_pick(m, E, TB, "t_req_valid", "last_q", "grant");
  if (chord) {
    const int depth = std::max(2, static_cast<int>(std::bit_ceil(static_cast<unsigned>(s.chord_acks))));
    top_parts::small_fifo(m, "ca", "tiles of the writes CHORD has not acknowledged", depth, {{"tile", TB, "grant"}},
                          "dram_req_valid && dram_req_ready && to_chord", "dram_rsp_valid && rsp_chord && ca_valid");
  }
  m.section("Writes and acknowledgements", fmt::format(R"(
assign room           = {ROOM};
assign dram_req_valid = (t_req_valid != '0) && room;
assign dram_req_addr  = t_req_addr[{AW} * grant +: {AW}];
assign dram_req_data  = t_req_data[{DW} * grant +: {DW}];
assign dram_req_strb  = t_req_strb[{G} * grant +: {G}];
assign dram_req_tag   = grant;
assign t_req_ready    = (dram_req_ready && room) ? {E}'(1) << grant : '0;
always_ff @(posedge clk) begin
  if (!rst_n) last_q <= '0;
  else if (dram_req_valid && dram_req_ready) last_q <= grant;
end
assign rsp_tile       = {RSP};
assign t_rsp_valid    = dram_rsp_valid ? {E}'(1) << rsp_tile : '0;
assign dram_rsp_ready = t_rsp_ready[rsp_tile];)",
                                                             fmt::arg("AW", AW), fmt::arg("DW", 8 * G), fmt::arg("G", G),
                                                             fmt::arg("E", E), fmt::arg("ROOM", chord ? "!to_chord || ca_space" : "1'b1"),
                                                             fmt::arg("RSP", chord ? "rsp_chord ? ca_tile : dram_rsp_tag" : "dram_rsp_tag")));
  top_parts::finish_part(design, m, "top_tile_write_merge", params);
}

}  // namespace cello::gen
