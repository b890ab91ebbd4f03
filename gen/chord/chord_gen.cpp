#include "gen/chord/chord_gen.hpp"

#include <fmt/args.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <utility>

#include "gen/sv_expr.hpp"
#include "gen/sv_module.hpp"

namespace cello::gen {

namespace {

// Widths of one CHORD, also the template argument names every section uses
// ({AW} etc.) and the names the generated comments use:
//   AW address, WW data word, IDW tensor id, DW next-use distance, UW remaining
//   uses, IXW SRAM slot, LW length / capacity offset, EW entry index, NRW run
//   count, RIW run index, KEYW RIFF key, CW counter; RQW / DQW read / DRAM queue
//   index, RQC / DQC read / DRAM queue occupancy. {T} is entries, {K} extents.
struct ChordShape {
  const ChordConfig& cfg;
  int entries, extents, depth, AW, WW, IDW, DW, UW, IXW, LW, EW, NRW, RIW, KEYW, CW, read_queue, dram_queue, RQW,
      DQW, RQC, DQC;
  bool riff, sram, reserve, inplace, claim, clean;
  // Option clean with RIFF: each entry keeps its dirty prefix, and an eviction
  // writes back only the dirty words of the victim's tail. (Without RIFF
  // nothing is evicted: clean only spares the DRAM write of a spilled fill.)
  bool dirty;
  bool flush;  // the flush command (opcode 6, needs riff): RIFF's write-back engine walks a whole prefix
  bool be;     // byte enables on writes (wr_be, dram_req_be, a byte-enabled SRAM)
  int WB;      // bytes per word with byte enables (SRAM write enables), else 1
  int OPW;     // command opcode width: 3 with the claim (opcode 4) or flush (opcode 6) command, else 2
  std::vector<unsigned> illegal;  // the opcodes of that width this build reports as illegal (sw/chord)

  explicit ChordShape(const ChordConfig& config)
      : cfg(config), entries(config.entries), extents(config.extents), depth(config.depth),
        AW(config.addr_width), WW(config.word_width), IDW(config.id_width), DW(config.dist_width),
        UW(config.uses_width), IXW(config.slot_width()), LW(config.len_width()), EW(config.entry_width()),
        NRW(config.nruns_width()), RIW(config.run_index_width()), KEYW(config.key_width()),
        CW(config.counter_width), read_queue(config.read_queue), dram_queue(config.dram_queue),
        RQW(bits_for(config.read_queue - 1)), DQW(bits_for(config.dram_queue - 1)),
        RQC(bits_for(config.read_queue)), DQC(bits_for(config.dram_queue)), riff(config.riff),
        sram(config.ram == "sram"), reserve(config.reserve), inplace(config.inplace), claim(config.claim),
        clean(config.clean), dirty(config.riff && config.clean), flush(config.flush),
        be(config.byte_enables), WB(config.byte_enables ? config.word_width / 8 : 1),
        OPW(static_cast<int>(chord::command_opcode_bits(config.geometry()))),
        illegal(chord::illegal_opcodes(config.geometry())) {}

  // `cmd_op == <k>` at the opcode's width.
  std::string op_is(int k) const { return "cmd_op == " + sv_const(OPW, k); }

