// `cello bench model`: the full `cello model --paper` study, timed. Prints the
// time spent in each configuration (summed over problems), the cache
// simulators' speed in simulated line accesses per second, and the wall time
// against the 60 s budget (2 worker threads, as on a 2-core machine).
#include <fmt/core.h>

#include <chrono>
#include <map>

#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/traffic/report.hpp"

namespace cello::cli {

namespace {

void add_bench_model(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("model", "traffic models: time per configuration and cache accesses/s on --paper");
  auto o = std::make_shared<StudyBenchOptions>();
  auto budget = std::make_shared<double>(60);
  add_study_bench_options(cmd, *o);
  cmd->add_option("--budget", *budget, "wall-time budget in seconds")->capture_default_str();
  add_json_option(cmd, o->json);
  cmd->callback([=] {
    traffic::Study s;
    const std::string dir = o->data.empty() ? traffic::find_data_dir() : o->data;
    const auto t_load = std::chrono::steady_clock::now();
    s.problems = traffic::paper_problems(dir);
    const double load_s = seconds_since(t_load);
    s.threads = o->threads;
    s.cello_sram_sweep = {1ull << 20, 16ull << 20};
    fmt::print("cello bench model: --paper study, {} problems, {} thread(s), data {}\n", s.problems.size(), s.threads,
               dir);
    std::fflush(stdout);
    size_t last_pct = 0;
    auto r = traffic::run_study(s, [&](size_t done, size_t total, const std::string&) {
      size_t pct = done * 10 / total;
      if (pct != last_pct || done == total) {
        fmt::print(stderr, "  {}/{} runs done\n", done, total);
        last_pct = pct;
      }
    });
    struct Acc {
      double seconds = 0, cpu = 0;
      int runs = 0;
      uint64_t cache_accesses = 0, chord_accesses = 0;
    };
    std::map<std::string, Acc> per;
    std::vector<std::string> order;
    double biggest_cache_s = 0;
    uint64_t biggest_cache_acc = 0;
    std::string biggest;
    for (const auto& pr : r.problems)
      for (const auto& c : pr.configs) {
        if (!per.count(c.name)) order.push_back(c.name);
        auto& a = per[c.name];
        a.seconds += c.traffic.seconds;
        a.cpu += c.traffic.cpu_seconds;
        a.runs += 1;
        a.cache_accesses += c.traffic.cache_accesses;
        a.chord_accesses += c.traffic.chord.accesses;
        if (c.traffic.cache_accesses > biggest_cache_acc) {
          biggest_cache_acc = c.traffic.cache_accesses;
          biggest_cache_s = c.traffic.cpu_seconds;
          biggest = pr.problem.label() + " / " + c.name;
        }
      }
    nlohmann::json rep = {{"command", "bench model"}, {"threads", s.threads}, {"problems", s.problems.size()}};
    fmt::print("  {:<14} {:>5} {:>9} {:>9} {:>14} {:>14}\n", "configuration", "runs", "wall s", "CPU s", "accesses",
               "accesses/CPU-s");
    for (const auto& name : order) {
      const auto& a = per[name];
      const uint64_t acc = a.cache_accesses + a.chord_accesses;
      const double rate = a.cpu > 0 ? static_cast<double>(acc) / a.cpu : 0;
      fmt::print("  {:<14} {:>5} {:>9.2f} {:>9.2f} {:>14} {:>14}\n", name, a.runs, a.seconds, a.cpu,
                 acc ? fmt::format("{}", acc) : "-", acc ? fmt::format("{:.3g}", rate) : "-");
      rep["configs"].push_back({{"config", name},
                                {"runs", a.runs},
                                {"seconds", a.seconds},
                                {"cpu_seconds", a.cpu},
                                {"cache_accesses", a.cache_accesses},
                                {"chord_accesses", a.chord_accesses},
                                {"accesses_per_s", rate}});
    }
    uint64_t cache_acc = 0;
    double cache_s = 0;
    for (const auto& name : {"Flex+LRU", "Flex+BRRIP"}) {
      cache_acc += per[name].cache_accesses;
      cache_s += per[name].cpu;
    }
    const double cache_rate = cache_s > 0 ? static_cast<double>(cache_acc) / cache_s : 0;
    fmt::print("  cache simulation: {} line accesses in {:.2f} CPU s = {:.3g} simulated accesses/s per core\n",
               cache_acc, cache_s, cache_rate);
    fmt::print("  largest trace: {}: {} accesses in {:.2f} CPU s\n", biggest, biggest_cache_acc, biggest_cache_s);
    const bool ok = r.seconds < *budget;
    double cpu_total = 0;
    for (const auto& [n, a] : per) cpu_total += a.cpu;
    fmt::print("  wall time {:.1f} s for the whole study (budget {:.0f} s): {}; model CPU time {:.1f} s over {} "
               "thread(s)\n",
               r.seconds, *budget, ok ? "PASS" : "OVER BUDGET", cpu_total, s.threads);
    if (!ok && cpu_total / s.threads < *budget)
      fmt::print("  (the CPU time fits the budget: the machine is shared with other work)\n");
    fmt::print("  loading data and generating proxies {:.1f} s; SCORE compiles {:.1f} s (inside the wall time)\n", load_s,
               r.setup_seconds);
    fmt::print("  CELLO geomean speedup {:.2f}x (paper {:.0f}x), energy ratio {:.3f}\n", r.geomean_speedup,
               traffic::kPaperSpeedup, r.geomean_energy_ratio);
    rep["cache_accesses"] = cache_acc;
    rep["cache_seconds"] = cache_s;
    rep["cache_accesses_per_s"] = cache_rate;
    rep["largest_trace"] = {{"run", biggest}, {"accesses", biggest_cache_acc}, {"seconds", biggest_cache_s}};
    rep["wall_seconds"] = r.seconds;
    rep["cpu_seconds"] = cpu_total;
    rep["setup_seconds"] = r.setup_seconds;
    rep["load_seconds"] = load_s;
    rep["budget_seconds"] = *budget;
    rep["within_budget"] = ok;
    rep["geomean_speedup"] = r.geomean_speedup;
    write_json_report(o->json, rep);
  });
}

}  // namespace

CELLO_BENCH("model", add_bench_model);

}  // namespace cello::cli
