// The papers' area claims beside this project's sky130 numbers. Absolute areas
// differ (the papers used a 16 nm library and CACTI; this is sky130 130 nm and
// the OpenRAM-fitted SRAM model), so the table compares ratios.
#include "sw/cli/area_paper.hpp"

#include <fmt/format.h>


#include "sw/area/sram_model.hpp"
#include "sw/cli/output_files.hpp"
#include "sw/common/bits.hpp"
#include "sw/common/error.hpp"
#include "sw/plot/svg.hpp"

namespace cello::cli {

namespace fs = std::filesystem;

namespace {

struct Row {
  std::string claim, paper, ours, note;
  double paper_value = 0, ours_value = 0;  // the compared ratio (0 = none)
};

const BlockArea& only(const std::vector<BlockArea>& v, const std::string& module) {
  for (const auto& b : v)
    if (b.module == module) return b;
  throw Error("", module, "block missing from the area results");
}

// Own-cell area of the module whose name ends with `suffix`, or (derived
// modules such as $paramod\fp32_fma\STAGES=...) contains `\<suffix>\`.
double module_area(const BlockArea& b, const std::string& suffix) {
  for (const auto& [name, st] : b.flow.modules)
    if ((name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) ||
        name.find("\\" + suffix + "\\") != std::string::npos)
      return st.area_um2;
  return 0;
}

}  // namespace

nlohmann::json run_paper_table(const AreaOptions& o, const PaperOptions& p, const fs::path& work,
                               const AreaProgress& progress, const std::string& svg) {
  constexpr double kMm2 = 1e6;
  const uint64_t four_mb_words = (4ull << 20) / 4;  // 32-bit words

  // ---- designs: a buffet at 8 KB and at 4 MB, CHORD at 4 MB, a MAC array.
  // Built as a config and parsed, so every derived default is filled in.
  const std::string b8n = "paper_buffet_8kb", b4n = "paper_buffet_4mb", chn = "paper_chord_4mb", man = "paper_mac";
  nlohmann::json hw = {
      {"name", "paper"},
      {"buffets",
       {{{"name", b8n}, {"depth", 2048}, {"ram", "sram"}},
        // a per-slot scoreboard of 1M flops is not a design anyone builds (docs/area.md)
        {{"name", b4n}, {"depth", four_mb_words}, {"ram", "sram"}, {"scoreboard", false}}}},
      {"chords", {{{"name", chn}, {"depth", four_mb_words}, {"entries", p.chord_entries}, {"ram", "sram"}}}},
      {"mac_arrays", {{{"name", man}, {"rows", p.mac_rows}, {"cols", p.mac_cols}}}}};
  gen::HwConfig cfg = gen::parse_hw_config(hw, "--paper");
  const gen::ChordConfig& ch = cfg.chords.front();
  const gen::MacArrayConfig& ma = cfg.mac_arrays.front();
  auto res = evaluate_config(cfg, work, o, progress, {b8n, b4n, chn, man});
  const auto& rb8 = only(res, b8n);
  const auto& rb4 = only(res, b4n);
  const auto& rch = only(res, chn);
  const auto& rma = only(res, man);

  // ---- RAMs from the SRAM model
  const auto ram8k = area::sram_estimate(2048, 32, 1, 1);
  const auto data4m = area::sram_estimate(four_mb_words, 32, 1, 1);
  // 8-way, 16 B lines, byte addresses of the same global space CHORD addresses (addr_width words).
  const uint64_t lines = (4ull << 20) / 16, sets = lines / 8;
  const int tag_bits = ch.addr_width + 2 - cello::ceil_log2(sets) - 4;
  const int set_bits = 8 * (tag_bits + 2) + 7;  // per way tag + valid + dirty; tree-PLRU 7 bits per set
  const auto tags4m = area::sram_estimate(sets, set_bits, 1, 1);

  const double buf8_ctrl = rb8.flow.control.area_um2;
  const double buf4 = rb4.flow.control.area_um2 + data4m.area_um2;
  const double chord4 = rch.flow.control.area_um2 + data4m.area_um2;
  const double cache4 = data4m.area_um2 + tags4m.area_um2;  // no cache controller is built here
  const double table = module_area(rch, "_riff_table");
  // The same table held in SRAM macros (issue 11, item 7), from the SRAM model: the
  // valid bit and the id stay in flops as the CAM the three id lookups need, so
  // the SRAM holds the rest of each entry. With one write and one read port it
  // serves one access a cycle; the flop table serves two update ports (A and B)
  // and four reads (read, write and command lookups, the scan's indexed view),
  // which the model builds as 2 x 4 copies.
  const int sram_entry_bits = ch.entry_bits() - 1 - ch.id_width;
  const auto table_1w1r = area::sram_estimate(uint64_t(ch.entries), sram_entry_bits, 1, 1);
  const auto table_2w4r = area::sram_estimate(uint64_t(ch.entries), sram_entry_bits, 2, 4);
  const double fma = module_area(rma, "fp32_fma"), pe = module_area(rma, "_pe") + fma;  // the PE's own cells + its FMA
  const double array = rma.flow.total.area_um2;

  std::vector<Row> rows;
  rows.push_back({"buffet control / 8 KB RAM (Buffets Table 3)", "446 / 17571 um2 = 2.5% (\"2%\")",
                  fmt::format("{:.0f} / {:.0f} um2 = {:.1f}%", buf8_ctrl, ram8k.area_um2, 100 * buf8_ctrl / ram8k.area_um2),
                  "DEPTH 2048 x 32, update + scoreboard, 16 nm vs sky130", 446.0 / 17571.0, buf8_ctrl / ram8k.area_um2});
  rows.push_back({"4 MB buffet (CELLO Fig. 15a)", "6.72 mm2",
                  fmt::format("{:.1f} mm2 (control {:.3f} mm2 = {:.2f}% of data)", buf4 / kMm2,
                              rb4.flow.control.area_um2 / kMm2, 100 * rb4.flow.control.area_um2 / data4m.area_um2),
                  "no per-slot scoreboard at 1M slots", 0, 0});
  rows.push_back({"4 MB 8-way cache: data + tags (Fig. 15a)", "9.87 mm2 (data 6.59, tags 1.85)",
                  fmt::format("{:.1f} mm2 (data {:.1f}, tags {:.1f}; {}-bit tags, no controller)", cache4 / kMm2,
                              data4m.area_um2 / kMm2, tags4m.area_um2 / kMm2, tag_bits),
                  "SRAM model for both arrays", 0, 0});
  rows.push_back({"4 MB CHORD (Fig. 15a)", "6.74 mm2",
                  fmt::format("{:.1f} mm2 (table + PRELUDE {:.3f} mm2)", chord4 / kMm2, rch.flow.control.area_um2 / kMm2),
                  fmt::format("{} entries", ch.entries), 0, 0});
  rows.push_back({"cache / buffet (4 MB)", "9.87 / 6.72 = 1.47x", fmt::format("{:.2f}x", cache4 / buf4), "",
                  9.87 / 6.72, cache4 / buf4});
  rows.push_back({"CHORD / buffet (4 MB)", "6.74 / 6.72 = 1.003x", fmt::format("{:.3f}x", chord4 / buf4), "",
                  6.74 / 6.72, chord4 / buf4});
  rows.push_back({"tag array / data array (4 MB)", "1.85 / 6.59 = 0.28x",
                  fmt::format("{:.3f}x", tags4m.area_um2 / data4m.area_um2), "", 1.85 / 6.59,
                  tags4m.area_um2 / data4m.area_um2});
  rows.push_back({"RIFF table / cache tag array (Sec. VI-B)", "0.01x",
                  fmt::format("{:.4f}x ({:.0f} um2 of flops vs {:.2f} mm2)", table / tags4m.area_um2, table,
                              tags4m.area_um2 / kMm2),
                  "table synthesised as flops", 0.01, table / tags4m.area_um2});
  rows.push_back({"RIFF table: SRAM macros / flops (item 7)", "-",
                  fmt::format("{:.2f}x with 1W+1R ({:.0f} um2, {} macros), {:.2f}x with the flop table's 2W+4R "
                              "({:.2f} mm2)",
                              table > 0 ? table_1w1r.area_um2 / table : 0, table_1w1r.area_um2, table_1w1r.macros,
                              table > 0 ? table_2w4r.area_um2 / table : 0, table_2w4r.area_um2 / kMm2),
                  fmt::format("{} x {} bits in SRAM, the id CAM not counted; 1W+1R gives up a read and a write a cycle",
                              ch.entries, sram_entry_bits),
                  0, 0});
  rows.push_back({fmt::format("FMA / PE, PE x {} / array ({}x{})", ma.rows * ma.cols, ma.rows, ma.cols), "-",
                  fmt::format("{:.2f}, {:.2f} (FMA {:.0f}, PE {:.0f}, array {:.0f} um2)", pe > 0 ? fma / pe : 0,
                              array > 0 ? pe * ma.rows * ma.cols / array : 0, fma, pe, array),
                  "PE area includes its FMA", 0, 0});

  fmt::print("\n  {:<44} {:<34} {}\n", "claim", "paper (16 nm / CACTI)", "ours (sky130 HD, SRAM model)");
  for (const auto& r : rows) {
    fmt::print("  {:<44} {:<34} {}\n", r.claim, r.paper, r.ours);
    if (!r.note.empty()) fmt::print("  {:<44} {:<34} ({})\n", "", "", r.note);
  }

  nlohmann::json j = nlohmann::json::array();
  for (const auto& r : rows)
    j.push_back({{"claim", r.claim}, {"paper", r.paper}, {"ours", r.ours}, {"note", r.note},
                 {"paper_ratio", r.paper_value}, {"ours_ratio", r.ours_value}});
  nlohmann::json out = {{"rows", j},
                        {"blocks", {rb8.to_json(), rb4.to_json(), rch.to_json(), rma.to_json()}},
                        {"sram_8kb_um2", ram8k.area_um2},
                        {"sram_4mb_um2", data4m.area_um2},
                        {"cache_tags_4mb_um2", tags4m.area_um2},
                        {"cache_tag_bits", tag_bits},
                        {"riff_table_sram_1w1r_um2", table_1w1r.area_um2},
                        {"riff_table_sram_2w4r_um2", table_2w4r.area_um2}};

  if (!svg.empty()) {
    plot::BarPanel panel;
    panel.title = "Ratios: paper against sky130 (this project)";
    panel.y_label = "ratio";
    panel.log_y = true;
    panel.series = {"paper", "ours (sky130)"};
    for (const auto& r : rows)
      if (r.paper_value > 0) {
        panel.groups.push_back(r.claim);
        panel.values.push_back({r.paper_value, r.ours_value});
      }
    write_output_file(svg, plot::bar_chart_svg("cello area --paper", {panel}));
  }
  return out;
}

}  // namespace cello::cli