  // The fmt template formatted with the named arguments: the widths above,
  // then `more` (SystemVerilog braces are doubled in the template).
  std::string fill(std::string_view tpl, std::initializer_list<std::pair<const char*, std::string>> more = {}) const {
    fmt::dynamic_format_arg_store<fmt::format_context> args;
    for (auto [name, value] : {std::pair{"T", entries}, {"K", extents}, {"D", depth}, {"AW", AW}, {"WW", WW},
                               {"IDW", IDW}, {"DW", DW}, {"UW", UW}, {"IXW", IXW}, {"LW", LW}, {"EW", EW},
                               {"NRW", NRW}, {"RIW", RIW}, {"KEYW", KEYW}, {"CW", CW}, {"RQ", read_queue},
                               {"DQ", dram_queue}, {"RQW", RQW}, {"DQW", DQW}, {"RQC", RQC}, {"DQC", DQC}})
      args.push_back(fmt::arg(name, value));
    for (const auto& [name, value] : more) args.push_back(fmt::arg(name, value));
    return fmt::vformat(tpl, args);
  }
};

// RIFF's priority key (larger = keep), as sw/chord's priority_key(): "distance"
// ranks the nearer next use first, "uses" the larger remaining-use count.
std::string riff_key(const ChordShape& s, const std::string& p) {
  if (s.cfg.victim == "uses") return "{" + p + "_uses != '0, " + p + "_uses, ~" + p + "_dist}";
  return "{" + p + "_uses != '0, ~" + p + "_dist, " + p + "_uses}";
}

// One signal between the table and the controller, named from the table's side.
struct Link {
  std::string name;
  int width;
  bool table_out;
  std::string comment;
};

// Whether the controller reads ls_spare: not on a PRELUDE-only CHORD with
// `reserve`, which sizes its steals by ls_give alone (the table then keeps
// ls_spare as a local signal).
bool spare_is_link(const ChordShape& s) { return s.riff || !s.reserve; }

std::vector<Link> links(const ChordShape& s) {
  std::vector<Link> l = {
      {"lr_id", s.IDW, false, "read lookup: tensor id"},
      {"lr_addr", s.AW, false, "read lookup: global address"},
      {"lr_found", 1, true, "read lookup: id registered"},
      {"lr_entry", s.EW, true, "read lookup: its entry"},
      {"lr_in_range", 1, true, "read lookup: base <= addr < end"},
      {"lr_hit", 1, true, "read lookup: base <= addr < resident end"},
      {"lr_slot", s.IXW, true, "read lookup: SRAM slot (valid on a hit)"},
      {"lw_id", s.IDW, false, "write lookup: tensor id"},
      {"lw_addr", s.AW, false, "write lookup: global address"},
      {"lw_found", 1, true, "write lookup: id registered"},
      {"lw_entry", s.EW, true, "write lookup: its entry"},
      {"lw_in_order", 1, true, "write lookup: addr is the next write address"},
      {"lw_prefix", 1, true, "write lookup: everything written so far is resident"},
      {"lw_has_room", 1, true, "write lookup: resident length < capacity"},
      {"lw_runs_full", 1, true, "write lookup: the entry holds EXTENTS runs"},
      {"lw_slot", s.IXW, true, "write lookup: SRAM slot of the next resident word"},
      {"lw_need", s.LW, true, "write lookup: words still to write (saturated at DEPTH)"},
      {"lw_wptr", s.AW, true, "write lookup: write pointer"},
      {"lw_res", s.LW, true, "write lookup: resident length"},
      {"lw_nruns", s.NRW, true, "write lookup: runs in use"},
      {"lw_cap", s.LW, true, "write lookup: capacity (sum of run lengths)"},
      {"lw_last_end", s.IXW + 1, true, "write lookup: one past the last run's last slot"},
      {"lc_id", s.IDW, false, "command lookup: tensor id"},
      {"lc_found", 1, true, "command lookup: id registered"},
      {"lc_entry", s.EW, true, "command lookup: its entry"},
      {"free_found", 1, true, "a free (not valid) entry exists"},
      {"free_entry", s.EW, true, "the lowest free entry"},
      {"ls_entry", s.EW, false, "indexed view: entry (victim scan / steal source)"},
      {"ls_spare", s.LW, true, "indexed view: spare words (capacity - resident)"},
      {"ls_nruns", s.NRW, true, "indexed view: runs in use"},
      {"ls_lastlen", s.LW, true, "indexed view: length of the last run"},
      {"ls_last_start", s.IXW, true, "indexed view: first slot of the last run"},
      {"ls_cap", s.LW, true, "indexed view: capacity"},
  };
  if (s.reserve) l.push_back({"ls_give", s.LW, true, "indexed view: spare words another entry may take (reserve)"});
  if (!spare_is_link(s)) std::erase_if(l, [](const Link& k) { return k.name == "ls_spare"; });
  // With claim no write scans: the scan is sized by the claim's need alone.
  if (s.claim) std::erase_if(l, [](const Link& k) { return k.name == "lw_need"; });
  if (s.riff) {
    l.push_back({"lw_dead", 1, true, "write lookup: no uses left (bypass)"});
    l.push_back({"lw_key", s.KEYW, true, "write lookup: RIFF priority key"});
    l.push_back({"ls_valid", 1, true, "indexed view: entry holds a tensor"});
    l.push_back({"ls_res", s.LW, true, "indexed view: resident length"});
    l.push_back({"ls_base", s.AW, true, "indexed view: global base address"});
    l.push_back({"ls_key", s.KEYW, true, "indexed view: RIFF priority key"});
  }
  if (s.inplace) {
    l.push_back({"lw_inplace", 1, true, "write lookup: the address lies in the resident prefix (rewriting in place)"});
    l.push_back({"ln_id", s.IDW, false, "command lookup: a rewrite's new id"});
    l.push_back({"ln_found", 1, true, "command lookup: the new id is registered"});
  }
  std::vector<Link> upd = {
      {"ua_entry", s.EW, false, "update A: entry"},
      {"ua_valid_we", 1, false, "update A: write the valid bit"},
      {"ua_valid", 1, false, "update A: valid bit"},
      {"ua_tensor_we", 1, false, "update A: write id, base, end"},
      {"ua_id", s.IDW, false, "update A: tensor id"},
      {"ua_base", s.AW, false, "update A: base address"},
      {"ua_end", s.AW, false, "update A: end address"},
      {"ua_wptr_we", 1, false, "update A: write the write pointer"},
      {"ua_wptr", s.AW, false, "update A: write pointer"},
      {"ua_res_we", 1, false, "update A: write the resident length"},
      {"ua_res", s.LW, false, "update A: resident length"},
      {"ua_run_we", 1, false, "update A: write one run"},
      {"ua_run", s.RIW, false, "update A: run index"},
      {"ua_rstart_we", 1, false, "update A: also write the run's start slot"},
      {"ua_rstart", s.IXW, false, "update A: run start slot"},
      {"ua_rend", s.LW, false, "update A: run cumulative end offset"},
      {"ua_nruns_we", 1, false, "update A: write the run count"},
      {"ua_nruns", s.NRW, false, "update A: run count"},
      {"ub_entry", s.EW, false, "update B (steal source): entry"},
      {"ub_run_we", 1, false, "update B: write the last run's end"},
      {"ub_run", s.RIW, false, "update B: run index"},
      {"ub_rend", s.LW, false, "update B: run cumulative end offset"},
      {"ub_nruns_we", 1, false, "update B: write the run count"},
      {"ub_nruns", s.NRW, false, "update B: run count"},
  };
  l.insert(l.end(), upd.begin(), upd.end());
  if (s.riff) {
    l.push_back({"ua_meta_we", 1, false, "update A: write the reuse metadata"});
    l.push_back({"ua_dist", s.DW, false, "update A: next-use distance"});
    l.push_back({"ua_uses", s.UW, false, "update A: remaining uses"});
    l.push_back({"ub_res_we", 1, false, "update B: write the resident length (eviction)"});
    l.push_back({"ub_res", s.LW, false, "update B: resident length"});
  }
  if (s.inplace) l.push_back({"ua_rewind", 1, false, "update A: rewrite in place: id <= ua_id, wptr <= base"});
  if (s.claim) {
    l.push_back({"lw_claim_need", s.LW, true, "write lookup: words a claim still needs (saturated at DEPTH)"});
    l.push_back({"lw_claimed", 1, true, "write lookup: the entry is claimed (its writes land at their own offsets)"});
    l.push_back({"lw_over", 1, true, "write lookup: the address lies in the resident prefix (addr - base < resident length)"});
    l.push_back({"lw_in_cap", 1, true, "write lookup: addr - base < capacity"});
    l.push_back({"lw_end", s.AW, true, "write lookup: selected end (a commit's write pointer)"});
    l.push_back({"lw_commit_res", s.LW, true, "write lookup: min(capacity, end - base), a commit's resident length"});
    l.push_back({"ua_claim_we", 1, false, "update A: write the claimed bit"});
    l.push_back({"ua_claimed", 1, false, "update A: claimed bit"});
  }
  if (s.dirty) {
    if (s.inplace || s.claim)
      l.push_back({"lw_dirty_over", s.LW, true, "write lookup: max(dirty, offset + 1), the dirty prefix after a write in place"});
    l.push_back({"ls_dirty", s.LW, true, "indexed view: dirty prefix length"});
    l.push_back({"ua_dirty_we", 1, false, "update A: write the dirty prefix length"});
    l.push_back({"ua_dirty", s.LW, false, "update A: dirty prefix length"});
    l.push_back({"ub_dirty", s.LW, false, "update B: dirty prefix length (with ub_res, eviction)"});
  }
  if (s.flush) {
    l.push_back({"ls_ofs", s.LW, false, "indexed view: a capacity offset (the flush's next word)"});
    l.push_back({"ls_slot", s.IXW, true, "indexed view: the SRAM slot of ls_ofs"});
  }
  if (s.dirty && s.claim) {
    l.push_back({"lw_cdirty", 1, true, "write lookup: a write (not a fill) landed past the prefix since the claim"});
    l.push_back({"ua_cdirty_we", 1, false, "update A: write the claimed-write dirty bit"});
    l.push_back({"ua_cdirty", 1, false, "update A: claimed-write dirty bit"});
  }
  return l;
}

// ------------------------------------------------------------------ table

// `name[off +: w]`, or just `name` when the vector is exactly that slice (a
// 1-bit signal cannot be part-selected).
std::string part(const std::string& name, int total, int off, int w) {
  if (off == 0 && w == total) return name;
  return fmt::format("{}[{} +: {}]", name, off, w);
}

// AND-OR selection of one entry's fields by a one-hot vector `sel` into p_*.
std::string select_fields(const ChordShape& s, const std::string& p, const std::string& sel,
                          const std::vector<std::pair<std::string, int>>& fields) {
  std::string init, body;
  for (const auto& [f, w] : fields) {
    init += fmt::format("  {}_{} = '0;\n", p, f);
    body += fmt::format("    {0}_{1} = {0}_{1} | ({{{2}{{{3}[e]}}}} & {1}_q[e*{2} +: {2}]);\n", p, f, w, sel);
  }
  return "always_comb begin\n" + init + s.fill("  for (int e = 0; e < {T}; e++) begin\n") + body + "  end\nend\n";
}

// p_cap, p_last_start, p_lastlen from p_nruns and the selected run vectors.
std::string last_run(const ChordShape& s, const std::string& p) {
  std::string out = fmt::format("always_comb begin\n  {0}_cap = '0;\n  {0}_last_start = '0;\n  {0}_last_begin = '0;\n", p);
  for (int j = 0; j < s.extents; ++j) {
    out += fmt::format("  if ({0}_nruns == {1}) begin\n    {0}_cap = {2};\n    {0}_last_start = {3};\n", p,
                       sv_const(s.NRW, j + 1), part(p + "_rend", s.extents * s.LW, j * s.LW, s.LW),
                       part(p + "_rstart", s.extents * s.IXW, j * s.IXW, s.IXW));
    if (j > 0) out += fmt::format("    {0}_last_begin = {0}_rend[{1} +: {2}];\n", p, (j - 1) * s.LW, s.LW);
    out += "  end\n";
  }
  out += fmt::format("end\nassign {0}_lastlen = {0}_cap - {0}_last_begin;\n", p);
  return out;
}

// SRAM slot of capacity offset `ofs` (LW bits): the first run whose end exceeds
// it. Slots are below DEPTH, so the arithmetic is done modulo 2^IXW.
std::string slot_of(const ChordShape& s, const std::string& p, const std::string& ofs, const std::string& out) {
  std::string body = fmt::format("always_comb begin\n  {} = '0;\n", out);
  std::string ofs_lo = low_bits(ofs, s.LW, s.IXW);
  for (int j = s.extents - 1; j >= 0; --j) {
    std::string begin = j == 0 ? "" : fmt::format(" - {}_rend[{} +: {}]", p, (j - 1) * s.LW, s.IXW);
    body += fmt::format("  if ({} < {}) {} = {} + {}{};\n", ofs, part(p + "_rend", s.extents * s.LW, j * s.LW, s.LW), out,
                        part(p + "_rstart", s.extents * s.IXW, j * s.IXW, s.IXW), ofs_lo, begin);
  }
  return body + "end\n";
}

void declare_runs(SvModule& m, const ChordShape& s, const std::string& p) {
  m.signal(p + "_rstart", s.extents * s.IXW, "selected entry: run start slots");
  m.signal(p + "_rend", s.extents * s.LW, "selected entry: run cumulative end offsets");
}

// Reset values of one entry's registers (inside the g_entry loop): all zero,
// except that entry 0 owns run 0 = [0, DEPTH).
std::string entry_resets(const ChordShape& s) {
  std::string meta_reset =
      s.riff ? s.fill("      dist_q[e*{DW} +: {DW}]    <= '0;\n      uses_q[e*{UW} +: {UW}]    <= '0;\n") : "";
  std::string resets = s.fill(R"(
      valid_q[e]                  <= 1'b0;
      id_q[e*{IDW} +: {IDW}]    <= '0;
      base_q[e*{AW} +: {AW}]    <= '0;
      end_q[e*{AW} +: {AW}]     <= '0;
      wptr_q[e*{AW} +: {AW}]    <= '0;
      res_q[e*{LW} +: {LW}]     <= '0;
      rstart_q[e*{K}*{IXW} +: {K}*{IXW}] <= '0;
{meta_reset}{claim_reset}{dirty_reset})",
                                {{"meta_reset", meta_reset},
                                 {"claim_reset", s.claim ? "      claimed_q[e]                <= 1'b0;\n" : ""},
                                 {"dirty_reset", (s.dirty ? s.fill("      dirty_q[e*{LW} +: {LW}]   <= '0;\n") : std::string()) +
                                                     (s.dirty && s.claim ? "      cdirty_q[e]                 <= 1'b0;\n" : "")}});
  resets += fmt::format("      nruns_q[e*{0} +: {0}] <= (e == 0) ? {1} : {2};\n", s.NRW, sv_const(s.NRW, 1),
                        sv_const(s.NRW, 0));
  resets += fmt::format("      rend_q[e*{0}*{1} +: {1}] <= (e == 0) ? {2} : {3};\n", s.extents, s.LW,
                        sv_const(s.LW, s.depth), sv_const(s.LW, 0));
  if (s.extents > 1)
    resets += fmt::format("      rend_q[e*{0}*{1} + {1} +: {2}] <= '0;\n", s.extents, s.LW, (s.extents - 1) * s.LW);
  return resets;
}

// Update port A's write of run ua_run: start slot (if ua_rstart_we) and end offset.
std::string run_writes_a(const ChordShape& s) {
  std::string out;
  for (int j = 0; j < s.extents; ++j)
    out += fmt::format(
        "        if (ua_run == {0}) begin\n          if (ua_rstart_we) rstart_q[(e*{1}+{2})*{3} +: {3}] <= ua_rstart;\n"
        "          rend_q[(e*{1}+{2})*{4} +: {4}] <= ua_rend;\n        end\n",
        sv_const(s.RIW, j), s.extents, j, s.IXW, s.LW);
  return out;
}

// Update port B's write of run ub_run: end offset only.
std::string run_writes_b(const ChordShape& s) {
  std::string out;
  for (int j = 0; j < s.extents; ++j)
    out += fmt::format("        if (ub_run == {0}) rend_q[(e*{1}+{2})*{3} +: {3}] <= ub_rend;\n", sv_const(s.RIW, j),
                       s.extents, j, s.LW);
  return out;
}

// The entry registers (flattened vectors, entry e at [e*W +: W]) and the
// per-entry always_ff that resets them and applies update ports A and B.
void add_entry_storage(SvModule& m, const ChordShape& s) {
  m.signal("valid_q", s.entries, "entry holds a registered tensor");
  m.signal("id_q", s.entries * s.IDW, "tensor ids, entry e at [e*IDW +: IDW]");
  m.signal("base_q", s.entries * s.AW, "global base addresses");
  m.signal("end_q", s.entries * s.AW, "global end addresses (exclusive)");
  m.signal("wptr_q", s.entries * s.AW, "next address the producer must write");
  m.signal("res_q", s.entries * s.LW, "resident length: the prefix [base, base + res) is in the SRAM");
  m.signal("nruns_q", s.entries * s.NRW, "runs in use");
  if (s.riff) {
    m.signal("dist_q", s.entries * s.DW, "next-use distance");
    m.signal("uses_q", s.entries * s.UW, "remaining uses");
  }
  m.signal("rstart_q", s.entries * s.extents * s.IXW, "run start slots, entry e run j at [(e*K+j)*IXW +: IXW]");
  m.signal("rend_q", s.entries * s.extents * s.LW,
           "run cumulative end offsets, entry e run j at [(e*K+j)*LW +: LW]");
  if (s.claim) m.signal("claimed_q", s.entries, "a claim command ran since register / rewrite");
  if (s.dirty) m.signal("dirty_q", s.entries * s.LW, "option clean: the first dirty_q resident words may differ from DRAM");
  if (s.dirty && s.claim) m.signal("cdirty_q", s.entries, "option clean: a claimed write (not a fill) landed past the prefix");

  std::string meta_write = s.riff ? s.fill(R"(        if (ua_meta_we) begin
          dist_q[e*{DW} +: {DW}] <= ua_dist;
          uses_q[e*{UW} +: {UW}] <= ua_uses;
        end
)") : "";
  std::string res_b = s.riff ? s.fill("      if (ub_res_we) res_q[e*{LW} +: {LW}] <= ub_res;\n") : "";
  if (s.dirty) res_b += s.fill("      if (ub_res_we) dirty_q[e*{LW} +: {LW}] <= ub_dirty;\n");
  std::string dirty_write = s.dirty ? s.fill("        if (ua_dirty_we) dirty_q[e*{LW} +: {LW}] <= ua_dirty;\n") : "";
  if (s.dirty && s.claim) dirty_write += "        if (ua_cdirty_we) cdirty_q[e] <= ua_cdirty;\n";
  // Option inplace: the rewritten entry keeps its runs and resident prefix.
  std::string rewind = s.inplace ? s.fill(R"(        if (ua_rewind) begin
          id_q[e*{IDW} +: {IDW}]   <= ua_id;
          wptr_q[e*{AW} +: {AW}] <= base_q[e*{AW} +: {AW}];
        end
)") : "";
  m.section("Entry storage: one register set per entry, written by update ports A and B",
            s.fill(R"(
for (genvar e = 0; e < {T}; e++) begin : g_entry
  localparam logic [{EW}-1:0] IDX = e;
  always_ff @(posedge clk) begin
    if (!rst_n) begin
{resets}    end else begin
      if (ua_entry == IDX) begin
        if (ua_valid_we) valid_q[e] <= ua_valid;
        if (ua_tensor_we) begin
          id_q[e*{IDW} +: {IDW}] <= ua_id;
          base_q[e*{AW} +: {AW}] <= ua_base;
          end_q[e*{AW} +: {AW}]  <= ua_end;
        end
        if (ua_wptr_we) wptr_q[e*{AW} +: {AW}] <= ua_wptr;
        if (ua_res_we) res_q[e*{LW} +: {LW}] <= ua_res;
{meta_write}{rewind}{claim_write}{dirty_write}        if (ua_nruns_we) nruns_q[e*{NRW} +: {NRW}] <= ua_nruns;
        if (ua_run_we) begin
{runs_a}        end
      end
      if (ub_entry == IDX) begin
{res_b}        if (ub_nruns_we) nruns_q[e*{NRW} +: {NRW}] <= ub_nruns;
        if (ub_run_we) begin
{runs_b}        end
      end
    end
  end
end
)",
                   {{"resets", entry_resets(s)},
                    {"runs_a", run_writes_a(s)},
                    {"runs_b", run_writes_b(s)},
                    {"res_b", res_b},
                    {"rewind", rewind},
                    {"claim_write", s.claim ? "        if (ua_claim_we) claimed_q[e] <= ua_claimed;\n" : ""},
                    {"dirty_write", dirty_write},
                    {"meta_write", meta_write}}));
}

// Lookup `p` (lr, lw, lc) by tensor id: one comparator per entry against
// p_id, the matching entry's index (p_entry) and whether one matched (p_found).
std::string id_lookup(const ChordShape& s, const std::string& p) {
  return s.fill(R"(
always_comb begin
  {p}_match = '0;
  for (int e = 0; e < {T}; e++) {p}_match[e] = valid_q[e] && (id_q[e*{IDW} +: {IDW}] == {p}_id);
end
always_comb begin
  {p}_entry = '0;
  for (int e = 0; e < {T}; e++) {p}_entry = {p}_entry | ({p}_match[e] ? {EW}'(e) : '0);
end
assign {p}_found = |{p}_match;
)",
                {{"p", p}});
}

// Read lookup (lr_*): the read's entry, hit = base <= addr < base + res, and
// the SRAM slot of a hit.
void add_read_lookup(SvModule& m, const ChordShape& s) {
  m.signal("lr_match", s.entries, "read lookup: entry holds the requested id");
  for (auto [f, w] : std::vector<std::pair<std::string, int>>{{"base", s.AW}, {"end", s.AW}, {"res", s.LW}})
    m.signal("lr_" + f, w, "read lookup: selected " + f);
  declare_runs(m, s, "lr");
  m.signal("lr_ofs", s.AW, "read lookup: addr - base");
  m.signal("lr_ofs_lo", s.LW, "read lookup: offset within the capacity (meaningful on a hit)");
  std::vector<std::pair<std::string, int>> fields = {
      {"base", s.AW}, {"end", s.AW}, {"res", s.LW}, {"rstart", s.extents * s.IXW}, {"rend", s.extents * s.LW}};
  std::string flags = s.fill(R"(assign lr_ofs      = lr_addr - lr_base;
assign lr_ofs_lo   = {ofs_lo};
assign lr_in_range = (lr_addr >= lr_base) && (lr_addr < lr_end);
assign lr_hit      = lr_found && lr_in_range && (lr_ofs < {res_x});
)",
                             {{"ofs_lo", low_bits("lr_ofs", s.AW, s.LW)}, {"res_x", zext("lr_res", s.LW, s.AW)}});
  m.section("Read lookup: id match (one comparator per entry), then hit = base <= addr < base + res",
            id_lookup(s, "lr") + select_fields(s, "lr", "lr_match", fields) + flags +
                slot_of(s, "lr", "lr_ofs_lo", "lr_slot"));
}

