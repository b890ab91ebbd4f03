// The settings of `cello model` as plain values, and how they become a Study.
// (The command line wiring lives in sw/cli/cmd_model.cpp.)
#pragma once

#include <string>
#include <vector>

#include "sw/traffic/experiment.hpp"

namespace cello::traffic {

struct ModelOptions {
  std::string workload = "cg";
  std::string matrix;           // Matrix Market file
  std::string dataset;          // fv1, nasa4704, shallow_water1, G2_circuit, cora, protein, hpcg:N
  int n = 0, o = 0, hw = 28;   // 0: the workload's / dataset's default
  int iters = -1;               // -1: 10 for CG/BiCGStab, 1 otherwise
  int word_bytes = 0;           // 0: 2 for ResNet, 4 otherwise
  std::string sram = "4MB";
  bool sweep = false;           // also CELLO at 1 MB and 16 MB
  std::vector<double> bw{250, 1000};
  double pj_per_bit = 4.0;
  std::vector<std::string> configs;  // empty = all
  int threads = 2;
  bool paper = false;
  bool family = false;          // the generated policy family (traffic/family.hpp)
  bool family_small = false;    // only its smallest problems
  std::string chord_victim;     // "", "distance" or "uses" (CELLO's CHORD; "" = default)
  std::string chord_refill;     // "", "on" or "off"
  std::string chord_clean;      // "", "on" or "off"
  std::string chord_reserve;    // "", "on" or "off"
  std::string chord_inplace;    // "", "on" or "off"
  std::string chord_claim;      // "", "on" or "off"
  bool bound = false;
  bool tensors = false;         // print the DRAM bytes per tensor
  std::string data;             // data folder; "" = find_data_dir()
  std::string out = "model_out";
  std::string json, csv, svg;
};

// Largest hpcg:N grid. N = 64 (262144 rows) models in about a minute on two
// cores; N = 100 took over two minutes for its first configuration alone and
// N = 200 far longer, with nothing to show meanwhile.
constexpr int kMaxHpcgGrid = 64;
// Words of dense tensors a workload on a --matrix file may give the models to
// walk; a size line that implies more is refused before the matrix is read.
constexpr uint64_t kMaxModelWords = uint64_t{1} << 32;

// "4MB", "512KB", "1MiB", "4194304" -> bytes. Throws cello::Error.
uint64_t parse_bytes(const std::string& text, const std::string& what);

// The single problem described by the options (matrix / dataset / generated).
Problem problem_from_options(const ModelOptions& o);
// CELLO's CHORD policy options (--chord-victim, -refill, -clean, -reserve) into
// p; an empty option keeps p's value. Throws cello::Error.
void apply_chord_options(const ModelOptions& o, ModelParams& p);
// The whole study: --paper set or the single problem, with machine settings.
Study study_from_options(const ModelOptions& o);

}  // namespace cello::traffic
