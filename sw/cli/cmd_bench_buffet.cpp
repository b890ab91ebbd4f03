// `cello bench buffet`: sustained throughput and simulation speed of the DEPTH=256
// buffet linked into cello, and the Yosys size of its control logic (RAM
// excluded) next to a read-only buffet of the same size generated in the same run.
// `cello bench buffet --multicast`: a 1D-convolution-like stream over the linked
// buffet group (an L2 filling 4 L1s), with and without multicast, and the size
// of the multicast unit against K (docs/buffet.md, "Composition and multicast").
#include <fmt/core.h>

#include <filesystem>

#include "tb/buffet/buffet_sim_runs.hpp"
#include "tb/buffet_group/group_sim_runs.hpp"
#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "gen/gen_command.hpp"
#include "gen/hw_config.hpp"
#include "sw/common/error.hpp"
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

// The multicast unit of a K-target group (the bench group's sizes), synthesised alone.
synth::CellStat multicast_size(int targets, const fs::path& dir, const std::string& yosys) {
  gen::BuffetGroupConfig g;
  g.name = fmt::format("bench_mcast_k{}", targets);
  g.targets = targets;
  g.l2_depth = static_cast<int>(tb::bench_group_l2_depth());
  g.l1_depth = static_cast<int>(tb::bench_group_l1_depth());
  gen::HwConfig cfg;
  cfg.name = g.name;
  cfg.buffet_groups.push_back(g);
  auto files = gen::write_design(gen::generate_design(cfg), cfg.to_json(), dir / g.name);
  auto st = synth::yosys_synth_stat(files, g.mcast_name(), dir / (g.name + ".yosys.log"), {}, yosys);
  return st.total;
}

nlohmann::json conv_json(const tb::ConvFigures& f) {
  return {{"cycles", f.cycles},       {"l2_reads", f.l2_reads}, {"dram_fills", f.dram_fills},
          {"l1_fills", f.l1_fills},   {"l1_reads", f.l1_reads}, {"credit_stall_cycles", f.credit_stall_cycles},
          {"checked", f.passed}};
}

// `--multicast`: the stream with and without multicast, then the unit's size against K.
void run_multicast(const tb::ConvStream& base, bool synth, const fs::path& out, const std::string& yosys,
                   nlohmann::json& report) {
  const unsigned K = tb::bench_group_targets();
  fmt::print("cello bench buffet --multicast: L2 of {} slots filling {} L1s of {} slots (32-bit); 1D-convolution-like "
             "stream, {} passes of {} weights + {} x {} outputs (halo {})\n",
             tb::bench_group_l2_depth(), K, tb::bench_group_l1_depth(), base.passes, base.filter, K, base.outputs,
             base.filter - 1);
  tb::ConvStream uni = base, multi = base;
  uni.multicast = false;
  multi.multicast = true;
  tb::ConvFigures u = tb::bench_group_conv(uni), m = tb::bench_group_conv(multi);
  for (const auto* f : {&u, &m})
    if (!f->passed) throw Error("bench buffet --multicast", "composed model", f->failure);
  fmt::print("  {:<20} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "", "L2 reads", "DRAM fills", "L1 fills", "cycles",
             "L1 reads");
  for (const auto& [label, f] : {std::pair{"unicast only", &u}, std::pair{"multicast", &m}})
    fmt::print("  {:<20} {:>10} {:>10} {:>10} {:>10} {:>10}\n", label, f->l2_reads, f->dram_fills, f->l1_fills,
               f->cycles, f->l1_reads);
  const double saved = 1.0 - double(m.l2_reads) / double(u.l2_reads);
  const double cyc = 1.0 - double(m.cycles) / double(u.cycles);
  fmt::print("  multicast: {:.1f}% of the unicast L2 reads (L2-to-L1 transfers), {:.1f}% saved; DRAM fills {} vs {}; "
             "{:.1f}% fewer cycles (both runs checked against the composed model)\n",
             100.0 * (1.0 - saved), 100.0 * saved, m.dram_fills, u.dram_fills, 100.0 * cyc);
  report["multicast"] = {{"targets", K},         {"filter", base.filter},  {"outputs", base.outputs},
                         {"passes", base.passes}, {"unicast", conv_json(u)}, {"multicast", conv_json(m)},
                         {"l2_reads_saved", saved}, {"cycles_saved", cyc}};
  if (!synth) return;
  fs::create_directories(out);
  nlohmann::json sizes = nlohmann::json::array();
  fmt::print("  multicast unit (Yosys generic cells, {}-slot L1s):", tb::bench_group_l1_depth());
  for (int k : {2, 4, 8, 16}) {
    auto c = multicast_size(k, out, yosys);
    fmt::print(" K={}: {} cells, {} flops;", k, c.cells, c.flops);
    sizes.push_back({{"targets", k}, {"cells", c.cells}, {"flops", c.flops}});
  }
  fmt::print(" K=1: no unit\n");
  report["multicast_unit"] = sizes;
}

void add_bench_buffet(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("buffet", "buffet: sustained fills/reads per cycle, simulation speed, control-logic size");
  auto elements = std::make_shared<uint64_t>(2000000);
  auto out = std::make_shared<std::string>("cello_bench_buffet");
  auto yosys = std::make_shared<std::string>("yosys");
  auto no_synth = std::make_shared<bool>(false);
  auto json = std::make_shared<std::string>();
  auto multicast = std::make_shared<bool>(false);
  auto conv = std::make_shared<tb::ConvStream>();
  cmd->add_flag("--multicast", *multicast,
                "instead: a 1D-convolution-like stream over a buffet group with and without multicast, and the "
                "multicast unit's size against K");
  cmd->add_option("--filter", conv->filter, "--multicast: weights per pass")->capture_default_str()->check(CLI::Range(1, 64));
  cmd->add_option("--outputs", conv->outputs, "--multicast: outputs per L1 per pass")->capture_default_str()->check(CLI::Range(1, 64));
  cmd->add_option("--passes", conv->passes, "--multicast: passes")->capture_default_str()->check(CLI::Range(1, 100000));
  cmd->add_option("--elements", *elements, "elements streamed through the buffet")->capture_default_str()->check(CLI::Range(1000, 1000000000));
  cmd->add_option("--out", *out, "directory for generated RTL and Yosys logs")->capture_default_str();
  cmd->add_option("--yosys", *yosys, "yosys executable")->capture_default_str();
  cmd->add_flag("--no-synth", *no_synth, "skip the Yosys counts");
  add_json_option(cmd, *json);
  cmd->callback([=] {
    nlohmann::json report = {{"command", "bench buffet"}};
    if (*multicast) {
      run_multicast(*conv, !*no_synth, *out, *yosys, report);
      write_json_report(*json, report);
      return;
    }
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