// Write lookup (lw_*): the write's entry, its order / prefix / room / run-limit
// flags, the words still to write, the next SRAM slot and (RIFF) its key.
void add_write_lookup(SvModule& m, const ChordShape& s) {
  m.signal("lw_match", s.entries, "write lookup: entry holds the written id");
  m.signal("lw_base", s.AW, "write lookup: selected base");
  if (!s.claim) m.signal("lw_end", s.AW, "write lookup: selected end");
  if (s.riff) {
    m.signal("lw_dist", s.DW, "write lookup: selected next-use distance");
    m.signal("lw_uses", s.UW, "write lookup: selected remaining uses");
  }
  declare_runs(m, s, "lw");
  m.signal("lw_last_begin", s.LW, "write lookup: capacity offset where the last run begins");
  m.signal("lw_last_start", s.IXW, "write lookup: first slot of the last run");
  m.signal("lw_lastlen", s.LW, "write lookup: length of the last run");
  m.signal("lw_wofs", s.AW, "write lookup: wptr - base");
  if (!s.claim) m.signal("lw_left", s.AW, "write lookup: end - wptr");
  if (s.inplace && !s.claim) m.signal("lw_wofs_lo", s.LW, "write lookup: wptr - base where it matters (<= resident length)");
  std::string key_logic;
  if (s.riff) {
    key_logic = s.fill(R"(assign lw_dead = lw_uses == '0;
assign lw_key  = {lw_key};
)",
                       {{"lw_key", riff_key(s, "lw")}});
  }
  std::vector<std::pair<std::string, int>> fields = {{"base", s.AW},
                                                     {"end", s.AW},
                                                     {"wptr", s.AW},
                                                     {"res", s.LW},
                                                     {"nruns", s.NRW},
                                                     {"rstart", s.extents * s.IXW},
                                                     {"rend", s.extents * s.LW}};
  if (s.riff) {
    fields.push_back({"dist", s.DW});
    fields.push_back({"uses", s.UW});
  }
  if (s.claim) fields.push_back({"claimed", 1});
  if (s.dirty && (s.inplace || s.claim)) fields.push_back({"dirty", s.LW});
  if (s.dirty && s.claim) fields.push_back({"cdirty", 1});
  // With claim a claimed entry's write may come in any order inside its tensor.
  const std::string in_order = s.claim ? "lw_found && (lw_claimed ? ((lw_addr >= lw_base) && (lw_addr < lw_end))\n"
                                         "                                  : ((lw_addr == lw_wptr) && (lw_wptr < lw_end)))"
                                       : "lw_found && (lw_addr == lw_wptr) && (lw_wptr < lw_end)";
  std::string flags = s.fill(R"(assign lw_wofs      = lw_wptr - lw_base;
{left}assign lw_in_order  = {in_order};
assign lw_prefix    = lw_wofs == {res_x};
assign lw_has_room  = lw_res < lw_cap;
assign lw_runs_full = lw_nruns == {kfull};
{need}assign lw_last_end  = {last_start_x} + {lastlen_x};
)",
                             {{"res_x", zext("lw_res", s.LW, s.AW)},
                              {"in_order", in_order},
                              {"kfull", sv_const(s.NRW, s.extents)},
                              {"dconst", sv_const(s.AW, s.depth)},
                              {"dlen", sv_const(s.LW, s.depth)},
                              {"left", s.claim ? "" : "assign lw_left      = lw_end - lw_wptr;\n"},
                              {"need", s.claim ? "" : s.fill("assign lw_need      = (lw_left > {dconst}) ? {dlen} : {left_lo};\n",
                                                             {{"dconst", sv_const(s.AW, s.depth)},
                                                              {"dlen", sv_const(s.LW, s.depth)},
                                                              {"left_lo", low_bits("lw_left", s.AW, s.LW)}})},
                              {"last_start_x", zext("lw_last_start", s.IXW, s.IXW + 1)},
                              {"lastlen_x", s.LW == s.IXW + 1 ? "lw_lastlen" : zext("lw_lastlen", s.LW, s.IXW + 1)}});
  // With inplace the write's slot is that of its own offset: inside the
  // resident prefix when rewriting in place, the next slot when it is intact.
  // (With claim the slot is that of the address's offset, lw_aofs_lo, below.)
  if (s.inplace)
    flags += s.fill(s.claim ? "assign lw_inplace   = lw_wofs < {res_x};\n"
                            : "assign lw_inplace   = lw_wofs < {res_x};\nassign lw_wofs_lo   = {wofs_lo};\n",
                    {{"res_x", zext("lw_res", s.LW, s.AW)}, {"wofs_lo", low_bits("lw_wofs", s.AW, s.LW)}});
  // Option claim (sw/chord's claim()): the words still to be written past the
  // resident prefix (or the write pointer, if further), less the spare space
  // the entry owns already; saturated at DEPTH like lw_need.
  if (s.claim) {
    // A claimed entry's write lands at its own offset (addr - base), and a
    // commit sets the resident length to min(capacity, end - base).
    m.signal("lw_aofs", s.AW, "write lookup: addr - base");
    m.signal("lw_aofs_lo", s.LW, "write lookup: addr - base where it matters (< capacity)");
    m.signal("lw_len", s.AW, "write lookup: end - base");
    flags += s.fill(R"(assign lw_aofs       = lw_addr - lw_base;
assign lw_aofs_lo    = {aofs_lo};
assign lw_over       = lw_aofs < {res_x};
assign lw_in_cap     = lw_aofs < {cap_x};
assign lw_len        = lw_end - lw_base;
assign lw_commit_res = (lw_len > {cap_x}) ? lw_cap : {len_lo};
)",
                    {{"res_x", zext("lw_res", s.LW, s.AW)},
                     {"cap_x", zext("lw_cap", s.LW, s.AW)},
                     {"aofs_lo", low_bits("lw_aofs", s.AW, s.LW)},
                     {"len_lo", low_bits("lw_len", s.AW, s.LW)}});
    m.signal("lw_rest", s.AW, "write lookup: end - max(wptr, resident end)");
    m.signal("lw_spare_x", s.AW, "write lookup: spare words (capacity - resident), address-wide");
    m.signal("lw_short", s.AW, "write lookup: lw_rest - spare, where positive");
    flags += s.fill(R"(assign lw_rest       = lw_end - ((lw_wofs < {res_x}) ? (lw_base + {res_x}) : lw_wptr);
assign lw_spare_x    = {spare_x};
assign lw_short      = (lw_rest > lw_spare_x) ? lw_rest - lw_spare_x : '0;
assign lw_claim_need = (lw_short > {dconst}) ? {dlen} : {short_lo};
)",
                    {{"res_x", zext("lw_res", s.LW, s.AW)},
                     {"spare_x", zext("lw_cap - lw_res", s.LW, s.AW)},
                     {"dconst", sv_const(s.AW, s.depth)},
                     {"dlen", sv_const(s.LW, s.depth)},
                     {"short_lo", low_bits("lw_short", s.AW, s.LW)}});
  }
  // Option clean: a dirty write in place (at offset ofs < resident length)
  // makes the prefix dirty up to ofs + 1.
  if (s.dirty && (s.inplace || s.claim)) {
    m.signal("lw_dirty", s.LW, "write lookup: dirty prefix length");
    const std::string ofs = s.claim ? "lw_aofs_lo" : "lw_wofs_lo";
    flags += fmt::format("assign lw_dirty_over = ({0} >= lw_dirty) ? {0} + 1'b1 : lw_dirty;\n", ofs);
  }
  m.section("Write lookup: order check, prefix / room / run-limit flags, next slot",
            id_lookup(s, "lw") + select_fields(s, "lw", "lw_match", fields) + last_run(s, "lw") + flags + key_logic +
                slot_of(s, "lw", s.claim ? "lw_aofs_lo" : s.inplace ? "lw_wofs_lo" : "lw_res", "lw_slot"));
}

