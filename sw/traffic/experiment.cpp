#include "sw/traffic/experiment.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/score/compile.hpp"
#include "sw/traffic/from_score.hpp"
#include "sw/workloads/workloads.hpp"

namespace cello::traffic {

namespace fs = std::filesystem;

std::string Problem::label() const {
  if (workload == "resnet") return fmt::format("resnet {}x{}x{}", hw, hw, n);
  if (workload == "gcn") return fmt::format("gcn {}", dataset.name);
  std::string l = fmt::format("{} {} N={}", workload, dataset.name, n);
  if (sram_bytes) l += sram_bytes % (1u << 20) ? fmt::format(" {}KB", sram_bytes >> 10) : fmt::format(" {}MB", sram_bytes >> 20);
  return l;
}

const ConfigResult* ProblemResult::find(const std::string& name) const {
  for (const auto& c : configs)
    if (c.name == name) return &c;
  return nullptr;
}

Workload build_workload(const Problem& p, const ModelParams& params, double* compile_seconds,
                        std::vector<int>* class_counts) {
  auto t0 = std::chrono::steady_clock::now();
  workloads::Params wp = workloads::default_params(p.workload);
  if (p.workload != "resnet") {
    if (!p.dataset.pattern) throw Error("", p.workload, "this workload needs a matrix");
    if (p.dataset.pattern->rows != p.dataset.pattern->cols)
      throw Error(p.dataset.source, "", fmt::format("matrix is {} x {}; the workload needs a square matrix",
                                                    p.dataset.pattern->rows, p.dataset.pattern->cols));
    wp.m = static_cast<int64_t>(p.dataset.pattern->rows);
    wp.nnz = static_cast<int64_t>(p.dataset.pattern->nnz());
  }
  wp.n = p.n;
  wp.o = p.o;
  wp.hw = p.hw;
  wp.iters = p.iters;
  ir::Program prog = workloads::make_workload(p.workload, wp);
  score::Target target;
  target.word_bytes = static_cast<int>(p.word_bytes);
  target.chord_words = static_cast<int64_t>(params.sram_bytes / p.word_bytes);
  score::Schedule s = score::compile(std::move(prog), target);
  if (class_counts) *class_counts = score::class_counts(s);
  Workload w = from_schedule(s, p.dataset.pattern, p.word_bytes);
  w.name = p.label();
  if (compile_seconds) *compile_seconds = seconds_since(t0);
  return w;
}

namespace {

double geomean(const std::vector<double>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (double x : v) s += std::log(x);
  return std::exp(s / static_cast<double>(v.size()));
}

struct Job {
  size_t problem;
  MemorySystem config;
  uint64_t sram;
  std::string name;
  double cost;
};

}  // namespace

StudyResult run_study(const Study& s, const Progress& progress) {
  auto t0 = std::chrono::steady_clock::now();
  StudyResult R;
  R.bandwidths_gbs = s.bandwidths_gbs;
  std::vector<Workload> work;
  std::vector<Job> jobs;
  std::vector<MemorySystem> configs = s.configs;
  if (std::find(configs.begin(), configs.end(), MemorySystem::Flexagon) == configs.end())
    configs.insert(configs.begin(), MemorySystem::Flexagon);
  for (size_t i = 0; i < s.problems.size(); ++i) {
    const Problem& p = s.problems[i];
    ProblemResult pr;
    pr.problem = p;
    ModelParams mp = s.params;
    if (p.sram_bytes) mp.sram_bytes = p.sram_bytes;
    work.push_back(build_workload(p, mp, &pr.compile_seconds, &pr.edge_class_counts));
    const Workload& w = work.back();
    if (p.dataset.pattern) {
      pr.rows = p.dataset.pattern->rows;
      pr.nnz = p.dataset.pattern->nnz();
    }
    pr.macs = w.total_macs();
    for (const auto& t : w.tensors) pr.tensor_names.push_back(t.name);
    pr.bound_bytes = algorithmic_minimum_bytes(w, mp);
    double words = 0;
    for (const auto& op : w.ops)
      for (const auto& in : op.in) words += static_cast<double>(w.tensors[static_cast<size_t>(in.tensor)].words());
    for (auto c : configs) {
      const double weight = (c == MemorySystem::FlexLRU || c == MemorySystem::FlexBRRIP)  ? 3.0
                            : (c == MemorySystem::CELLO || c == MemorySystem::PreludeOnly) ? 1.0
                            : c == MemorySystem::OPT                                 ? 1.5
                                                                                : 0.001;
      jobs.push_back({i, c, mp.sram_bytes, to_string(c), words * weight});
    }
    for (uint64_t sram : s.cello_sram_sweep)
      jobs.push_back({i, MemorySystem::CELLO, sram, fmt::format("CELLO@{}MB", sram >> 20), words});
    R.problems.push_back(std::move(pr));
  }
  R.setup_seconds = seconds_since(t0);
  // Largest jobs first keeps both workers busy until the end.
  std::vector<size_t> order(jobs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return jobs[a].cost > jobs[b].cost; });
  std::vector<Traffic> out(jobs.size());
  std::atomic<size_t> next{0}, done{0};
  std::mutex mu;
  std::exception_ptr failure;
  auto worker = [&] {
    while (true) {
      size_t k = next.fetch_add(1);
      if (k >= order.size()) return;
      const Job& j = jobs[order[k]];
      try {
        ModelParams mp = s.params;
        mp.sram_bytes = j.sram;
        out[order[k]] = run_model(work[j.problem], j.config, mp);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!failure) failure = std::current_exception();
        next = order.size();
        return;
      }
      size_t d = ++done;
      if (progress) {
        std::lock_guard<std::mutex> lock(mu);
        progress(d, jobs.size(),
                 fmt::format("{} / {} ({:.2f} s)", s.problems[j.problem].label(), j.name, out[order[k]].seconds));
      }
    }
  };
  const int nt = std::max(1, std::min<int>(s.threads, static_cast<int>(jobs.size())));
  std::vector<std::thread> pool;
  for (int t = 1; t < nt; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);

  // Assemble results in study order, then roofline and relative figures.
  for (size_t k = 0; k < jobs.size(); ++k) {
    ConfigResult c;
    c.name = jobs[k].name;
    c.traffic = out[k];
    R.problems[jobs[k].problem].configs.push_back(std::move(c));
  }
  std::vector<double> speedups, all_energy;
  std::vector<std::string> wl_order;
  std::vector<std::vector<double>> wl_energy, wl_speedup;
  for (auto& pr : R.problems) {
    const ConfigResult* flex = pr.find(to_string(MemorySystem::Flexagon));
    for (auto& c : pr.configs) {
      for (double bw : s.bandwidths_gbs) {
        perf::Machine m = s.machine;
        m.bandwidth_bytes_per_s = bw * 1e9;
        m.sram_bytes = c.traffic.sram_bytes;
        m.word_bytes = pr.problem.word_bytes;
        c.perf.push_back(perf::roofline(pr.macs, c.traffic.total_bytes(), m));
      }
    }
    for (auto& c : pr.configs) {
      for (size_t b = 0; b < s.bandwidths_gbs.size(); ++b)
        c.speedup.push_back(c.perf[b].time_s > 0 ? flex->perf[b].time_s / c.perf[b].time_s : 0);
      c.energy_rel = flex->traffic.total_bytes()
                         ? static_cast<double>(c.traffic.total_bytes()) / static_cast<double>(flex->traffic.total_bytes())
                         : 0;
    }
    if (const ConfigResult* ce = pr.find(to_string(MemorySystem::CELLO))) {
      for (double x : ce->speedup) speedups.push_back(x);
      all_energy.push_back(ce->energy_rel);
      auto it = std::find(wl_order.begin(), wl_order.end(), pr.problem.workload);
      if (it == wl_order.end()) {
        wl_order.push_back(pr.problem.workload);
        wl_energy.push_back({});
        wl_speedup.push_back({});
        it = wl_order.end() - 1;
      }
      const size_t wi = static_cast<size_t>(it - wl_order.begin());
      wl_energy[wi].push_back(ce->energy_rel);
      for (double x : ce->speedup) wl_speedup[wi].push_back(x);
    }
  }
  R.geomean_speedup = geomean(speedups);
  R.geomean_energy_ratio = geomean(all_energy);
  for (size_t i = 0; i < wl_order.size(); ++i) {
    R.energy_by_workload.push_back({wl_order[i], geomean(wl_energy[i])});
    R.speedup_by_workload.push_back({wl_order[i], geomean(wl_speedup[i])});
  }
  R.seconds = seconds_since(t0);
  return R;
}

