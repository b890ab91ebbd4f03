#include "sw/cli/area_eval.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sw/area/sram_model.hpp"
#include "gen/sdc/sdc.hpp"

namespace cello::cli {

namespace fs = std::filesystem;

namespace {
// Bits of the block's flop RAM from its config, to decide whether to synthesise it.
uint64_t flop_ram_bits(const nlohmann::json& block) {
  const auto& p = block.value("params", nlohmann::json::object());
  if (p.value("ram", "") != "flop") return 0;
  uint64_t width = p.value("data_width", p.value("word_width", 32));
  uint64_t depth = p.value("depth", 0);
  if (p.contains("tile")) depth = uint64_t(p.value("tile", 0)) * uint64_t(p.value("hold_tiles", 0) + 2);
  return depth * width;
}

// The cells, flops and area of one count, under keys that start with prefix.
void add_cell_stat(nlohmann::json& j, const std::string& prefix, const synth::CellStat& c) {
  j[prefix + "cells"] = c.cells;
  j[prefix + "flops"] = c.flops;
  j[prefix + "area_um2"] = c.area_um2;
}
}  // namespace

nlohmann::json BlockArea::to_json() const {
  nlohmann::json j = {{"module", module},
                      {"kind", kind},
                      {"ram", ram},
                      {"ram_area_um2", ram_um2},
                      {"ram_macro_area_um2", ram_macro_um2},
                      {"ram_read_pj", ram_read_pj},
                      {"ram_write_pj", ram_write_pj},
                      {"control_to_ram", control_to_ram()},
                      {"synth_seconds", flow.synth_seconds}};
  add_cell_stat(j, "", flow.total);
  add_cell_stat(j, "control_", flow.control);
  if (flow.timing.ran) j["timing"] = flow.timing;
  return j;
}

std::vector<BlockArea> evaluate_config(const gen::HwConfig& cfg, const fs::path& work_dir, const AreaOptions& o,
                                       const AreaProgress& progress, const std::vector<std::string>& only_modules) {
  gen::Design d = gen::generate_design(cfg);
  auto files = gen::write_design(d, cfg.to_json(), work_dir / "rtl");
  gen::SdcOptions sdc;
  sdc.period_ns = o.period_ns > 0 ? o.period_ns : cfg.clock_period_ns;

  std::vector<nlohmann::json> blocks;
  for (const auto& b : d.blocks)
    if (only_modules.empty() ||
        std::find(only_modules.begin(), only_modules.end(), b.value("module", "")) != only_modules.end())
      blocks.push_back(b);

  std::vector<BlockArea> out;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const auto& b = blocks[i];
    BlockArea a;
    a.module = b.value("module", "");
    a.kind = b.value("kind", "");
    const synth::FlowOptions fo{.liberty = o.liberty,
                                .period_ns = sdc.period_ns,
                                .sdc = o.timing ? gen::block_sdc(a.module, sdc) : std::string(),
                                .driving_cell = sdc.driving_cell,
                                .load_pf = sdc.load_pf,
                                .buffering = o.buffering,
                                .flop_rams_as_macros = flop_ram_bits(b) > o.flop_ram_limit_bits,
                                .yosys = o.yosys,
                                .sta = o.sta};
    if (progress) progress(fmt::format("[{}/{}] {} {}: yosys{}{}", i + 1, blocks.size(), a.kind, a.module,
                                       o.timing ? " + OpenSTA" : "",
                                       fo.flop_rams_as_macros ? " (flop RAM over the limit: priced as a macro)" : ""));
    a.flow = synth::run_synth_flow(files, a.module, work_dir / a.module, fo);
    for (const auto& r : a.flow.rams) {
      auto e = area::sram_estimate(r.depth, r.width, r.write_ports, 1);
      a.ram_macro_um2 += e.area_um2;
      a.ram_read_pj += e.read_pj;
      a.ram_write_pj += e.write_pj;
      a.flop_ram = a.flop_ram || r.primitive == "ram_flop";
      a.flop_ram_synthesised = a.flop_ram_synthesised || r.synthesised;
      a.ram_um2 += r.synthesised ? r.logic.area_um2 : e.area_um2;
      a.ram += fmt::format("{}{}x{} {}{}", a.ram.empty() ? "" : " + ", r.depth, r.width,
                           r.primitive == "ram_flop" ? "flop" : "sram",
                           r.write_ports > 1 ? fmt::format(" {}W", r.write_ports) : "");
    }
    out.push_back(std::move(a));
  }
  return out;
}

void print_area_table(const std::vector<BlockArea>& blocks) {
  fmt::print("  {:<24} {:<16} {:>8} {:>7} {:>12} {:<22} {:>12} {:>9} {:>9} {:>9}\n", "module", "kind", "cells", "flops",
             "control um2", "RAM", "RAM um2", "ctrl/RAM", "slack ns", "Fmax MHz");
  for (const auto& b : blocks) {
    std::string slack = "-", fmax = "-";
    if (b.flow.timing.ran && b.flow.timing.constrained) {
      slack = fmt::format("{:+.2f}", b.flow.timing.worst_slack_ns);
      fmax = fmt::format("{:.0f}", b.flow.timing.fmax_mhz);
    }
    fmt::print("  {:<24} {:<16} {:>8} {:>7} {:>12.0f} {:<22} {:>12.0f} {:>9} {:>9} {:>9}\n", b.module, b.kind,
               b.flow.control.cells, b.flow.control.flops, b.flow.control.area_um2, b.ram.empty() ? "-" : b.ram,
               b.ram_um2, b.ram_um2 > 0 ? fmt::format("{:.3f}", b.control_to_ram()) : "-", slack, fmax);
    if (b.flop_ram) {
      if (b.flop_ram_synthesised)
        fmt::print("  {:<24} flop RAM synthesised: {:.0f} um2; as an SRAM macro: {:.0f} um2 ({})\n", "", b.ram_um2,
                   b.ram_macro_um2, b.ram_macro_um2 < b.ram_um2 ? "the macro would be smaller" : "flops are smaller");
      else
        fmt::print("  {:<24} flop RAM over the synthesis limit: priced as an SRAM macro\n", "");
    }
  }
}

}  // namespace cello::cli