// Command lookup (lc_*) and the lowest free entry (for a register command).
void add_command_lookup(SvModule& m, const ChordShape& s) {
  m.signal("lc_match", s.entries, "command lookup: entry holds the command's id");
  if (s.inplace) {
    m.signal("ln_match", s.entries, "command lookup: entry holds a rewrite's new id");
    m.section("Rewrite: is the new id registered already?", s.fill(R"(always_comb begin
  ln_match = '0;
  for (int e = 0; e < {T}; e++) ln_match[e] = valid_q[e] && (id_q[e*{IDW} +: {IDW}] == ln_id);
end
assign ln_found = |ln_match;
)"));
  }
  m.section("Command lookup and the lowest free entry", id_lookup(s, "lc") + s.fill(R"(always_comb begin
  free_entry = '0;
  for (int e = {T} - 1; e >= 0; e--) if (!valid_q[e]) free_entry = {EW}'(e);
end
assign free_found = !(&valid_q);
)"));
}

// Option `reserve` (sw/chord's giveable()): a tensor still being written (valid,
// started, prefix intact, not one RIFF bypasses) keeps min(spare, end - wptr) of
// its spare words for its own writes; ls_give is the rest. A tensor not yet
// written (wptr == base) keeps nothing: it may be an input that is only read.
// Adds the fields it needs.
std::string reserved_spare(SvModule& m, const ChordShape& s, std::vector<std::pair<std::string, int>>& fields) {
  fields.push_back({"wptr", s.AW});
  fields.push_back({"end", s.AW});
  m.signal("ls_wptr", s.AW, "indexed view: write pointer");
  m.signal("ls_end", s.AW, "indexed view: end address");
  m.signal("ls_left", s.AW, "indexed view: words the tensor has still to write");
  m.signal("ls_writing", 1, "indexed view: a live tensor whose writes will land in its own spare space");
  m.signal("ls_kept", s.LW, "indexed view: spare words kept for those writes");
  std::string live = "ls_valid";
  if (!spare_is_link(s)) m.signal("ls_spare", s.LW, "indexed view: spare words (capacity - resident)");
  if (!s.riff) {
    fields.push_back({"base", s.AW});
    m.signal("ls_base", s.AW, "indexed view: global base address");
    m.signal("ls_live", 1, "indexed view: entry holds a tensor");
    live = "ls_live";
  }
  // Option claim (needs riff): a claimed entry keeps spare space for the words
  // it has still to write (as a writing one does), whatever it has written.
  std::string keeps = "ls_writing";
  if (s.claim) {
    fields.push_back({"claimed", 1});
    m.signal("ls_claimed", 1, "indexed view: a claim command ran for the entry");
    m.signal("ls_keeps", 1, "indexed view: the entry keeps spare space for its own writes");
    keeps = "ls_keeps";
  }
  const std::string not_dead = s.riff ? " && (ls_uses != '0)" : "";
  const std::string res = zext("ls_res_sel", s.LW, s.AW);
  return s.fill(R"({live_def}assign ls_left    = ls_end - ls_wptr;
assign ls_writing = {live} && (ls_wptr != ls_base) && ({res} == ls_wptr - ls_base){not_dead};
{keeps_def}assign ls_kept    = !{keeps} ? '0 : (ls_left < {spare}) ? {left_lo} : ls_spare;
assign ls_give    = ls_spare - ls_kept;
)",
                {{"live_def", s.riff ? "" : "assign ls_live    = |(ls_sel & valid_q);\n"},
                 {"live", live},
                 {"res", res},
                 {"not_dead", not_dead},
                 {"keeps", keeps},
                 {"keeps_def", s.claim ? "assign ls_keeps   = ls_writing || (" + live + " && ls_claimed && (" + res +
                                             " >= ls_wptr - ls_base)" + not_dead + ");\n"
                                       : ""},
                 {"spare", zext("ls_spare", s.LW, s.AW)},
                 {"left_lo", low_bits("ls_left", s.AW, s.LW)}});
}

// Indexed view (ls_*) of the entry ls_entry, for the victim scan and the
// steal source: spare space, last run and (RIFF) residency and key.
void add_indexed_view(SvModule& m, const ChordShape& s) {
  m.signal("ls_sel", s.entries, "indexed view: one-hot entry select");
  m.signal("ls_rstart", s.extents * s.IXW, "indexed view: run start slots");
  m.signal("ls_rend", s.extents * s.LW, "indexed view: run cumulative end offsets");
  m.signal("ls_last_begin", s.LW, "indexed view: capacity offset where the last run begins");
  std::vector<std::pair<std::string, int>> fields = {
      {"nruns", s.NRW}, {"rstart", s.extents * s.IXW}, {"rend", s.extents * s.LW}};
  std::string extra;
  if (s.riff) {
    fields.push_back({"base", s.AW});
    fields.push_back({"dist", s.DW});
    fields.push_back({"uses", s.UW});
    m.signal("ls_res_sel", s.LW, "indexed view: resident length");
    m.signal("ls_dist", s.DW, "indexed view: next-use distance");
    m.signal("ls_uses", s.UW, "indexed view: remaining uses");
    extra = s.fill(R"(assign ls_valid = |(ls_sel & valid_q);
assign ls_res   = ls_res_sel;
assign ls_key   = {ls_key};
assign ls_spare = ls_cap - ls_res_sel;
)",
                   {{"ls_key", riff_key(s, "ls")}});
  } else {
    m.signal("ls_res_sel", s.LW, "indexed view: resident length");
    extra = "assign ls_spare = ls_cap - ls_res_sel;\n";
  }
  std::string res_sel = s.fill(R"(always_comb begin
  ls_res_sel = '0;
  for (int e = 0; e < {T}; e++) ls_res_sel = ls_res_sel | ({{{LW}{{ls_sel[e]}}}} & res_q[e*{LW} +: {LW}]);
end
)");
  if (s.reserve) extra += reserved_spare(m, s, fields);
  if (s.dirty) fields.push_back({"dirty", s.LW});
  // Option flush: the slot of the flush's next offset, by the runs' arithmetic.
  if (s.flush) extra += slot_of(s, "ls", "ls_ofs", "ls_slot");
  m.section(s.flush ? "Indexed view of one entry (victim scan, steal source and flush)"
                    : "Indexed view of one entry (victim scan and steal source)",
            s.fill(R"(
always_comb begin
  ls_sel = '0;
  for (int e = 0; e < {T}; e++) ls_sel[e] = ls_entry == {EW}'(e);
end
)") + select_fields(s, "ls", "ls_sel", fields) + res_sel + last_run(s, "ls") + extra);
}

SvModule table_module(const ChordShape& s, const std::string& name) {
  const auto& c = s.cfg;
  SvModule m(name,
             "RIFF index table of CHORD: one entry per tensor (id, global base / end /\n"
             "write pointer, resident length, up to EXTENTS SRAM runs, reuse metadata).\n"
             "Lookups are by tensor id (one comparator per entry, no per-line tags);\n"
             "hit and SRAM slot are computed from the entry's fields. The controller\n"
             "writes fields through two update ports (A: the accessed or registered\n"
             "entry, B: the source of stolen space). After reset entry 0 owns the\n"
             "whole SRAM as spare space.");
  m.record_config(c.to_json());
  m.note(fmt::format("Entry width: {} bits ({} entries = {} bits of table storage).", c.entry_bits(), c.entries,
                     c.entry_bits() * c.entries));
  m.clock_reset();
  for (const auto& l : links(s)) {
    if (l.table_out) m.output(l.name, l.width, l.comment);
    else m.input(l.name, l.width, l.comment);
  }
  add_entry_storage(m, s);
  add_read_lookup(m, s);
  add_write_lookup(m, s);
  add_command_lookup(m, s);
  add_indexed_view(m, s);
  return m;
}

// ------------------------------------------------------------------ controller

// The performance counters: output cnt_<name>, driven by the register cnt_<name>_q.
struct Counter {
  const char* name;
  const char* doc;
};
constexpr Counter kCounters[] = {{"rd_hit", "reads served by the SRAM"},
                                 {"rd_miss", "reads served by DRAM"},
                                 {"wr_hit", "writes stored in the SRAM"},
                                 {"wr_spill", "writes sent to DRAM"},
                                 {"evict", "words evicted (written back) by RIFF"},
                                 {"error", "illegal reads, writes and commands"}};

// The per-access monitor: output mon_<name>, `width` bits, driven by `drive`.
struct Monitor {
  std::string name;
  int width;
  std::string doc, drive;
};

std::vector<Monitor> monitors(const ChordShape& s) {
  return {{"rd_valid", 1, "a read was accepted this cycle", "rd_fire"},
          {"rd_kind", 2, "0 hit, 1 miss, 2 error", "rd_err ? 2'd2 : (rd_miss ? 2'd1 : 2'd0)"},
          {"rd_entry", s.EW, "table entry of the read", "lr_entry"},
          {"rd_slot", s.IXW, "SRAM slot of a hit", "lr_slot"},
          {"wr_valid", 1, "a write was accepted this cycle", "wr_fire"},
          {"wr_kind", 2, "0 stored, 1 spilled, 2 stored after eviction, 3 error",
           "(!wgo && wr_err) ? 2'd3 : wr_spill ? 2'd1 : (wgo && ev_q) ? 2'd2 : 2'd0"},
          {"wr_entry", s.EW, "table entry of the write", "lw_entry"},
          {"wr_slot", s.IXW, "SRAM slot of a stored write", "lw_slot"},
          {"wr_victim", s.EW, "entry whose tail was evicted (kind 2)", "victim_q"},
          {"wr_evicted", s.LW, "words evicted (kind 2)", "evicted_q"},
          {"cmd_valid", 1, "a command was accepted this cycle", "cmd_fire"},
          {"cmd_status", 3, "0 ok, 1 unregistered, 2 table full, 3 duplicate, 4 empty range, 7 illegal opcode",
           "cmd_status"},
          {"cmd_entry", s.EW, "entry registered / updated / released", "(" + s.op_is(0) + ") ? free_entry : lc_entry"}};
}

// The command opcodes of this build, and those it reports as illegal.
std::string opcode_doc(const ChordShape& s) {
  static const char* const kNames[] = {"register", "update metadata", "release", "rewrite in place", "claim", "commit", "flush"};
  std::vector<std::string> legal;
  for (unsigned k = 0; k < (1u << s.OPW); ++k)
    if (std::find(s.illegal.begin(), s.illegal.end(), k) == s.illegal.end()) legal.push_back(fmt::format("{} {}", k, kNames[k]));
  std::string doc = fmt::format("{}", fmt::join(legal, ", "));
  if (!s.illegal.empty())
    doc += fmt::format(" ({} {} illegal)", fmt::join(s.illegal, ", "), s.illegal.size() > 1 ? "are" : "is");
  return doc;
}

void controller_ports(SvModule& m, const ChordShape& s) {
  m.clock_reset();
  std::vector<Field> cmd = {{"op", s.OPW, opcode_doc(s)},
                            {"id", s.IDW, "tensor id"},
                            {"base", s.AW, "register: global base address"},
                            {"end", s.AW, "register: global end address (exclusive)"}};
  if (s.riff) {
    cmd.push_back({"dist", s.DW, "register/update/rewrite: next-use distance"});
    cmd.push_back({"uses", s.UW, "register/update/rewrite: remaining uses"});
  }
  if (s.inplace) cmd.push_back({"nid", s.IDW, "rewrite: id of the tensor written in place of `id`"});
  m.sink({"cmd", "command", "valid", "accepted (commands run alone, between accesses)", cmd});
  std::vector<Field> wr = {{"id", s.IDW, "tensor id"},
                           {"addr", s.AW, "global address (must be the tensor's next address)"},
                           {"data", s.WW, "data"}};
  if (s.clean) wr.push_back({"fill", 1, "1: a fill (DRAM holds the word): stored clean, not written to DRAM if it spills or is evicted"});
  if (s.be) wr.push_back({"be", s.WB, "byte enables: byte k is written (a stored word keeps its other bytes, a spill writes only these)"});
  m.sink({"wr", "write stream", "valid", "accepted", wr});
  m.sink({"rd_req", "read request", "valid", "accepted",
          {{"id", s.IDW, "tensor id"}, {"addr", s.AW, "global address"}}});
  m.source({"rd_rsp", "read response", "valid (responses in request order)", "taken",
            {{"data", s.WW, "data (0 for an illegal read)"},
             {"hit", 1, "served by the SRAM"},
             {"err", 1, "illegal read (unregistered id or address outside the tensor)"}}});
  std::vector<Field> dram = {{"write", 1, "1 write (spill / eviction write-back), 0 read (miss)"},
                              {"addr", s.AW, "global word address"},
                              {"data", s.WW, "write data"}};
  if (s.be) dram.push_back({"be", s.WB, "write: the bytes to write (a spill's wr_be; all of a write-back)"});
  m.source({"dram_req", "DRAM request", "valid (requests are performed in order)", "accepted", dram});
  m.sink({"dram_rsp", "DRAM read response", "valid (in request order)", "taken", {{"data", s.WW, "data"}}});
  for (const auto& k : kCounters) m.output(fmt::format("cnt_{}", k.name), s.CW, fmt::format("counter: {}", k.doc));
  m.output("status_err", kChordStatusBits, "sticky errors: [0] read unregistered, [1] read outside tensor, [2] write unregistered, "
                                           "[3] write out of order, [4] table full, [5] duplicate id, [6] empty range, "
                                           "[7] update/release unregistered, [8] illegal opcode");
  for (const auto& k : monitors(s)) m.output("mon_" + k.name, k.width, "monitor: " + k.doc);
}

// The controller's own ports: the CHORD interface, the table links (seen from
// the controller) and the SRAM port.
void controller_interface(SvModule& m, const ChordShape& s) {
  controller_ports(m, s);
  for (const auto& l : links(s)) {
    if (l.table_out) m.input(l.name, l.width, l.comment);
    else m.output(l.name, l.width, l.comment);
  }
  m.output("ram_we", s.WB, s.be ? "SRAM write enables, one per byte" : "SRAM write enable");
  m.output("ram_waddr", s.IXW, "SRAM write slot");
  m.output("ram_wdata", s.WW, "SRAM write data");
  if (s.sram) m.output("ram_re", 1, "SRAM read enable");
  m.output("ram_raddr", s.IXW, "SRAM read slot");
  m.input("ram_rdata", s.WW, s.sram ? "SRAM read data (one cycle after ram_re)" : "SRAM read data (combinational)");
}

// The state encoding and the handshake / decision signals.
void declare_control_signals(SvModule& m, const ChordShape& s) {
  m.localparam("S_IDLE", "3'd0", "accepting commands / reads / writes");
  m.localparam("S_SCAN", "3'd1", "scanning the table for a space source");
  m.localparam("S_STEAL", "3'd2", "moving space to the writer");
  // With claim an eviction is written back in the background (bg_q): no EVICT state.
  if (s.riff && !s.claim) m.localparam("S_EVICT", "3'd3", "writing the victim's tail back");
  m.localparam("S_WGO", "3'd4", "accepting the write that waited");
  if (s.claim) {
    m.localparam("S_CLAIM", "3'd5", "a claim: look for more space while it needs some");
    m.signal("claim_q", 1, "a claim command is running (SCAN / STEAL / EVICT serve it)");
    m.signal("claim_id_q", s.IDW, "the claimed tensor");
    m.signal("claim_go", 1, "a legal claim command is accepted");
    m.signal("claim_more", 1, "the claimed entry still needs space and may take another run");
    m.signal("need_q", s.LW, "words the claim still needs, registered in S_CLAIM (writes never scan with claim)");
    m.localparam("S_COMMIT", "3'd6", "a commit: the claimed entry's writes become resident");
    m.signal("commit_go", 1, "a legal commit command is accepted");
    m.signal("commit_st", 1, "state is S_COMMIT (the write lookup serves the commit)");
    m.signal("commit_now", 1, "the committed entry is claimed: update its write pointer, prefix and claim");
    m.signal("lw_claim_stores", 1, "the claimed entry stores writes past its prefix (live, prefix intact at the claim)");
  }

  m.signal("state_q", 3, "controller state");
  m.signal("idle", 1, "state is S_IDLE");
  m.signal("wgo", 1, "state is S_WGO");
  m.signal("open_io", 1, "reads and writes may be accepted (idle, no command waiting)");
  m.signal("cmd_fire", 1, "command handshake");
  m.signal("rd_fire", 1, "read request handshake");
  m.signal("wr_fire", 1, "write handshake");
  m.signal("rd_err", 1, "illegal read");
  m.signal("rd_miss", 1, "legal read outside the resident prefix");
  m.signal("wr_err", 1, "illegal write");
  m.signal("wr_bypass", 1, "dead tensor: every write spills (RIFF)");
  m.signal("wr_store_now", 1, "write fits in the entry's own space");
  m.signal("wr_need_steal", 1, "write needs space from another entry");
  m.signal("wr_spill_now", 1, "write goes to DRAM without a scan");
  m.signal("wr_store", 1, "accepted write stored in the SRAM");
  m.signal("wr_spill", 1, "accepted write sent to DRAM");
  m.signal("start_scan", 1, "a write needs space: start the table scan");
  m.signal("spill_q", 1, "the waiting write spills (no source found)");
  m.signal("ev_q", 1, "the waiting write evicted a victim");
  m.signal("victim_q", s.EW, "entry whose tail was evicted");
  m.signal("evicted_q", s.LW, "words evicted");
  m.signal("w_q", s.EW, "entry of the waiting write");
}

// The DRAM request queue, the reads in flight and the DRAM read data FIFO.
void declare_queue_signals(SvModule& m, const ChordShape& s) {
  m.signal("dq_count_q", s.DQC, "DRAM request queue occupancy");
  m.signal("dq_head_q", s.DQW, "DRAM request queue head");
  m.signal("dq_tail_q", s.DQW, "DRAM request queue tail");
  m.signal("dq_free", s.DQC, "free DRAM request queue entries");
  m.signal("dq_free_ge1", 1, "at least one free entry");
  m.signal("dq_free_ge2", 1, "at least two free entries");
  m.signal("dq_pop", 1, "DRAM accepted the head request");
  m.signal("dq_push0", 1, s.claim ? "push from the read miss or flush path" : "push from the read miss or eviction path");
  m.signal("dq_push1", 1, s.claim ? "push from the write spill or background write-back path" : "push from the write spill path");
  m.signal("dq_w0", 1, "push 0: write flag");
  m.signal("dq_a0", s.AW, "push 0: address");
  m.signal("dq_d0", s.WW, "push 0: data");
  m.signal("dq_idx1", s.DQW, "push 1: queue index");
  m.array("dq_write_q", 1, s.dram_queue, "DRAM request queue: write flag");
  m.array("dq_addr_q", s.AW, s.dram_queue, "DRAM request queue: address");
  m.array("dq_data_q", s.WW, s.dram_queue, "DRAM request queue: data");
  if (s.be) m.array("dq_be_q", s.WB, s.dram_queue, "DRAM request queue: byte enables of a write");

  m.signal("rq_count_q", s.RQC, "reads in flight (accepted, response not yet taken)");
  m.signal("rq_head_q", s.RQW, "oldest read in flight");
  m.signal("rq_tail_q", s.RQW, "next read slot");
  m.array("rq_kind_q", 2, s.read_queue, "read in flight: 0 hit, 1 miss, 2 error");
  m.array("rq_data_q", s.WW, s.read_queue, "read in flight: SRAM data of a hit");
  m.signal("rq_avail_q", s.read_queue, "read in flight: its SRAM data has arrived");
  m.signal("rq_head_kind", 2, "kind of the oldest read");
  m.signal("rq_room", 1, "a read slot is free");
  m.signal("rsp_fire", 1, "read response handshake");
  m.signal("drf_count_q", s.RQC, "DRAM read data waiting");
  m.signal("drf_head_q", s.RQW, "oldest DRAM read data");
  m.signal("drf_tail_q", s.RQW, "next DRAM read data slot");
  m.array("drf_data_q", s.WW, s.read_queue, "DRAM read data, in order");
  m.signal("drf_push", 1, "DRAM read response handshake");
  m.signal("drf_pop", 1, "a miss response is taken");
}

// Arbitration, the read decision (hit / miss / error) and the write decision
// (store / scan for space / spill), with the SRAM write port.
void add_access_decisions(SvModule& m, const ChordShape& s) {
  // With claim a claim's write-back runs in the background (bg_q): the next
  // command waits for it, reads and writes go on beside it.
  m.section("Arbitration: a command runs alone; otherwise one read and one write per cycle",
            std::string(R"(
assign idle      = state_q == S_IDLE;
assign wgo       = state_q == S_WGO;
assign cmd_ready = idle)") + (s.claim ? " && !bg_q" : "") + R"(;
assign cmd_fire  = cmd_valid && cmd_ready;
assign open_io   = idle && !cmd_valid;
)");

  m.section("Read decision: the tensor's own entry says hit or miss (no tag search)",
            s.fill(R"(
assign lr_id        = rd_req_id;
assign lr_addr      = rd_req_addr;
assign rd_err       = !lr_found || !lr_in_range;
assign rd_miss      = !rd_err && !lr_hit;
assign rq_room      = rq_count_q != {rqfull};
assign rd_req_ready = open_io && rq_room && (!rd_miss || dq_free_ge1){rd_hold};
assign rd_fire      = rd_req_valid && rd_req_ready;
)",
                   {{"rqfull", sv_const(s.RQC, s.read_queue)}, {"rd_hold", s.claim ? " && !bg_rd_hold" : ""}}));

  std::string bypass = s.riff ? "!wr_err && lw_dead" : "1'b0";
  std::string store_now = s.inplace ? "!wr_err && (lw_inplace || (!wr_bypass && lw_prefix && lw_has_room))"
                                    : "!wr_err && !wr_bypass && lw_prefix && lw_has_room";
  // With claim a claimed entry's write stores at its own offset: over the
  // resident prefix, or inside the capacity if its prefix was intact at the
  // claim (lw_claim_stores). For any other write lw_over is lw_inplace.
  if (s.claim)
    store_now = "!wr_err && (lw_over || (!wr_bypass && (lw_claimed ? (lw_claim_stores && lw_in_cap) : (lw_prefix && lw_has_room))))";
  m.section("Write decision (PRELUDE): store in own space, scan for space, or spill",
            s.fill(R"(
assign lw_id          = {lw_id};
assign lw_addr        = wr_addr;
assign wr_err         = !lw_found || !lw_in_order;
assign wr_bypass      = {bypass};
assign wr_store_now   = {store_now};
assign wr_need_steal  = {need_steal};
assign wr_spill_now   = !wr_err && !wr_store_now && !wr_need_steal;
assign start_scan     = open_io && wr_valid && wr_need_steal;
assign wr_ready       = (open_io && (wr_err || wr_store_now || (wr_spill_now && dq_free_ge2)){wr_hold})
                     || (wgo && (!spill_q || dq_free_ge1));
assign wr_fire        = wr_valid && wr_ready;
assign wr_store       = wr_fire && (wgo ? !spill_q : wr_store_now);
assign wr_spill       = wr_fire && (wgo ? spill_q : wr_spill_now);
assign ram_we         = {ram_we};
assign ram_waddr      = lw_slot;
assign ram_wdata      = wr_data;
)",
                   {{"bypass", bypass},
                    {"lw_id", s.claim ? "(claim_q || commit_st) ? claim_id_q : wr_id" : "wr_id"},
                    // With claim a write never scans: it stores in the space claimed, or spills.
                    {"need_steal", s.claim ? "1'b0" : "!wr_err && !wr_bypass && lw_prefix && !lw_has_room && !lw_runs_full"},
                    {"wr_hold", s.claim ? " && !bg_wr_hold" : ""},
                    {"store_now", store_now},
                    {"ram_we", s.be ? fmt::format("{{{}{{wr_store}}}} & wr_be", s.WB) : "wr_store"}}));
}

