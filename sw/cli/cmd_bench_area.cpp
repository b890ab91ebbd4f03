// `cello bench area`: the papers' area table of `cello area --paper` and how long
// each step of the flow took (yosys per block, OpenSTA per block, total).
#include <fmt/format.h>

#include <chrono>

#include "sw/area/liberty.hpp"
#include "sw/cli/area_paper.hpp"
#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/common/run_process.hpp"

namespace cello::cli {
namespace {

namespace fs = std::filesystem;

void add_bench_area(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("area", "area: the papers' claims side by side and the time the flow takes");
  auto out = std::make_shared<std::string>("cello_bench_area");
  auto liberty = std::make_shared<std::string>();
  auto entries = std::make_shared<int>(64);
  auto json = std::make_shared<std::string>();
  auto svg = std::make_shared<std::string>();
  cmd->add_option("--out", *out, "work directory")->capture_default_str();
  cmd->add_option("--liberty", *liberty, "liberty (.lib or .lib.gz); default: <data>/liberty/");
  cmd->add_option("--chord-entries", *entries, "RIFF table entries of the CHORD row")->capture_default_str()->check(CLI::Range(2, 256));
  cmd->add_option("--svg", *svg, "write the ratio chart here");
  add_json_option(cmd, *json);
  cmd->callback([=] {
    for (const char* tool : {"yosys", "sta"})
      if (!program_available(tool)) throw Error(tool, "", "not found on PATH (scripts/setup.sh installs it)");
    auto t0 = std::chrono::steady_clock::now();
    AreaOptions o;
    fs::path lib = area::find_liberty(*liberty);
    o.liberty = area::unpacked_liberty(lib, fs::path(*out) / "liberty");
    PaperOptions p;
    p.chord_entries = *entries;
    fmt::print("cello bench area: paper configurations through yosys + abc (buffered, sized) + OpenSTA\n");
    auto progress = [](const std::string& line) {
      fmt::print("  {}\n", line);
      std::fflush(stdout);
    };
    auto table = run_paper_table(o, p, *out, progress, *svg);
    double total = seconds_since(t0);
    fmt::print("\n  flow time per block:\n");
    double synth = 0, sta = 0;
    for (const auto& b : table["blocks"]) {
      double ys = b.value("synth_seconds", 0.0), ss = b.contains("timing") ? b["timing"].value("sta_seconds", 0.0) : 0.0;
      synth += ys;
      sta += ss;
      fmt::print("    {:<22} {:>8} cells  yosys {:>7.1f} s  OpenSTA {:>6.1f} s  Fmax {:>6.0f} MHz\n",
                 b.value("module", ""), b.value("cells", 0ull), ys, ss,
                 b.contains("timing") ? b["timing"].value("fmax_mhz", 0.0) : 0.0);
    }
    fmt::print("  total {:.1f} s (yosys {:.1f} s, OpenSTA {:.1f} s)\n", total, synth, sta);
    write_json_report(*json, {{"command", "bench area"}, {"paper", table}, {"seconds", total},
                              {"yosys_seconds", synth}, {"sta_seconds", sta}});
  });
}

}  // namespace
CELLO_BENCH("area", add_bench_area);
}  // namespace cello::cli