std::vector<Problem> paper_problems(const std::string& data_dir) {
  if (data_dir.empty() || !fs::exists(data_dir))
    throw Error(data_dir.empty() ? "../shared/data" : data_dir, "",
                "data folder not found (set CELLO_DATA or pass --data DIR)");
  const fs::path d(data_dir);
  std::vector<Dataset> cg_sets;
  cg_sets.push_back(load_matrix_market((d / "suitesparse" / "fv1.mtx").string()));
  cg_sets.push_back(proxy_matrix("shallow_water1", 81920, 327680, 11));
  cg_sets.push_back(proxy_matrix("G2_circuit", 150102, 726674, 12));
  cg_sets.push_back(load_matrix_market((d / "suitesparse" / "nasa4704.mtx.gz").string()));
  std::vector<Problem> out;
  for (const auto& ds : cg_sets)
    for (int n : {1, 16}) out.push_back({.workload = "cg", .dataset = ds, .n = n, .iters = 10});
  out.push_back(
      {.workload = "gcn", .dataset = load_cora((d / "graphs" / "cora").string()), .n = 1433, .o = 7, .iters = 1});
  Dataset protein = load_tu_graphs((d / "graphs" / "PROTEINS").string(), "PROTEINS", 64);
  protein.name = "protein";
  out.push_back({.workload = "gcn", .dataset = protein, .n = 29, .o = 2, .iters = 1});
  Dataset block;
  block.name = "conv3_x block 1";
  block.source = "generated: ResNet basic block, 28x28x128";
  out.push_back({.workload = "resnet", .dataset = block, .n = 128, .hw = 28, .iters = 1, .word_bytes = 2});
  return out;
}

std::string find_data_dir() {
  auto ok = [](const fs::path& p) {
    std::error_code ec;
    return fs::exists(p / "suitesparse", ec) || fs::exists(p / "graphs", ec);
  };
  if (const char* env = std::getenv("CELLO_DATA"); env && *env) return env;
  std::vector<fs::path> roots{fs::current_path()};
  std::error_code ec;
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) roots.push_back(exe.parent_path());
  for (auto r : roots)
    for (int up = 0; up < 6 && !r.empty(); ++up) {
      for (auto cand : {r / "shared" / "data", r / ".." / "shared" / "data"})
        if (ok(cand)) return fs::weakly_canonical(cand).string();
      r = r.parent_path();
    }
  return "";
}

std::string data_matrix(const std::string& given, const std::string& name) {
  std::string matrix = given;
  if (matrix.empty()) {
    const std::string dir = find_data_dir();
    matrix = (fs::path(dir.empty() ? "../shared/data" : dir) / "suitesparse" / name).string();
  }
  std::error_code ec;
  if (!fs::exists(matrix, ec)) throw Error(matrix, "", "matrix not found (give --matrix FILE)");
  return matrix;
}

}  // namespace cello::traffic