// The scan's combinational side: the indexed view follows the scan (then the
// chosen source), the space source is chosen and the words to move are sized.
void add_scan(SvModule& m, const ChordShape& s) {
  m.signal("scan_q", s.EW, "entry under scan");
  m.signal("scan_last", 1, "scanning the last entry");
  m.signal("sp_found_q", 1, "an entry with spare space was found");
  m.signal("sp_idx_q", s.EW, "the lowest such entry");
  m.signal("sp_cand", 1, "the scanned entry has spare space");
  m.signal("src", s.EW, "entry that gives up space");
  m.signal("take", 1, "a source exists");
  m.signal("avail", s.LW, "words the source can give from its last run");
  m.signal("count", s.LW, "words moved: min(need, avail)");
  m.signal("region", s.IXW, "first slot of the moved words");
  m.signal("merge", 1, "the moved words continue the writer's last run");
  std::string steal_choice, avail_expr;
  // Spare words the scanned entry (then the source) may give: all of them, or
  // with `reserve` those its own remaining writes will not fill.
  const std::string give = s.reserve ? "ls_give" : "ls_spare";
  if (s.riff) {
    m.signal("vc_found_q", 1, "a victim candidate was found");
    m.signal("vc_idx_q", s.EW, "lowest-priority resident entry (ties: lowest entry)");
    m.signal("vc_key_q", s.KEYW, "its priority key");
    m.signal("vc_cand", 1, "the scanned entry is a resident tensor");
    m.signal("use_vic", 1, "RIFF: evict the victim's tail");
    steal_choice = std::string("assign vc_cand = (scan_q != w_q) && ls_valid && (ls_res != '0)") +
                   (s.reserve ? " && (ls_spare == '0)" : "") + R"(;
assign use_vic = !sp_found_q && vc_found_q && (vc_key_q < lw_key);
assign src     = sp_found_q ? sp_idx_q : vc_idx_q;
assign take    = sp_found_q || use_vic;
)";
    avail_expr = fmt::format("sp_found_q ? (({0} < ls_lastlen) ? {0} : ls_lastlen) : ls_lastlen", give);
  } else {
    steal_choice = "assign src  = sp_idx_q;\nassign take = sp_found_q;\n";
    avail_expr = fmt::format("({0} < ls_lastlen) ? {0} : ls_lastlen", give);
  }
  m.section("Scan: one entry per cycle; free space (lowest entry) wins, else RIFF's lowest-priority victim",
            s.fill(R"(
assign ls_entry  = {ls_entry};
assign scan_last = scan_q == {last_entry};
assign sp_cand   = (scan_q != w_q) && ({give} != '0);
{steal_choice}assign avail     = {avail_expr};
assign count     = ({need} < avail) ? {need} : avail;
assign region     = ls_last_start + {lastlen_lo} - {count_lo};
assign merge     = (lw_nruns != '0) && (lw_last_end == {region_w});
)",
                   {{"last_entry", sv_const(s.EW, s.entries - 1)},
                    {"ls_entry", s.flush ? "fl_st ? fl_entry_q : (state_q == S_SCAN) ? scan_q : src"
                                         : "(state_q == S_SCAN) ? scan_q : src"},
                    {"need", s.claim ? "need_q" : "lw_need"},
                    {"steal_choice", steal_choice},
                    {"avail_expr", avail_expr},
                    {"give", give},
                    {"lastlen_lo", low_bits("ls_lastlen", s.LW, s.IXW)},
                    {"count_lo", low_bits("count", s.LW, s.IXW)},
                    {"region_w", zext("region", s.IXW, s.IXW + 1)}}));
}

// The write-back engine has pushed its last word (with an SRAM, the word read
// last cycle is pushed this cycle).
std::string engine_drained(const ChordShape& s) {
  return s.sram ? "(ev_left_q == '0) && !ev_pend_q" : "(ev_left_q == '0)";
}

// RIFF only: the eviction engine, which reads the victim's tail from the SRAM
// one word a cycle and pushes it to the DRAM request queue.
void add_eviction(SvModule& m, const ChordShape& s) {
  m.signal("ev_slot_q", s.IXW, "next victim slot to read");
  m.signal("ev_addr_q", s.AW, "global address of the next victim word");
  m.signal("ev_left_q", s.LW, "victim words still to read");
  m.signal("ev_issue", 1, "read a victim word this cycle");
  m.signal("ev_push", 1, "push a victim word to the DRAM queue this cycle");
  if (!s.claim) m.signal("ev_done", 1, "write-back finished");
  m.signal("ev_push_addr", s.AW, "address of the pushed victim word");
  std::string ev_setup = s.fill(R"(
        ev_slot_q <= region;
        ev_addr_q <= ls_base + {res_minus};
        ev_left_q <= {left};)",
                                {{"res_minus", zext("ls_res - count", s.LW, s.AW)}, {"left", s.dirty ? "ev_wb" : "count"}});
  std::string ev_dirty;
  if (s.dirty) {
    // Option clean: the tail [first, res) is written back only below the dirty
    // prefix's end, which is its first (dirty - first) words.
    m.signal("ev_first", s.LW, "offset of the victim's first evicted word (its new resident length)");
    m.signal("ev_wb", s.LW, "victim words written back: its dirty words from ev_first on");
    ev_dirty = "assign ev_first = ls_res - count;\nassign ev_wb    = (ls_dirty > ev_first) ? ls_dirty - ev_first : '0;\n";
  }
  // Option flush: the same engine reads the flushed prefix (add_flush).
  // With claim the engine serves a claim's eviction in the background (bg_q).
  const std::string evicting = s.claim ? "bg_q" : "(state_q == S_EVICT)";
  // In EVICT (without claim), the engine's last word pushed ends the state.
  const std::string done = s.claim ? "" : "assign ev_done      = (state_q == S_EVICT) && " + engine_drained(s) + ";\n";
  const std::string want = s.flush ? "((" + evicting + " && (ev_left_q != '0)) || (fl_st && fl_more))"
                                   : evicting + " && (ev_left_q != '0)";
  const std::string next_addr = s.flush ? "fl_st ? fl_addr : ev_addr_q" : "ev_addr_q";
  std::string ev_section;
  if (s.sram) {
    m.signal("ev_pend_q", 1, "a victim word read last cycle is on ram_rdata");
    m.signal("ev_paddr_q", s.AW, "its global address");
    ev_section = fmt::format(R"(
assign ev_issue     = {0} && {2};
assign ev_push      = ev_pend_q;
assign ev_push_addr = ev_paddr_q;
{3}always_ff @(posedge clk) begin
  if (!rst_n) ev_pend_q <= 1'b0;
  else ev_pend_q <= ev_issue;
end
always_ff @(posedge clk) begin
  if (ev_issue) ev_paddr_q <= {1};
end
)",
                             want, next_addr, s.claim ? "(bg_q ? dq_free_ge3 && !bg_yield : dq_free_ge2)" : "dq_free_ge2", done);
  } else {
    ev_section = fmt::format(R"(
assign ev_issue     = {0} && {2};
assign ev_push      = ev_issue;
assign ev_push_addr = {1};
{3})",
                             want, next_addr, s.claim ? "(bg_q ? dq_free_ge2 && !bg_yield : dq_free_ge1)" : "dq_free_ge1", done);
  }
  // With claim a move waits in S_STEAL while the last one is written back.
  const std::string moving = s.claim ? "(state_q == S_STEAL) && !bg_q" : "state_q == S_STEAL";
  ev_section += ev_dirty + R"(always_ff @(posedge clk) begin
  if ()" + moving + ") begin" + ev_setup + R"(
  end else if (ev_issue)" + (s.flush ? " && !fl_st" : "") + R"() begin
    ev_slot_q <= ev_slot_q + 1'b1;
    ev_addr_q <= ev_addr_q + 1'b1;
    ev_left_q <= ev_left_q - 1'b1;
  end
end
)";
  m.section("Eviction write-back: the victim's tail words go to DRAM, lowest address first", ev_section);
}

