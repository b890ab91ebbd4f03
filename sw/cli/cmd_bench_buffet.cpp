// `cello bench buffet`: sustained throughput and simulation speed of the DEPTH=256
// buffet linked into cello, and the Yosys size of its control logic (RAM
// excluded) next to a read-only buffet of the same size generated in the same run.
#include <fmt/core.h>

#include <filesystem>

#include "tb/buffet/buffet_sim_runs.hpp"
#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "gen/gen_command.hpp"
#include "gen/hw_config.hpp"
#include "sw/synth/yosys_stat.hpp"

namespace cello::cli {
namespace {

namespace fs = std::filesystem;

struct ControlSize {
  std::string label;
  synth::CellStat control;
};

// Generates a one-buffet design and synthesises its control logic, RAM black-boxed.
ControlSize control_size(const std::string& label, const gen::BuffetConfig& b, const fs::path& dir,
                         const std::string& yosys) {
  gen::HwConfig cfg;
  cfg.name = b.name;
  cfg.buffets.push_back(b);
  auto design = gen::generate_design(cfg);
  auto files = gen::write_design(design, cfg.to_json(), dir / b.name);
  std::vector<fs::path> rams;
  for (const auto& f : files)
    if (f.stem().string().rfind("ram_", 0) == 0) rams.push_back(f);
  auto st = synth::yosys_synth_stat(files, b.name, dir / (b.name + ".yosys.log"), rams, yosys);
  return {label, st.modules.at(b.name)};
}

void add_bench_buffet(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("buffet", "buffet: sustained fills/reads per cycle, simulation speed, control-logic size");
  auto elements = std::make_shared<uint64_t>(2000000);
  auto out = std::make_shared<std::string>("cello_bench_buffet");
  auto yosys = std::make_shared<std::string>("yosys");
  auto no_synth = std::make_shared<bool>(false);
  auto json = std::make_shared<std::string>();
  cmd->add_option("--elements", *elements, "elements streamed through the buffet")->capture_default_str()->check(CLI::Range(1000, 1000000000));
  cmd->add_option("--out", *out, "directory for generated RTL and Yosys logs")->capture_default_str();
  cmd->add_option("--yosys", *yosys, "yosys executable")->capture_default_str();
  cmd->add_flag("--no-synth", *no_synth, "skip the Yosys counts");
  add_json_option(cmd, *json);
  cmd->callback([=] {
    nlohmann::json report = {{"command", "bench buffet"}};
    fmt::print("cello bench buffet: DEPTH=256, 32-bit, update + RAW scoreboard, separate ports, flop RAM\n");

    auto s = tb::bench_buffet_streaming(*elements);
    double fpc = double(s.fills) / double(s.cycles), rpc = double(s.reads) / double(s.cycles);
    fmt::print("  streaming, no stalls      : {:.4f} fills/cycle, {:.4f} reads/cycle over {} cycles (target >= 0.99)\n",
               fpc, rpc, s.cycles);
    auto u = tb::bench_buffet_update_stream(*elements / 2);
    double upc = double(u.updates) / double(u.cycles), urpc = double(u.reads) / double(u.cycles);
    fmt::print("  read-modify-write stream  : {:.4f} reads/cycle, {:.4f} updates/cycle, {:.4f} fills/cycle\n", urpc,
               upc, double(u.fills) / double(u.cycles));
    auto r = tb::bench_buffet_random(*elements / 2, 7);
    fmt::print("  Verilator speed           : {:.2f} M cycles/s streaming, {:.2f} M cycles/s random mix with stalls\n",
               double(s.cycles) / s.seconds / 1e6, double(r.cycles) / r.seconds / 1e6);
    report["streaming"] = {{"fills_per_cycle", fpc}, {"reads_per_cycle", rpc}, {"cycles", s.cycles}};
    report["read_modify_write"] = {{"reads_per_cycle", urpc}, {"updates_per_cycle", upc}, {"cycles", u.cycles}};
    report["sim_cycles_per_second"] = {{"streaming", double(s.cycles) / s.seconds},
                                       {"random_mix", double(r.cycles) / r.seconds}};

    if (!*no_synth) {
      gen::BuffetConfig full;
      full.name = "bench_buffet_full";
      full.depth = 256;
      full.index_width = 8;
      gen::BuffetConfig ro = full;
      ro.name = "bench_buffet_readonly";
      ro.update = ro.scoreboard = false;
      fs::create_directories(*out);
      nlohmann::json sizes = nlohmann::json::array();
      ControlSize base{};
      for (const auto& [label, cfg] : {std::pair{"update + scoreboard", full}, std::pair{"read-only baseline", ro}}) {
        auto c = control_size(label, cfg, *out, *yosys);
        if (sizes.empty()) base = c;
        fmt::print("  control logic, {:<19}: {:>6} cells, {:>5} flops (RAM excluded)\n", c.label, c.control.cells,
                   c.control.flops);
        sizes.push_back({{"variant", c.label}, {"cells", c.control.cells}, {"flops", c.control.flops}});
        if (sizes.size() == 2)
          fmt::print("  update path + scoreboard cost {:.2f}x the read-only control logic\n",
                     double(base.control.cells) / double(c.control.cells));
      }
      report["control_logic"] = sizes;
    }
    write_json_report(*json, report);
  });
}

}  // namespace
CELLO_BENCH("buffet", add_bench_buffet);
}  // namespace cello::cli
