// Shared by `cello area` and `cello bench area`: generates a config, runs the
// synthesis + timing flow on every generated block and prices its RAMs with the
// SRAM model (docs/area.md).
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sw/synth/synth_flow.hpp"
#include "gen/hw_config.hpp"

namespace cello::cli {

struct AreaOptions {
  std::filesystem::path liberty;  // plain text (area::unpacked_liberty)
  double period_ns = 0;           // > 0 overrides the config's clock_period_ns
  bool timing = true;             // run OpenSTA
  bool buffering = true;          // abc buffering and gate sizing (docs/area.md)
  uint64_t flop_ram_limit_bits = 16384;  // larger flop RAMs are priced as macros, not synthesised
  std::string yosys = "yosys", sta = "sta";
};

struct BlockArea {
  std::string module, kind;
  synth::FlowReport flow;
  std::string ram;            // e.g. "64x32 flop 2W", "" when the block has no RAM
  double ram_um2 = 0;         // RAM as built: synthesised flop array, or the macro model for SRAMs
  double ram_macro_um2 = 0;   // the same RAMs as sky130 SRAM macros (model)
  double ram_read_pj = 0, ram_write_pj = 0;  // macro model, per access
  bool flop_ram = false;      // the block's RAM is a flop array
  bool flop_ram_synthesised = false;
  double control_to_ram() const { return ram_um2 > 0 ? flow.control.area_um2 / ram_um2 : 0; }
  nlohmann::json to_json() const;
};

using AreaProgress = std::function<void(const std::string& line)>;

// Generates `cfg` into work_dir/rtl and evaluates every block (or only those in
// `only_modules` when not empty).
std::vector<BlockArea> evaluate_config(const gen::HwConfig& cfg, const std::filesystem::path& work_dir,
                                       const AreaOptions& o, const AreaProgress& progress,
                                       const std::vector<std::string>& only_modules = {});

// Prints the per-block table.
void print_area_table(const std::vector<BlockArea>& blocks);

}  // namespace cello::cli