// Option claim: a claim's eviction is written back in the background. The
// claim makes all its moves at once (the table then says where every word is,
// as the model's claim does), and the controller goes on to the next move or
// back to idle while the write-back engine reads the victim's old slots and
// pushes their words through push 1 of the DRAM queue. Beside it, reads and
// writes are served. What waits for it: the next command (cmd_ready), a read
// of a victim word not yet pushed (its miss must not pass its write-back in
// the queue; the engine goes lowest address first, so a reader in address
// order follows it), any write of the victim, a store into a slot the engine
// has not read yet, a read in a cycle the engine reads the SRAM, and a spill
// in a cycle the engine pushes. The engine and the hits take turns at the
// SRAM's read port: after an engine read, a waiting hit goes first.
void add_background_writeback(SvModule& m, const ChordShape& s) {
  const int W = std::max(s.IXW, s.LW) + 1;
  m.signal("bg_q", 1, "a claim's eviction is being written back in the background");
  m.signal("bg_quiet", 1, "the write-back engine has pushed its last word");
  if (s.sram) m.signal("dq_free_ge3", 1, "at least three free DRAM queue entries");
  m.signal("ev_push0", 1, "the write-back engine pushes through push 0 (a flush)");
  m.signal("ev_push1", 1, "the background write-back pushes through push 1");
  m.signal("bg_slot_hit", 1, "the write's slot is one the engine has not read yet");
  m.signal("bg_addr_hit", 1, "the read's address is a victim word not yet pushed");
  m.signal("bg_rd_hold", 1, "the read waits for the background write-back");
  m.signal("bg_last_q", 1, "the background write-back read the SRAM last cycle");
  m.signal("bg_yield", 1, "the engine leaves the SRAM to a waiting hit this cycle");
  m.signal("bg_wr_hold", 1, "the write waits for the background write-back");
  // With an SRAM the engine's word reaches the queue a cycle after its read:
  // a miss in that cycle needs room for both pushes.
  // The first word not yet in the queue: with an SRAM the word read last cycle
  // is pushed through push 1 this cycle, after a miss on push 0.
  const std::string first = zext(s.sram ? "(ev_pend_q ? ev_paddr_q : ev_addr_q)" : "ev_addr_q", s.AW, s.AW + 1);
  const std::string words = s.sram ? zext("ev_left_q", s.LW, s.AW + 1) + " + " + zext("ev_pend_q", 1, s.AW + 1)
                                   : zext("ev_left_q", s.LW, s.AW + 1);
  const std::string miss_room = s.sram ? " || (rd_miss && ev_pend_q && !dq_free_ge2)" : "";
  m.section("Background write-back of a claim's eviction (option claim)",
            s.fill(R"(assign bg_quiet    = {quiet};
assign ev_push0    = ev_push && !bg_q;
assign ev_push1    = ev_push && bg_q;
assign bg_yield    = bg_last_q && rd_req_valid && !rd_miss && !rd_err;
assign bg_slot_hit = ({slot} >= {lo}) && ({slot} < {lo} + {left});
assign bg_addr_hit = ({raddr} >= {first}) && ({raddr} < {first} + {words});
assign bg_rd_hold  = bg_q && (((lr_entry == victim_q) && bg_addr_hit) || (ev_issue && !rd_miss){miss_room});
assign bg_wr_hold  = bg_q && ((lw_entry == victim_q) || (wr_store_now && bg_slot_hit) || (wr_spill_now && ev_push));
always_ff @(posedge clk) begin
  if (!rst_n) bg_last_q <= 1'b0;
  else bg_last_q <= bg_q && ev_issue;
end
always_ff @(posedge clk) begin
  if (!rst_n) bg_q <= 1'b0;
  else if (!bg_q) bg_q <= (state_q == S_STEAL) && claim_q && use_vic;  // a claim's move evicts
  else if (bg_quiet) bg_q <= 1'b0;
end
)",
                   {{"quiet", engine_drained(s)},
                    {"miss_room", miss_room},
                    {"slot", zext("lw_slot", s.IXW, W)},
                    {"lo", zext("ev_slot_q", s.IXW, W)},
                    {"left", zext("ev_left_q", s.LW, W)},
                    {"raddr", zext("rd_req_addr", s.AW, s.AW + 1)},
                    {"first", first},
                    {"words", words}}));
}

// Option flush: a flush command (cmd_op 6) points the indexed view at its
// entry and has the write-back engine read the prefix [0, n) one word a cycle,
// offset by offset (the table gives each offset's slot, across runs), where n
// is the dirty length with `clean` and the resident length without; with
// `clean` the entry's dirty length is cleared when it is done.
void add_flush(SvModule& m, const ChordShape& s) {
  m.localparam("S_FLUSH", "3'd7", "a flush: the write-back engine writes the entry's prefix to DRAM");
  m.signal("fl_go", 1, "a legal flush command is accepted");
  m.signal("fl_st", 1, "state is S_FLUSH");
  m.signal("fl_entry_q", s.EW, "the flushed entry");
  m.signal("fl_ofs_q", s.LW, "its next offset to write back");
  m.signal("fl_len", s.LW, s.dirty ? "words to write back: the dirty prefix" : "words to write back: the resident prefix");
  m.signal("fl_more", 1, "words are left to write back");
  m.signal("fl_addr", s.AW, "global address of the next word");
  m.signal("fl_done", 1, "the flush has pushed its last word");
  m.section("Flush: the write-back engine walks the flushed entry's prefix, offset by offset",
            s.fill(R"(assign fl_go   = cmd_fire && ({op6}) && lc_found;
assign fl_st   = state_q == S_FLUSH;
assign fl_len  = {len};
assign fl_more = fl_ofs_q < fl_len;
assign fl_addr = ls_base + {ofs_x};
assign fl_done = fl_st && !fl_more;  // (an SRAM's last word is pushed in this cycle)
assign ls_ofs  = fl_ofs_q;
always_ff @(posedge clk) begin
  if (fl_go) begin
    fl_entry_q <= lc_entry;
    fl_ofs_q   <= '0;
  end else if (ev_issue && fl_st) begin
    fl_ofs_q <= fl_ofs_q + 1'b1;
  end
end
)",
                   {{"op6", s.op_is(6)},
                    {"len", s.dirty ? "ls_dirty" : "ls_res"},
                    {"ofs_x", zext("fl_ofs_q", s.LW, s.AW)}}));
}

// Option claim, S_STEAL: a move waits for the last one's write-back; with
// nothing left to move the claim ends beside it.
constexpr const char* kClaimStealWait = R"(if (claim_q && bg_q) begin
        // A move waits for the last one's write-back; with nothing left to
        // move the claim ends beside it.
        if (!take) begin
          state_q <= S_IDLE;
          claim_q <= 1'b0;
        end
      end else )";

// The controller state register: IDLE -> SCAN -> STEAL -> (EVICT ->) WGO ->
// IDLE, with the scan's registered results and the waiting write's outcome.
void add_state_machine(SvModule& m, const ChordShape& s) {
  std::string scan_victim = s.riff ? R"(
      if (vc_cand && (!vc_found_q || (ls_key < vc_key_q))) begin
        vc_found_q <= 1'b1;
        vc_idx_q   <= scan_q;
        vc_key_q   <= ls_key;
      end)"
                                   : "";
  std::string vc_reset = s.riff ? "\n      vc_found_q <= 1'b0;" : "";
  std::string steal_next = s.riff ? "state_q <= !take ? S_WGO : (use_vic ? S_EVICT : S_WGO);" : "state_q <= S_WGO;";
  std::string ev_flag = s.riff ? "use_vic" : "1'b0";
  std::string ev_done = s.riff && !s.claim ? "      S_EVICT: if (ev_done) state_q <= S_WGO;\n" : "";
  // Starting a scan for the entry lw_entry (a waiting write's, or a claim's).
  const std::string scan_start = R"(        state_q    <= S_SCAN;
        scan_q     <= '0;
        sp_found_q <= 1'b0;
        spill_q    <= 1'b0;
        ev_q       <= 1'b0;
        w_q        <= lw_entry;)" + std::string(s.riff ? "\n        vc_found_q <= 1'b0;" : "");
  // Option claim: a claim command goes to S_CLAIM, which scans again while the
  // claimed entry needs space and may take another run; a move returns there.
  std::string idle_claim, claim_state, claim_reset;
  if (s.claim) {
    // With claim every scan serves a claim (writes never scan).
    steal_next = R"(state_q <= !take ? S_IDLE : S_CLAIM;  // a victim's write-back runs in the background
        if (!take) claim_q <= 1'b0;)";
    idle_claim = R"(S_IDLE: if (claim_go) begin
        state_q    <= S_CLAIM;
        claim_q    <= 1'b1;
        claim_id_q <= cmd_id;
      end else if (commit_go) begin
        state_q    <= S_COMMIT;
        claim_id_q <= cmd_id;
      end else if )";
    // The scan may run beside the last move's write-back (S_STEAL waits for it).
    claim_state = "      S_CLAIM: if (claim_more) begin\n" + scan_start +
                  R"(
        need_q     <= lw_claim_need;  // the entry's fields stay put until the move
      end else begin
        state_q <= S_IDLE;
        claim_q <= 1'b0;
      end
      S_COMMIT: state_q <= S_IDLE;
)";
    claim_reset = "\n    claim_q    <= 1'b0;\n    claim_id_q <= '0;\n    need_q     <= '0;";
    const std::string intact = s.inplace ? "(lw_prefix || lw_inplace)" : "lw_prefix";
    m.section("Claim and commit: legal commands, whether the claimed entry needs another move or stores",
              s.fill(R"(assign lw_claim_stores = !lw_dead && {intact};
assign claim_go   = cmd_fire && ({op4}) && lc_found;
assign claim_more = lw_found && lw_claim_stores && (lw_claim_need != '0) && !lw_runs_full;
assign commit_go  = cmd_fire && ({op5}) && lc_found;
assign commit_st  = state_q == S_COMMIT;
assign commit_now = commit_st && lw_found && lw_claimed;
)",
                     {{"op4", s.op_is(4)}, {"op5", s.op_is(5)}, {"intact", intact}}));
  }
  // The idle state's branches: a claim or commit, a flush, else a write's scan.
  std::string idle = s.claim ? idle_claim : "S_IDLE: if ";
  if (s.flush) {
    idle += "(fl_go) begin\n        state_q    <= S_FLUSH;\n      end else if ";
    ev_done += "      S_FLUSH: if (fl_done) state_q <= S_IDLE;\n";
  }
  idle += "(start_scan) begin";
  m.section("Controller state", s.fill(R"(
always_ff @(posedge clk) begin
  if (!rst_n) begin
    state_q    <= S_IDLE;
    scan_q     <= '0;
    sp_found_q <= 1'b0;
    sp_idx_q   <= '0;
    spill_q    <= 1'b0;
    ev_q       <= 1'b0;
    victim_q   <= '0;
    evicted_q  <= '0;
    w_q        <= '0;{vc_reset}{claim_reset}
  end else begin
    case (state_q)
      {idle}
{scan_start}
      end
      S_SCAN: begin
        if (sp_cand && !sp_found_q) begin
          sp_found_q <= 1'b1;
          sp_idx_q   <= scan_q;
        end{scan_victim}
        // Free space has precedence and the first one found wins: stop early.
        if (scan_last || sp_cand) state_q <= S_STEAL;
        else scan_q <= scan_q + 1'b1;
      end
      S_STEAL: {steal_wait}begin
        spill_q   <= !take;
        ev_q      <= take && {ev_flag};
        victim_q  <= src;
        evicted_q <= count;
        {steal_next}
      end
{ev_done}{claim_state}      S_WGO: if (wr_fire || !wr_valid) state_q <= S_IDLE;
      default: state_q <= S_IDLE;
    endcase
  end
end
)",
                                       {{"vc_reset", vc_reset},
                                        {"scan_victim", scan_victim},
                                        {"ev_flag", ev_flag},
                                        {"steal_wait", s.claim ? kClaimStealWait : ""},
                                        {"steal_next", steal_next},
                                        {"idle", idle},
                                        {"claim_reset", claim_reset},
                                        {"claim_state", claim_state},
                                        {"scan_start", scan_start},
                                        {"ev_done", ev_done}}));
}

