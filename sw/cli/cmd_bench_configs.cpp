// `cello bench configs`: `cello sim` on top configs nobody chose. Each run
// draws a hardware config from the documented ranges of the `top` section and
// its MAC array and CHORD (docs/config.md), and a small workload (CG, BiCGStab
// or GCN on generated inputs, with random DRAM latency), builds the simulator
// for the config's RTL at run time and checks the run against the executor as
// `cello sim` does. Prints, per config, its cycles against the executor's
// estimate and the roofline (the default design's run, first, is the
// baseline) and the wall time (mostly Verilator's build); fails if any run
// does. Seeded: `--seed S` replays a sweep.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include "gen/hw_config.hpp"
#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/cli/output_files.hpp"
#include "sw/cli/top_sim.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"

namespace cello::cli {

namespace {

struct BenchConfigsArgs {
  int count = 6;
  uint64_t seed = 1;
  std::string cache, json;
};

template <class T>
T one_of(std::mt19937_64& rng, std::initializer_list<T> xs) {
  std::uniform_int_distribution<size_t> d(0, xs.size() - 1);
  return *(xs.begin() + static_cast<std::ptrdiff_t>(d(rng)));
}

int in_range(std::mt19937_64& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

// The default design with its array, CHORD and top drawn at random.
nlohmann::json random_config(std::mt19937_64& rng, int index) {
  nlohmann::json j = gen::default_hw_config_json();
  j["name"] = fmt::format("cfg{}", index);
  auto& mac = j["mac_arrays"][0];
  mac["rows"] = one_of(rng, {1, 2, 4, 8});
  mac["cols"] = one_of(rng, {1, 2, 4, 8});
  mac["fma_stages"] = in_range(rng, 1, 6);
  mac["rf_rows"] = one_of(rng, {1, 2, 3, 4, 8, 16});
  auto& chord = j["chords"][0];
  chord["depth"] = one_of(rng, {4096, 32768});
  chord["entries"] = one_of(rng, {16, 64});
  chord["extents"] = one_of(rng, {1, 4});
  auto& top = j["top"];
  const int granule = one_of(rng, {4, 8, 16, 32, 64, 128, 256});
  top["granule_bytes"] = granule;
  // The top's DRAM port moves at most one granule per cycle (top_config.hpp).
  top["dram_bytes_per_cycle"] = std::min(granule, one_of(rng, {4, 8, 16, 32, 64}));
  top["dram_latency"] = one_of(rng, {1, 7, 100, 250});
  top["load_window"] = in_range(rng, 1, 32);
  top["store_window"] = in_range(rng, 1, 32);
  top["gather_words"] = one_of(rng, {64, 256, 4096, 131072});
  top["memory_mb"] = 64;
  if (one_of(rng, {false, true})) top.erase("chord");
  return j;
}

stream::ProblemSpec random_problem(std::mt19937_64& rng) {
  stream::ProblemSpec p;
  p.workload = one_of(rng, {"cg", "cg", "bicgstab", "gcn"});
  p.grid = in_range(rng, 2, 6);
  p.n = one_of(rng, {1, 2, 3, 4, 5, 8, 13, 16});
  p.iters = in_range(rng, 1, 3);
  p.seed = rng() % 1000 + 1;
  return p;
}

// The config as the generator reads it (defaults filled in); throws cello::Error
// naming the key if a draw breaks a config rule.
std::string describe(const nlohmann::json& j, const std::string& path) {
  const gen::HwConfig c = gen::parse_hw_config(j, path);
  const gen::TopConfig& t = *c.top;
  const gen::MacArrayConfig& m = c.mac_arrays.front();
  return fmt::format("{}x{} L{} rf{} {} g{} bw{} lat{} win{}/{} gather{}", m.rows, m.cols, m.fma_stages, m.rf_rows,
                     t.chord.empty() ? "no-chord" : "chord", t.granule_bytes, t.dram_bytes_per_cycle, t.dram_latency,
                     t.load_window, t.store_window, t.gather_words);
}

nlohmann::json run_config(const BenchConfigsArgs& a, const std::string& path, const stream::ProblemSpec& p,
                          std::mt19937_64& rng) {
  SimOptions o;
  o.config = path;
  o.cache = a.cache;
  o.problem = p;
  o.seed = rng() % 1000 + 1;
  o.latency_min = static_cast<uint64_t>(in_range(rng, 1, 50));
  o.latency_max = static_cast<uint64_t>(in_range(rng, 51, 300));
  o.progress = false;
  const auto t0 = std::chrono::steady_clock::now();
  nlohmann::json row = {{"config", path},
                        {"workload", p.workload},
                        {"grid", p.grid},
                        {"n", p.n},
                        {"iters", p.iters},
                        {"seed", o.seed},
                        {"dram_latency", fmt::format("{}:{}", o.latency_min, o.latency_max)}};
  try {
    const SimRun r = run_sim(o);
    row["pass"] = r.pass;
    row["cycles"] = r.report.value("cycles", uint64_t{0});
    row["executor_cycles"] = r.report.value("executor_cycles", uint64_t{0});
    row["roofline_cycles"] = r.report.value("roofline_cycles", uint64_t{0});
  } catch (const Error& e) {
    row["pass"] = false;
    row["error"] = e.what();
  }
  row["wall_seconds"] = seconds_since(t0);
  return row;
}

double ratio(const nlohmann::json& row, const char* over) {
  return static_cast<double>(row.value("cycles", uint64_t{0})) /
         static_cast<double>(std::max<uint64_t>(1, row.value(over, uint64_t{0})));
}

void run_bench(const BenchConfigsArgs& a) {
  std::mt19937_64 rng(a.seed);
  const std::string cache = a.cache.empty() ? default_sim_cache() : a.cache;
  nlohmann::json rows = nlohmann::json::array();
  std::vector<std::string> what;
  // Run 0 is the default design on the first drawn workload: the baseline.
  for (int i = 0; i <= a.count; ++i) {
    const nlohmann::json cfg = i == 0 ? gen::default_hw_config_json() : random_config(rng, i);
    const std::string path = (std::filesystem::path(cache) / fmt::format("bench-configs-{}-{}.json", a.seed, i)).string();
    write_output_file(path, cfg.dump(2) + "\n");
    const stream::ProblemSpec p = random_problem(rng);
    what.push_back(describe(cfg, path));
    fmt::print("cello bench configs: run {} of {}: {}\n", i, a.count, what.back());
    rows.push_back(run_config(a, path, p, rng));
  }
  fmt::print("\ncello bench configs: seed {}, {} drawn configs and the default design (run 0, the baseline)\n", a.seed,
             a.count);
  int passed = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    passed += r["pass"].get<bool>();
    const std::string wl = r["workload"].get<std::string>();
    const std::string input = wl == "gcn" ? "graph" : fmt::format("HPCG {}^3", r["grid"].get<int>());
    fmt::print("  {:>2} {:<62} {:<8} {:<9} N={:<2} it={} {:>9} cycles {:>5.2f}x executor {:>6.2f}x roofline {:>6.1f} s  {}\n",
               i, what[i], wl, input, r["n"].get<int>(), r["iters"].get<int>(), r.value("cycles", uint64_t{0}),
               ratio(r, "executor_cycles"),
               ratio(r, "roofline_cycles"), r["wall_seconds"].get<double>(),
               r["pass"].get<bool>() ? "PASS" : "FAIL " + r.value("error", std::string()));
  }
  fmt::print("  {} of {} runs PASS\n", passed, rows.size());
  write_json_report(a.json, {{"bench", "configs"}, {"seed", a.seed}, {"runs", rows}, {"passed", passed}});
  if (passed != static_cast<int>(rows.size())) throw CLI::RuntimeError(1);
}

void add_bench_configs(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("configs", "cello sim on random top configs and workloads, against the executor");
  auto a = std::make_shared<BenchConfigsArgs>();
  cmd->add_option("--count", a->count, "random configs (each builds its simulator: about 1 to 3 minutes)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--seed", a->seed, "seed of the draws (replays a sweep)")->capture_default_str();
  cmd->add_option("--cache", a->cache, "simulator cache folder (default: ~/.cache/cello)");
  add_json_option(cmd, a->json);
  cmd->callback([a] { run_bench(*a); });
}

}  // namespace

CELLO_BENCH("configs", add_bench_configs);

}  // namespace cello::cli
