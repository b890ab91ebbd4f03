// `cello bench scale`: does the generated accelerator scale with its config?
// CG on the RTL of tops with 2x2, 4x4, 8x8 and 16x16 MAC arrays, the DRAM
// bandwidth raised with the array (granule = bandwidth per cycle, CHORD's
// word = the granule, its capacity kept), and on the default top with matrices
// nobody tuned for (a 3D 7-point stencil, an anisotropic 2D stencil, a random
// banded SPD matrix, generated here) at fixed and at random DRAM latency. Each
// point prints its cycles against the roofline max(MACs / (R*C), DRAM bytes /
// bandwidth) beside its target, the PEs' use per record kind, cycles per MAC,
// simulation speed and the simulator's build time, all measured in this run.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "gen/hw_config.hpp"
#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/cli/output_files.hpp"
#include "sw/cli/top_sim.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/mtx/generated.hpp"
#include "sw/traffic/experiment.hpp"

namespace cello::cli {

namespace {

namespace fs = std::filesystem;

struct BenchScaleArgs {
  std::string set = "all", matrix, cache, json;
  std::vector<std::string> arrays;  // only these shapes ("8x8"); empty: all
  int iters = 10;
  uint64_t max_cycles = 20000000000ULL;
};

// One point: an array shape and a DRAM port, a matrix, a block width, a
// latency, and the roofline ratio it should reach.
struct Point {
  std::string set;  // "scale" (array sizes) or "unseen" (matrices and latencies)
  int rows, cols, granule;
  std::string matrix;  // "fv1", "hpcg16", "stencil7", "aniso2d", "banded"
  int n;
  uint64_t lat_min, lat_max;  // 0: the config's
  double target;
};

const std::vector<Point>& points() {
  static const std::vector<Point> p = {
      {"scale", 2, 2, 16, "fv1", 8, 0, 0, 1.15},
      {"scale", 4, 4, 16, "fv1", 8, 0, 0, 1.15},
      {"scale", 8, 8, 64, "fv1", 8, 0, 0, 1.25},
      {"scale", 8, 8, 64, "fv1", 16, 0, 0, 1.25},
      {"scale", 16, 16, 256, "hpcg16", 16, 0, 0, 1.5},
      {"unseen", 4, 4, 16, "stencil7", 8, 0, 0, 1.15},
      {"unseen", 4, 4, 16, "aniso2d", 8, 0, 0, 1.15},
      {"unseen", 4, 4, 16, "banded", 8, 0, 0, 1.15},
      {"unseen", 4, 4, 16, "fv1", 8, 50, 200, 1.15},
      {"unseen", 4, 4, 16, "stencil7", 8, 50, 200, 1.15},
      {"unseen", 4, 4, 16, "banded", 8, 50, 200, 1.15},
  };
  return p;
}

// The default design with an R x C array, a DRAM port of `granule` bytes per
// cycle, and CHORD's word widened to the granule at the same capacity.
nlohmann::json scaled_config(const Point& p) {
  nlohmann::json j = gen::default_hw_config_json();
  // The default top itself (so its prebuilt simulator serves).
  if (p.rows == j["mac_arrays"][0]["rows"] && p.cols == j["mac_arrays"][0]["cols"] && p.granule == j["top"]["granule_bytes"] &&
      p.granule == j["top"]["dram_bytes_per_cycle"])
    return j;
  j["name"] = fmt::format("scale_{}x{}_g{}", p.rows, p.cols, p.granule);
  j["mac_arrays"][0]["rows"] = p.rows;
  j["mac_arrays"][0]["cols"] = p.cols;
  auto& chord = j["chords"][0];
  const int64_t bits = int64_t{chord["depth"].get<int>()} * chord["word_width"].get<int>();
  chord["word_width"] = 8 * p.granule;
  chord["depth"] = bits / (8 * p.granule);
  j["top"]["granule_bytes"] = p.granule;
  j["top"]["dram_bytes_per_cycle"] = p.granule;
  return j;
}

// The matrix file of a point: fv1 from the data folder (or --matrix), the
// generated ones written into the cache by this run (a file left by an
// earlier generator is never reused); "" for the HPCG 16^3 problem.
std::string matrix_file(const BenchScaleArgs& a, const std::string& which, const fs::path& dir) {
  if (which == "fv1") return traffic::data_matrix(a.matrix, "fv1.mtx");
  if (which == "hpcg16") return "";
  const fs::path file = dir / ("bench-scale-" + which + ".mtx");
  const mtx::Csr m = which == "stencil7" ? mtx::stencil7_3d(25)               // 15,625 rows
                     : which == "aniso2d" ? mtx::anisotropic_2d(121, 121, 0.01)  // 14,641 rows
                                          : mtx::banded_spd(20000, 8, 7);        // 20,000 rows
  write_output_file(file.string(), mtx::matrix_market_coordinate(m));
  return file.string();
}

std::string array_label(const Point& p) { return fmt::format("{}x{}", p.rows, p.cols); }

nlohmann::json run_point(const BenchScaleArgs& a, const Point& p, const fs::path& dir) {
  const nlohmann::json cfg = scaled_config(p);
  const fs::path cfg_file = dir / (cfg["name"].get<std::string>() + ".json");
  write_output_file(cfg_file.string(), cfg.dump(2) + "\n");
  SimOptions o;
  o.config = cfg_file.string();
  o.cache = a.cache;
  o.max_cycles = a.max_cycles;
  o.latency_min = p.lat_min;
  o.latency_max = p.lat_max;
  o.progress = false;
  o.problem.workload = "cg";
  o.problem.matrix = matrix_file(a, p.matrix, dir);
  o.problem.n = p.n;
  o.problem.iters = a.iters;
  const auto t0 = std::chrono::steady_clock::now();
  const SimRun r = run_sim(o);
  const double wall = seconds_since(t0);
  const auto& j = r.report;
  const auto cycles = j.value("cycles", uint64_t{0}), roof = j.value("roofline_cycles", uint64_t{0}),
             macs = j.value("macs", uint64_t{0});
  const double pes = static_cast<double>(p.rows) * p.cols, seconds = j.value("seconds", 0.0);
  nlohmann::json out = {{"array", array_label(p)},
                        {"dram_bytes_per_cycle", p.granule},
                        {"matrix", p.matrix},
                        {"rows", j.value("rows", int64_t{0})},
                        {"n", p.n},
                        {"latency", p.lat_min ? fmt::format("{}:{}", p.lat_min, p.lat_max) : std::string("config")},
                        {"cycles", cycles},
                        {"roofline_cycles", roof},
                        {"cycles_over_roofline", ratio(static_cast<double>(cycles), static_cast<double>(roof))},
                        {"target", p.target},
                        {"pe_use", ratio(static_cast<double>(macs), static_cast<double>(cycles) * pes)},
                        {"cycles_per_mac", ratio(static_cast<double>(cycles), static_cast<double>(macs))},
                        {"cycles_per_second", static_cast<double>(cycles) / std::max(seconds, 1e-9)},
                        {"simulator", j.value("simulator", std::string())},
                        {"setup_seconds", std::max(0.0, wall - seconds)},
                        {"pass", r.pass}};
  nlohmann::json use = nlohmann::json::object();
  if (j.contains("cycles_by_kind"))
    for (const auto& [kind, c] : j["cycles_by_kind"].items())
      if (c.value("macs", uint64_t{0}) > 0)
        use[kind] = ratio(static_cast<double>(c["macs"].get<uint64_t>()), static_cast<double>(c["rtl"].get<uint64_t>()) * pes);
  out["pe_use_by_kind"] = use;
  return out;
}

void print_row(const nlohmann::json& r) {
  const double ratio = r["cycles_over_roofline"];
  std::string kinds;
  for (const auto& [kind, u] : r["pe_use_by_kind"].items()) kinds += fmt::format(" {} {:.0f}%", kind, 100.0 * u.get<double>());
  fmt::print("  {:>5} {:>4} B/c  {:<8} {:>6} rows N={:<2} lat {:<7} {:>12} cycles {:>6.2f}x roofline (target <= {:.2f}x {})  "
             "PE use {:5.1f}% ({} ) {:.3f} cycles/MAC  {:.3g} cycles/s  setup {:.0f} s ({})  {}\n",
             r["array"].get<std::string>(), r["dram_bytes_per_cycle"].get<int>(), r["matrix"].get<std::string>(),
             r["rows"].get<int64_t>(), r["n"].get<int>(), r["latency"].get<std::string>(), r["cycles"].get<uint64_t>(),
             ratio, r["target"].get<double>(), ratio <= r["target"].get<double>() ? "met" : "NOT met",
             100.0 * r["pe_use"].get<double>(), kinds, r["cycles_per_mac"].get<double>(),
             r["cycles_per_second"].get<double>(), r["setup_seconds"].get<double>(), r["simulator"].get<std::string>(),
             r["pass"].get<bool>() ? "PASS" : "FAIL");
}

void run_bench(const BenchScaleArgs& a) {
  const fs::path dir = fs::path(a.cache.empty() ? default_sim_cache() : a.cache) / "bench-scale";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(dir.string(), "--cache", "cannot create: " + ec.message());
  nlohmann::json rows = nlohmann::json::array(), failures = nlohmann::json::array();
  bool all_pass = true;
  int met = 0, total = 0;
  for (const Point& p : points()) {
    if (a.set != "all" && a.set != p.set) continue;
    if (!a.arrays.empty() &&
        std::find(a.arrays.begin(), a.arrays.end(), array_label(p)) == a.arrays.end())
      continue;
    fmt::print(stderr, "cello bench scale: {} at {} B/cycle, CG on {} N={} ...\n", array_label(p), p.granule, p.matrix, p.n);
    ++total;
    try {
      rows.push_back(run_point(a, p, dir));
    } catch (const Error& e) {  // one point that cannot run is reported, and the rest still run
      fmt::print(stderr, "cello bench scale: {}: {}\n", array_label(p), e.what());
      failures.push_back({{"array", array_label(p)}, {"matrix", p.matrix}, {"n", p.n},
                          {"error", e.what()}});
      all_pass = false;
      continue;
    }
    all_pass = all_pass && rows.back()["pass"].get<bool>();
    met += rows.back()["cycles_over_roofline"].get<double>() <= p.target ? 1 : 0;
  }
  fmt::print("cello bench scale: CG, {} iteration{}; roofline = max(MACs / (R*C), DRAM bytes / bandwidth); "
             "DRAM granule = bandwidth per cycle\n",
             a.iters, a.iters == 1 ? "" : "s");
  for (const auto& r : rows) print_row(r);
  fmt::print("  PE use by kind: the kind's MACs over its records' cycles x R*C; a pipelined GRAM's products run during its\n"
             "  producer's record, so the GRAM kind can pass 100% and its producer's kind reads low\n");
  for (const auto& f : failures)
    fmt::print("  {:>5} {:<8} N={:<2} did not run: {}\n", f["array"].get<std::string>(), f["matrix"].get<std::string>(),
               f["n"].get<int>(), f["error"].get<std::string>());
  fmt::print("  targets met: {} of {}\n", met, total);
  write_json_report(a.json, {{"bench", "scale"}, {"iters", a.iters}, {"points", rows}, {"failures", failures},
                             {"targets_met", met}, {"points_run", total}});
  if (!all_pass) throw CLI::RuntimeError(1);
}

void add_bench_scale(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("scale", "CG on tops of growing array and bandwidth, and on unseen matrices: cycles vs roofline");
  auto a = std::make_shared<BenchScaleArgs>();
  cmd->add_option("--set", a->set, "which points: scale (array sizes), unseen (matrices, random latency), all")
      ->capture_default_str()
      ->check(CLI::IsMember({"all", "scale", "unseen"}));
  cmd->add_option("--array", a->arrays, "run only the points of these array shapes (RxC, e.g. 16x16; repeatable)")
      ->check(CLI::IsMember({"2x2", "4x4", "8x8", "16x16"}));
  cmd->add_option("--matrix", a->matrix, "fv1's Matrix Market file (default: from the data folder)");
  add_sim_bench_options(cmd, a->iters, a->max_cycles, a->cache, a->json);
  cmd->callback([a] { run_bench(*a); });
}

}  // namespace

CELLO_BENCH("scale", add_bench_scale);

}  // namespace cello::cli