// Table updates: commands (register / update / release) and accepted writes
// through port A; a space move to the writer (A) from the source (B).
void add_table_updates(SvModule& m, const ChordShape& s) {
  std::string ub_res =
      s.riff ? "assign ub_res_we    = steal_go && use_vic;\nassign ub_res       = ls_res - count;\n" : "";
  std::string upd_decl = s.riff ? "logic reg_ok, upd_ok, rel_ok, steal_go;\n" : "logic reg_ok, rel_ok, steal_go;\n";
  std::string upd_ok = s.riff ? "assign upd_ok   = cmd_fire && (" + s.op_is(1) + ") && lc_found;\n" : "";
  std::string meta = s.riff ? std::string("assign ua_meta_we   = reg_ok || upd_ok") + (s.inplace ? " || rw_ok" : "") +
                                  ";\nassign ua_dist      = cmd_dist;\nassign ua_uses      = cmd_uses;\n"
                            : "";
  // Option inplace: a rewrite renames the entry of `id` to `nid` (not already
  // registered under another entry) and rewinds its write pointer.
  std::string rw = s.inplace ? "logic rw_ok;\nassign rw_ok    = cmd_fire && (" + s.op_is(3) + ") && lc_found && (!ln_found || cmd_nid == cmd_id);\n"
                               "assign ua_rewind    = rw_ok;\n"
                             : "";
  std::string lw_nruns_lo = low_bits("lw_nruns", s.NRW, s.RIW);
  // Option claim: a claim sets the entry's claimed bit; a register or rewrite clears it.
  if (s.claim)
    rw += std::string("assign ua_claim_we  = claim_go || reg_ok") + (s.inplace ? " || rw_ok" : "") +
          " || commit_now;\nassign ua_claimed   = claim_go;\n";
  // A store grows the resident length, unless it lands in place (or, with
  // claim, in a claimed entry: a commit sets its length, pointer and claim).
  std::string res_store = s.inplace ? "(wr_store && !lw_inplace)" : "wr_store";
  std::string wptr_we = "reg_ok || (wr_fire && !wr_err)", wptr = "cmd_fire ? cmd_base : lw_wptr + 1'b1",
              res = "cmd_fire ? '0 : lw_res + 1'b1";
  if (s.claim) {
    res_store = "(wr_store && !lw_over && !lw_claimed) || (commit_now && lw_claim_stores)";
    wptr_we = "reg_ok || (wr_fire && !wr_err && !lw_claimed) || commit_now";
    wptr = "cmd_fire ? cmd_base : commit_st ? lw_end : lw_wptr + 1'b1";
    res = "cmd_fire ? '0 : commit_st ? lw_commit_res : lw_res + 1'b1";
  }
  std::string dirty;
  if (s.dirty) {
    // Option clean (sw/chord's store() and take()): a write (not a fill) makes
    // the prefix dirty up to its offset + 1; a commit makes a claimed tensor's
    // whole prefix dirty if a write landed past it; an eviction cuts the
    // dirty prefix to the victim's new resident length.
    const std::string over = s.claim ? "lw_over" : s.inplace ? "lw_inplace" : "";
    std::string we = "reg_ok || rel_ok || (wr_store && !wr_fill" + std::string(s.claim ? " && !(lw_claimed && !lw_over)" : "") + ")";
    std::string val = "cmd_fire ? '0";
    if (s.flush) {  // a flushed prefix is clean
      we += " || fl_done";
      val = "(cmd_fire || fl_st) ? '0";
    }
    if (s.claim) {
      we += " || (commit_now && lw_cdirty)";
      val += " : commit_st ? (lw_claim_stores ? lw_commit_res : lw_res)";
    }
    if (!over.empty()) val += " : " + over + " ? lw_dirty_over";
    val += " : lw_res + 1'b1";
    dirty = fmt::format("assign ua_dirty_we  = {};\nassign ua_dirty     = {};\nassign ub_dirty     = (ls_dirty < ev_first) ? ls_dirty : ev_first;\n",
                        we, val);
    if (s.claim)
      dirty += std::string("assign ua_cdirty_we = reg_ok") + (s.inplace ? " || rw_ok" : "") +
               " || commit_now || (wr_store && !wr_fill && lw_claimed && !lw_over);\nassign ua_cdirty    = wr_store;\n";
  }
  m.section("Table updates: commands, accepted writes (port A), space moves (ports A and B)",
            s.fill(R"(
{upd_decl}assign reg_ok   = cmd_fire && ({op0}) && !lc_found && (cmd_base < cmd_end) && free_found;
{upd_ok}{rw}assign rel_ok   = cmd_fire && ({op2}) && lc_found;
assign steal_go = (state_q == S_STEAL) && take{steal_wait};

assign ua_entry     = cmd_fire ? ({op0} ? free_entry : lc_entry) : {ua_rest};
assign ua_valid_we  = reg_ok || rel_ok;
assign ua_valid     = reg_ok;
assign ua_tensor_we = reg_ok;
assign ua_id        = {ua_id};
assign ua_base      = cmd_base;
assign ua_end       = cmd_end;
assign ua_wptr_we   = {wptr_we};
assign ua_wptr      = {wptr};
assign ua_res_we    = reg_ok || rel_ok || {res_store};
assign ua_res       = {res};
{meta}// The writer gains `count` words: a new run at `region`, or its last run grows.
assign ua_run_we    = steal_go;
assign ua_run       = {ua_run};
assign ua_rstart_we = !merge;
assign ua_rstart    = region;
assign ua_rend      = lw_cap + count;
assign ua_nruns_we  = steal_go && !merge;
assign ua_nruns     = lw_nruns + 1'b1;
// The source loses the tail of its last run (and the run if it empties).
assign ub_entry     = src;
assign ub_run_we    = steal_go;
assign ub_run       = {ub_run};
assign ub_rend      = ls_cap - count;
assign ub_nruns_we  = steal_go && (count == ls_lastlen);
assign ub_nruns     = ls_nruns - 1'b1;
{ub_res}{dirty})",
                   {{"dirty", dirty},
                    {"ua_rest", s.flush && s.dirty ? "fl_st ? fl_entry_q : (steal_go ? w_q : lw_entry)" : "(steal_go ? w_q : lw_entry)"},
                    {"ua_run", "merge ? " + lw_nruns_lo + " - 1'b1 : " + lw_nruns_lo},
                    {"ub_run", low_bits("ls_nruns", s.NRW, s.RIW) + " - 1'b1"},
                    {"ub_res", ub_res},
                    {"upd_decl", upd_decl},
                    {"upd_ok", upd_ok},
                    {"rw", rw},
                    {"ua_id", s.inplace ? "(" + s.op_is(3) + ") ? cmd_nid : cmd_id" : "cmd_id"},
                    {"op0", s.op_is(0)},
                    {"op2", s.op_is(2)},
                    {"steal_wait", s.claim ? " && !bg_q" : ""},
                    {"res_store", res_store},
                    {"wptr_we", wptr_we},
                    {"wptr", wptr},
                    {"res", res},
                    {"meta", meta}}));
  m.section("Command port lookup", s.inplace ? "assign lc_id = cmd_id;\nassign ln_id = cmd_nid;\n" : "assign lc_id = cmd_id;\n");
}

// The DRAM request queue: push 0 (read miss, or an eviction or flush word),
// push 1 (write spill, or with claim a background write-back word), popped in
// order by the DRAM port.
void add_dram_queue(SvModule& m, const ChordShape& s) {
  // With claim a background write-back pushes through push 1 (ev_push1),
  // beside a read's miss; the flush's write-back stays on push 0.
  const std::string ep0 = s.claim ? "ev_push0" : "ev_push";
  std::string push0 = s.riff ? s.fill("assign dq_push0 = (rd_fire && rd_miss) || {ep0};\nassign dq_w0    = {ep0};\n"
                                      "assign dq_a0    = {ep0} ? ev_push_addr : rd_req_addr;\nassign dq_d0    = ram_rdata;\n",
                                      {{"ep0", ep0}})
                             : "assign dq_push0 = rd_fire && rd_miss;\nassign dq_w0    = 1'b0;\n"
                               "assign dq_a0    = rd_req_addr;\nassign dq_d0    = ram_rdata;\n";
  const std::string spill_push = s.clean ? "(wr_spill && !wr_fill)" : "wr_spill";
  m.section("DRAM request queue: misses, spills and write-backs leave in decision order (read before write)",
            push0 + s.fill(R"(assign dq_push1 = {push1}
assign dq_pop   = dram_req_valid && dram_req_ready;
assign dq_free  = {dqfull} - dq_count_q;
assign dq_free_ge1 = dq_free >= {one};
assign dq_free_ge2 = dq_free >= {two};{ge3}
assign dq_idx1  = dq_tail_q + {dqw_push0};
always_ff @(posedge clk) begin
  if (!rst_n) begin
    dq_count_q <= '0;
    dq_head_q  <= '0;
    dq_tail_q  <= '0;
  end else begin
    dq_count_q <= dq_count_q + {c_push0} + {c_push1} - {c_pop};
    dq_tail_q  <= dq_tail_q + {t_push0} + {t_push1};
    if (dq_pop) dq_head_q <= dq_head_q + 1'b1;
  end
end
always_ff @(posedge clk) begin
  if (dq_push0) begin
    dq_write_q[dq_tail_q] <= dq_w0;
    dq_addr_q[dq_tail_q]  <= dq_a0;
    dq_data_q[dq_tail_q]  <= dq_d0;{be0}
  end
  if (dq_push1) begin
    dq_write_q[dq_idx1] <= 1'b1;
    dq_addr_q[dq_idx1]  <= {a1};
    dq_data_q[dq_idx1]  <= {d1};{be1}
  end
end
assign dram_req_valid = dq_count_q != '0;
assign dram_req_write = dq_write_q[dq_head_q];
assign dram_req_addr  = dq_addr_q[dq_head_q];
assign dram_req_data  = dq_data_q[dq_head_q];{be_out}
)",
                        {{"be0", s.be ? "\n    dq_be_q[dq_tail_q]    <= '1;  // a write-back writes the whole word" : ""},
                         {"be1", !s.be ? "" : s.claim ? "\n    dq_be_q[dq_idx1]    <= ev_push1 ? '1 : wr_be;" : "\n    dq_be_q[dq_idx1]    <= wr_be;"},
                         {"a1", s.claim ? "ev_push1 ? ev_push_addr : wr_addr" : "wr_addr"},
                         {"d1", s.claim ? "ev_push1 ? ram_rdata : wr_data" : "wr_data"},
                         {"ge3", s.claim && s.sram ? "\nassign dq_free_ge3 = dq_free >= " + sv_const(s.DQC, 3) + ";" : ""},
                         {"be_out", s.be ? "\nassign dram_req_be    = dq_be_q[dq_head_q];" : ""},
                         {"push1", s.claim ? spill_push + " || ev_push1;"
                                   : s.clean ? "wr_spill && !wr_fill;  // a spilled fill: DRAM holds it already"
                                             : "wr_spill;"},
                         {"dqfull", sv_const(s.DQC, s.dram_queue)},
                         {"one", sv_const(s.DQC, 1)},
                         {"two", sv_const(s.DQC, 2)},
                         {"dqw_push0", zext("dq_push0", 1, s.DQW)},
                         {"c_push0", zext("dq_push0", 1, s.DQC)},
                         {"c_push1", zext("dq_push1", 1, s.DQC)},
                         {"c_pop", zext("dq_pop", 1, s.DQC)},
                         {"t_push0", zext("dq_push0", 1, s.DQW)},
                         {"t_push1", zext("dq_push1", 1, s.DQW)}}));
}

