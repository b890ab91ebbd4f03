// Runs workloads x datasets through SCORE and every traffic model, then turns
// traffic into roofline throughput and off-chip energy. `cello model` and
// `cello bench model` are thin front ends over this.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sw/perf/roofline.hpp"
#include "sw/traffic/datasets.hpp"
#include "sw/traffic/models.hpp"

namespace cello::traffic {

struct Problem {
  std::string workload = "cg";  // cg | bicgstab | gcn | resnet
  Dataset dataset;              // sparse matrix / graph (unused by resnet)
  int n = 16;                   // block width (CG, BiCGStab); input features (GCN); channels (ResNet)
  int o = 7;                    // GCN output features
  int hw = 28;                  // ResNet feature map height = width
  int iters = 10;               // CG/BiCGStab iterations, GCN layers, ResNet blocks
  unsigned word_bytes = 4;
  uint64_t sram_bytes = 0;      // 0: the study's SRAM; otherwise this problem's own
  std::string label() const;    // "cg fv1 N=16" (", 1MB" when sram_bytes is set)
};

struct Study {
  std::vector<Problem> problems;
  std::vector<MemorySystem> configs = all_systems();
  ModelParams params;                       // SRAM (4 MB), line, ways, CHORD table
  std::vector<uint64_t> cello_sram_sweep;   // extra CELLO runs at these SRAM sizes
  std::vector<double> bandwidths_gbs{250, 1000};
  perf::Machine machine;                    // MACs, clock, pJ/bit (bandwidth set per run)
  int threads = 2;
};

struct ConfigResult {
  std::string name;  // "CELLO", "CELLO@16MB", ...
  Traffic traffic;
  std::vector<perf::Perf> perf;  // per bandwidth
  std::vector<double> speedup;   // per bandwidth, vs Flexagon-like (time ratio)
  double energy_rel = 0;         // off-chip energy / Flexagon-like's
};

struct ProblemResult {
  Problem problem;
  uint64_t rows = 0, nnz = 0;
  uint64_t macs = 0;
  uint64_t bound_bytes = 0;  // algorithmic minimum of the DAG (compulsory)
  double compile_seconds = 0;
  std::vector<int> edge_class_counts;  // SCORE, in traffic::EdgeClass order
  std::vector<std::string> tensor_names;  // the workload's tensors, in Traffic::tensor_*_bytes order
  std::vector<ConfigResult> configs;
  const ConfigResult* find(const std::string& name) const;
};

struct StudyResult {
  std::vector<ProblemResult> problems;
  std::vector<double> bandwidths_gbs;
  double seconds = 0;        // wall time of run_study
  double setup_seconds = 0;  // SCORE compiles and workload views (serial)
  // Geomeans of CELLO vs Flexagon-like.
  double geomean_speedup = 0;                           // all problems x bandwidths
  std::vector<std::pair<std::string, double>> energy_by_workload;   // geomean energy ratio per workload
  std::vector<std::pair<std::string, double>> speedup_by_workload;  // geomean speedup per workload
  double geomean_energy_ratio = 0;
};

// Progress callback: (jobs done, jobs total, what just finished).
using Progress = std::function<void(size_t, size_t, const std::string&)>;

// Builds the traffic view of one problem (workload IR -> SCORE -> Workload).
Workload build_workload(const Problem& p, const ModelParams& params, double* compile_seconds = nullptr,
                        std::vector<int>* class_counts = nullptr);

StudyResult run_study(const Study& s, const Progress& progress = {});

// CELLO Table VI (+ nasa4704 from GOGETA) with N in {1, 16}, 10 iterations.
// data_dir holds suitesparse/ and graphs/; shallow_water1 and G2_circuit are
// generated proxies. Throws cello::Error naming a missing file.
std::vector<Problem> paper_problems(const std::string& data_dir);

// Locates ../shared/data: $CELLO_DATA, then ../shared/data and ../../shared/data
// from the working directory and from the executable. "" if none exists.
std::string find_data_dir();

// `given` when not empty, else suitesparse/<name> in the data folder; throws
// cello::Error when the file does not exist (benchmarks' default matrix).
std::string data_matrix(const std::string& given, const std::string& name);

}  // namespace cello::traffic