// Read responses in request order: the SRAM read of a hit, the DRAM read data
// FIFO for a miss, 0 for an error.
void add_read_responses(SvModule& m, const ChordShape& s) {
  std::string hit_data, ram_read;
  // The SRAM read port serves the write-back engine (an eviction's tail, a
  // flush's prefix) while it runs, and the reads otherwise.
  const std::string ev_reads = s.claim ? "(bg_q && ev_issue)" : "(state_q == S_EVICT)";
  const std::string raddr = ev_reads + (s.flush ? " ? ev_slot_q : fl_st ? ls_slot : lr_slot" : " ? ev_slot_q : lr_slot");
  if (s.sram) {
    m.signal("rd_pend_q", 1, "a hit's SRAM read was issued last cycle");
    m.signal("rd_pend_idx_q", s.RQW, "its read slot");
    hit_data = R"(always_ff @(posedge clk) begin
  if (!rst_n) rd_pend_q <= 1'b0;
  else rd_pend_q <= rd_fire && !rd_err && !rd_miss;
end
always_ff @(posedge clk) begin
  if (rd_fire) rd_pend_idx_q <= rq_tail_q;
  if (rd_pend_q) rq_data_q[rd_pend_idx_q] <= ram_rdata;
end
always_ff @(posedge clk) begin
  if (!rst_n) rq_avail_q <= '0;
  else begin
    if (rd_fire) rq_avail_q[rq_tail_q] <= 1'b0;
    if (rd_pend_q) rq_avail_q[rd_pend_idx_q] <= 1'b1;
  end
end
)";
    ram_read = s.riff ? "assign ram_re    = (rd_fire && !rd_err && !rd_miss) || ev_issue;\nassign ram_raddr = " + raddr + ";\n"
                      : "assign ram_re    = rd_fire && !rd_err && !rd_miss;\nassign ram_raddr = lr_slot;\n";
  } else {
    hit_data = R"(always_ff @(posedge clk) begin
  if (rd_fire) rq_data_q[rq_tail_q] <= ram_rdata;
end
always_ff @(posedge clk) begin
  if (!rst_n) rq_avail_q <= '0;
  else if (rd_fire) rq_avail_q[rq_tail_q] <= 1'b1;
end
)";
    ram_read = s.riff ? "assign ram_raddr = " + raddr + ";\n" : "assign ram_raddr = lr_slot;\n";
  }
  m.section("Read responses: in request order; hits from the SRAM, misses from DRAM, errors answer 0",
            ram_read + s.fill(R"(always_ff @(posedge clk) begin
  if (rd_fire) rq_kind_q[rq_tail_q] <= rd_err ? 2'd2 : (rd_miss ? 2'd1 : 2'd0);
end
{hit_data}assign rq_head_kind = rq_kind_q[rq_head_q];
assign rd_rsp_valid = (rq_count_q != '0) &&
                      ((rq_head_kind == 2'd2) || (rq_head_kind == 2'd0 && rq_avail_q[rq_head_q]) ||
                       (rq_head_kind == 2'd1 && drf_count_q != '0));
assign rd_rsp_data  = (rq_head_kind == 2'd1) ? drf_data_q[drf_head_q] :
                      (rq_head_kind == 2'd0) ? rq_data_q[rq_head_q] : '0;
assign rd_rsp_hit   = rq_head_kind == 2'd0;
assign rd_rsp_err   = rq_head_kind == 2'd2;
assign rsp_fire     = rd_rsp_valid && rd_rsp_ready;
assign drf_pop      = rsp_fire && (rq_head_kind == 2'd1);
assign drf_push     = dram_rsp_valid && dram_rsp_ready;
assign dram_rsp_ready = drf_count_q != {rqfull};
always_ff @(posedge clk) begin
  if (!rst_n) begin
    rq_count_q  <= '0;
    rq_head_q   <= '0;
    rq_tail_q   <= '0;
    drf_count_q <= '0;
    drf_head_q  <= '0;
    drf_tail_q  <= '0;
  end else begin
    rq_count_q  <= rq_count_q + {c_rd} - {c_rsp};
    if (rd_fire) rq_tail_q <= rq_tail_q + 1'b1;
    if (rsp_fire) rq_head_q <= rq_head_q + 1'b1;
    drf_count_q <= drf_count_q + {c_dpush} - {c_dpop};
    if (drf_push) drf_tail_q <= drf_tail_q + 1'b1;
    if (drf_pop) drf_head_q <= drf_head_q + 1'b1;
  end
end
always_ff @(posedge clk) begin
  if (drf_push) drf_data_q[drf_tail_q] <= dram_rsp_data;
end
)",
                           {{"hit_data", hit_data},
                            {"rqfull", sv_const(s.RQC, s.read_queue)},
                            {"c_rd", zext("rd_fire", 1, s.RQC)},
                            {"c_rsp", zext("rsp_fire", 1, s.RQC)},
                            {"c_dpush", zext("drf_push", 1, s.RQC)},
                            {"c_dpop", zext("drf_pop", 1, s.RQC)}}));
}

// The status test of the illegal opcodes above 3 (3 has its own, with or
// without the rewrite), ending in " :" and a new line.
std::string illegal_high(const ChordShape& s) {
  std::vector<std::string> tests;
  for (unsigned k : s.illegal)
    if (k > 3) tests.push_back(s.op_is(static_cast<int>(k)));
  if (tests.empty()) return "";
  return fmt::format("({}) ? 3'd7 :\n                    ", fmt::join(tests, " || "));
}

// Performance counters, sticky error status, command status and the
// per-access monitor outputs.
void add_counters_status_monitor(SvModule& m, const ChordShape& s) {
  std::vector<std::string> regs;
  std::vector<std::pair<std::string, std::string>> outputs;
  for (const auto& k : kCounters) {
    regs.push_back(fmt::format("cnt_{}_q", k.name));
    outputs.push_back({fmt::format("cnt_{}", k.name), regs.back()});
    m.signal(regs.back(), s.CW, "counter");
  }
  regs.push_back("err_q");
  outputs.push_back({"status_err", "err_q"});
  std::vector<std::pair<std::string, std::string>> monitor;
  for (const auto& k : monitors(s)) monitor.push_back({"mon_" + k.name, k.drive});
  m.signal("err_q", kChordStatusBits, "sticky status bits");
  m.signal("cmd_status", 3, "status code of the command");
  m.signal("cmd_err", 1, "the command is illegal");
  std::string evict_cnt = s.riff
                              ? "if (steal_go && use_vic) cnt_evict_q <= cnt_evict_q + " + zext("count", s.LW, s.CW) + ";"
                              : "cnt_evict_q <= cnt_evict_q;";
  m.section("Counters, sticky status and the per-access monitor", s.fill(R"(
assign cmd_status = {op3_status}
                    ({op0}) ? (lc_found ? 3'd3 : !(cmd_base < cmd_end) ? 3'd4 : !free_found ? 3'd2 : 3'd0) :
                    (lc_found ? 3'd0 : 3'd1);
assign cmd_err = cmd_status != 3'd0;
always_ff @(posedge clk) begin
  if (!rst_n) begin
{resets}  end else begin
    if (rd_fire && !rd_err && !rd_miss) cnt_rd_hit_q <= cnt_rd_hit_q + 1'b1;
    if (rd_fire && rd_miss) cnt_rd_miss_q <= cnt_rd_miss_q + 1'b1;
    if (wr_store) cnt_wr_hit_q <= cnt_wr_hit_q + 1'b1;
    if (wr_spill) cnt_wr_spill_q <= cnt_wr_spill_q + 1'b1;
    {evict_cnt}
    cnt_error_q <= cnt_error_q + {c_rderr} + {c_wrerr} + {c_cmderr};
    err_q <= err_q | {{cmd_fire && cmd_status == 3'd7,
                      cmd_fire && cmd_status == 3'd1,
                      cmd_fire && cmd_status == 3'd4,
                      cmd_fire && cmd_status == 3'd3,
                      cmd_fire && cmd_status == 3'd2,
                      wr_fire && !wgo && lw_found && !lw_in_order,
                      wr_fire && !wgo && !lw_found,
                      rd_fire && lr_found && !lr_in_range,
                      rd_fire && !lr_found}};
  end
end
{outputs}
{monitor})",
            {{"resets", reset_lines(regs, "    ")},
             {"outputs", assign_lines(outputs)},
             {"monitor", assign_lines(monitor)},
             {"evict_cnt", evict_cnt},
             {"op3_status", illegal_high(s) +
                                (s.inplace ? "(" + s.op_is(3) + ") ? (!lc_found ? 3'd1 : (ln_found && cmd_nid != cmd_id) ? 3'd3 : 3'd0) :"
                                           : "(" + s.op_is(3) + ") ? 3'd7 :")},
             {"op0", s.op_is(0)},
             {"c_rderr", zext("rd_fire && rd_err", 1, s.CW)},
             {"c_wrerr", zext("wr_fire && !wgo && wr_err", 1, s.CW)},
             {"c_cmderr", zext("cmd_fire && cmd_err", 1, s.CW)}}));
}

SvModule controller_module(const ChordShape& s, const std::string& name) {
  const auto& c = s.cfg;
  SvModule m(name,
             "PRELUDE controller of CHORD: takes one command, or one read and one write\n"
             "per cycle, and makes the functional model's decisions. A write stores if its\n"
             "tensor's resident prefix is intact and its runs have room; otherwise it\n"
             "steals space (free space first, then - RIFF - the tail of the lowest-priority\n"
             "tensor if that ranks strictly lower) after a scan of the table, one entry per\n"
             "cycle, or spills to DRAM. Evicted words are written back before the write\n"
             "lands. Within a cycle the read is ordered before the write.");
  m.record_config(c.to_json());
  m.note(fmt::format("Options: {}, {} RAM, {} reads in flight, {}-entry DRAM request queue.",
                     s.riff ? "RIFF on" : "PRELUDE only (victim scan and write-back engine removed)",
                     s.sram ? "1-cycle-latency SRAM" : "flop-array", s.read_queue, s.dram_queue));
  controller_interface(m, s);
  declare_control_signals(m, s);
  declare_queue_signals(m, s);
  add_access_decisions(m, s);
  add_scan(m, s);
  if (s.riff) add_eviction(m, s);
  if (s.claim) add_background_writeback(m, s);
  if (s.flush) add_flush(m, s);
  add_state_machine(m, s);
  add_table_updates(m, s);
  add_dram_queue(m, s);
  add_read_responses(m, s);
  add_counters_status_monitor(m, s);
  return m;
}

// ------------------------------------------------------------------ top

SvModule top_module(const ChordShape& s, const std::string& table, const std::string& ctrl) {
  const auto& c = s.cfg;
  SvModule m(c.name,
             "CHORD (CELLO Sec. VI): a tensor-granular buffer. One SRAM, the RIFF index\n"
             "table and the PRELUDE controller. SCORE registers tensors with their global\n"
             "address range and reuse metadata; writes arrive in address order; reads hit\n"
             "when base <= addr < resident end. See docs/chord.md.");
  m.record_config(c.to_json());
  m.note(fmt::format("RIFF index table: {} entries x {} bits = {} bits; {} runs per entry; {}.", c.entries,
                     c.entry_bits(), c.entries * c.entry_bits(), c.extents,
                     c.riff ? "PRELUDE + RIFF" : "PRELUDE only"));
  controller_ports(m, s);
  // Instance references die when the next instance is added: finish each one first.
  auto& ti = m.instantiate(table, "u_table").connect("clk", "clk").connect("rst_n", "rst_n");
  for (const auto& l : links(s)) ti.connect(l.name, l.name);
  std::vector<std::string> top_ports;
  for (const auto& p : m.ports()) top_ports.push_back(p.name);
  auto& ci = m.instantiate(ctrl, "u_prelude");
  for (const auto& p : top_ports) ci.connect(p, p);
  for (const auto& l : links(s)) {
    m.signal(l.name, l.width, l.comment);
    ci.connect(l.name, l.name);
  }
  for (const char* n : {"ram_we", "ram_waddr", "ram_wdata", "ram_raddr", "ram_rdata"}) ci.connect(n, n);
  if (s.sram) ci.connect("ram_re", "ram_re");
  m.signal("ram_we", s.WB, s.be ? "SRAM write enables, one per byte" : "SRAM write enable");
  m.signal("ram_waddr", s.IXW, "SRAM write slot");
  m.signal("ram_wdata", s.WW, "SRAM write data");
  if (s.sram) m.signal("ram_re", 1, "SRAM read enable");
  m.signal("ram_raddr", s.IXW, "SRAM read slot");
  m.signal("ram_rdata", s.WW, "SRAM read data");
  m.localparam("DEPTH", std::to_string(s.depth), "SRAM words");
  auto& ram = m.instantiate(s.sram ? "ram_sram" : "ram_flop", "u_sram")
                  .param("DEPTH", "DEPTH")
                  .param("WIDTH", std::to_string(s.WW))
                  .param("AW", std::to_string(s.IXW))
                  .param("NWR", "1")
                  .param("NBE", std::to_string(s.WB))
                  .connect("clk", "clk")
                  .connect("we", "ram_we")
                  .connect("waddr", "ram_waddr")
                  .connect("wdata", "ram_wdata");
  if (s.sram) ram.connect("re", "ram_re");
  ram.connect("raddr", "ram_raddr").connect("rdata", "ram_rdata");
  return m;
}

}  // namespace

void add_chord(Design& design, const ChordConfig& c) {
  ChordShape s(c);
  std::string table = c.name + "_riff_table", ctrl = c.name + "_prelude";
  design.primitives.insert(s.sram ? "ram_sram" : "ram_flop");
  SvModule top = top_module(s, table, ctrl);
  nlohmann::json block = block_entry(top, "chord", c.to_json());
  block["table_module"] = table;
  block["controller_module"] = ctrl;
  block["entry_bits"] = c.entry_bits();
  block["table_bits"] = c.entry_bits() * c.entries;
  design.blocks.push_back(std::move(block));
  design.modules.push_back(table_module(s, table));
  design.modules.push_back(controller_module(s, ctrl));
  design.modules.push_back(std::move(top));
}

}  // namespace cello::gen
