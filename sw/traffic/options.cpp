#include "sw/traffic/options.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "sw/common/error.hpp"
#include "sw/common/limits.hpp"
#include "sw/traffic/family.hpp"
#include "sw/workloads/workloads.hpp"

namespace cello::traffic {

uint64_t parse_bytes(const std::string& text, const std::string& what) {
  uint64_t v = 0;
  if (!limits::parse_size(text, v))
    throw Error("", what, fmt::format("'{}' is not a size (e.g. 4MB, 512KB, 4194304) below 16 EB", text));
  if (v == 0) throw Error("", what, fmt::format("'{}' must not be zero", text));
  return v;
}

namespace {

std::string data_dir(const ModelOptions& o) {
  std::string d = o.data.empty() ? find_data_dir() : o.data;
  if (d.empty() || !std::filesystem::exists(d))
    throw Error(d.empty() ? "../shared/data" : d, "", "data folder not found (set CELLO_DATA or pass --data DIR)");
  return d;
}

Dataset named_dataset(const ModelOptions& o, const std::string& name) {
  namespace fs = std::filesystem;
  if (name.rfind("hpcg", 0) == 0) {
    int n = 16;
    if (name.size() > 4) {
      if (name[4] != ':') throw Error("", "--dataset", "expected hpcg or hpcg:N");
      const char* b = name.data() + 5;
      const char* e = name.data() + name.size();
      auto [p, ec] = std::from_chars(b, e, n);
      if (b == e || ec == std::errc::invalid_argument || p != e)
        throw Error("", "--dataset", fmt::format("expected hpcg:N with N a whole number, not '{}'", name));
      if (ec == std::errc::result_out_of_range) n = -1;
    }
    if (n < 2 || n > kMaxHpcgGrid)
      throw Error("", "--dataset", fmt::format("HPCG grid size must be 2..{}", kMaxHpcgGrid));
    return hpcg(n);
  }
  if (name == "shallow_water1") return proxy_matrix("shallow_water1", 81920, 327680, 11);
  if (name == "G2_circuit") return proxy_matrix("G2_circuit", 150102, 726674, 12);
  // The data folder is looked up only for the datasets that live in it, so an
  // unknown name is reported as such even where the folder is absent.
  if (name != "fv1" && name != "nasa4704" && name != "cora" && name != "protein")
    throw Error("", "--dataset",
                fmt::format("unknown dataset '{}' (fv1, nasa4704, shallow_water1, G2_circuit, cora, protein, hpcg:N)",
                            name));
  const fs::path d(data_dir(o));
  if (name == "fv1") return load_matrix_market((d / "suitesparse" / "fv1.mtx").string());
  if (name == "nasa4704") return load_matrix_market((d / "suitesparse" / "nasa4704.mtx.gz").string());
  if (name == "cora") return load_cora((d / "graphs" / "cora").string());
  if (name == "protein") {
    Dataset ds = load_tu_graphs((d / "graphs" / "PROTEINS").string(), "PROTEINS", 64);
    ds.name = "protein";
    return ds;
  }
  throw std::logic_error("dataset list out of step: " + name);
}

}  // namespace

namespace {

// The models walk every word of every dense tensor of the workload, once per
// configuration: a matrix file whose size line implies more than
// kMaxModelWords of them is refused before A is read (docs/hardening.md).
std::string model_size_refusal(const Problem& p, int64_t rows, int64_t entries) {
  workloads::Params prm = workloads::default_params(p.workload);
  prm.m = rows;
  prm.nnz = entries;
  prm.n = p.n;
  prm.o = p.o;
  prm.hw = p.hw;
  prm.iters = p.iters;
  const ir::Program prog = workloads::make_workload(p.workload, prm);
  uint64_t words = 0;
  for (const ir::Tensor& t : prog.tensors) {
    if (t.format != ir::Format::Dense) continue;
    uint64_t n = 1;
    for (ir::RankId r : t.dims) n = limits::mul_sat(n, static_cast<uint64_t>(prog.ranks[static_cast<size_t>(r)].size));
    words = limits::add_sat(words, n);
  }
  if (words <= kMaxModelWords) return "";
  return fmt::format("{} on a {}-row matrix (N={}, {} iteration{}) has {} words of dense tensors for the models to "
                     "walk, more than the {} they take (2^32)",
                     p.workload, rows, p.n, p.iters, p.iters == 1 ? "" : "s",
                     words == UINT64_MAX ? std::string("more than 2^64") : std::to_string(words), kMaxModelWords);
}

}  // namespace

Problem problem_from_options(const ModelOptions& o) {
  Problem p;
  p.workload = o.workload;
  const auto& names = workloads::names();
  if (std::find(names.begin(), names.end(), o.workload) == names.end())
    throw Error("", "--workload", fmt::format("unknown workload '{}' (cg, bicgstab, gcn, resnet)", o.workload));
  if (!o.matrix.empty() && !o.dataset.empty()) throw Error("", "--matrix", "give either --matrix or --dataset");
  // Defaults: CG/BiCGStab N = 16; GCN the data set's features (cora 1433 -> 7,
  // protein 29 -> 2); ResNet 128 channels.
  const bool protein = o.workload == "gcn" && o.dataset == "protein";
  p.n = o.n > 0 ? o.n : o.workload == "gcn" ? (protein ? 29 : 1433) : o.workload == "resnet" ? 128 : 16;
  p.o = o.o > 0 ? o.o : (protein ? 2 : 7);
  p.hw = o.hw;
  if (o.n < 0 || o.o < 0) throw Error("", "--n", "sizes must be positive");
  p.iters = o.iters > 0 ? o.iters : (o.workload == "cg" || o.workload == "bicgstab" ? 10 : 1);
  p.word_bytes = o.word_bytes > 0 ? static_cast<unsigned>(o.word_bytes) : (o.workload == "resnet" ? 2u : 4u);
  if (p.n < 1 || p.o < 1 || p.hw < 1) throw Error("", "--n", "sizes must be positive");
  if (o.workload != "resnet") {
    if (!o.matrix.empty())
      p.dataset = load_matrix_market(o.matrix, [&p](int64_t rows, int64_t, int64_t entries) {
        return model_size_refusal(p, rows, entries);
      });
    else
      p.dataset = named_dataset(o, o.dataset.empty() ? (o.workload == "gcn" ? "cora" : "hpcg:16") : o.dataset);
  } else {
    p.dataset.name = fmt::format("{}x{}x{}", o.hw, o.hw, o.n);
    p.dataset.source = "generated: ResNet basic block";
  }
  if (o.word_bytes != 0 && o.word_bytes != 1 && o.word_bytes != 2 && o.word_bytes != 4 && o.word_bytes != 8)
    throw Error("", "--word-bytes", "word size must be 1, 2, 4 or 8 bytes");
  return p;
}

void apply_chord_options(const ModelOptions& o, ModelParams& p) {
  auto on_off = [](const std::string& v, const char* what, bool& out) {
    if (v.empty()) return;
    if (v != "on" && v != "off") throw Error("", what, fmt::format("expected on or off, got '{}'", v));
    out = v == "on";
  };
  on_off(o.chord_refill, "--chord-refill", p.chord_refill);
  on_off(o.chord_clean, "--chord-clean", p.chord_clean);
  on_off(o.chord_reserve, "--chord-reserve", p.chord_reserve);
  on_off(o.chord_inplace, "--chord-inplace", p.chord_inplace);
  on_off(o.chord_claim, "--chord-claim", p.chord_claim);
  if (o.chord_victim == "distance") p.chord_victim = chord::Victim::Distance;
  else if (o.chord_victim == "uses") p.chord_victim = chord::Victim::Uses;
  else if (!o.chord_victim.empty())
    throw Error("", "--chord-victim", fmt::format("expected distance or uses, got '{}'", o.chord_victim));
}

Study study_from_options(const ModelOptions& o) {
  Study s;
  s.params.sram_bytes = parse_bytes(o.sram, "--sram");
  if (s.params.sram_bytes % (uint64_t(s.params.line_bytes) * s.params.ways) != 0)
    throw Error("", "--sram",
                fmt::format("{} B is not a multiple of {} B (8 ways x 16 B lines)", s.params.sram_bytes,
                            s.params.line_bytes * s.params.ways));
  // The cache and CHORD simulators keep state per 16 B line: about one byte of
  // host memory per byte of modelled SRAM.
  limits::check_memory(s.params.sram_bytes, "", "--sram", fmt::format("modelling {} of SRAM", o.sram));
  s.machine.dram_pj_per_bit = o.pj_per_bit;
  if (!(o.pj_per_bit >= 0) || !std::isfinite(o.pj_per_bit))
    throw Error("", "--pj-per-bit", fmt::format("{} must be a finite number, not negative", o.pj_per_bit));
  if (o.bw.empty()) throw Error("", "--bw", "give at least one bandwidth");
  for (double b : o.bw)
    if (!(b > 0) || !std::isfinite(b))
      throw Error("", "--bw", fmt::format("bandwidth {} GB/s must be a positive finite number", b));
  s.bandwidths_gbs = o.bw;
  if (o.threads < 1 || o.threads > 64) throw Error("", "--threads", "must be 1..64");
  s.threads = o.threads;
  if (!o.configs.empty()) {
    s.configs.clear();
    for (const auto& c : o.configs) {
      MemorySystem x;
      if (!parse_system(c, x))
        throw Error("", "--configs",
                    fmt::format("unknown configuration '{}' (flexagon, flex_lru, flex_brrip, flat, set, prelude, "
                                "cello, ideal, opt)",
                                c));
      s.configs.push_back(x);
    }
  }
  apply_chord_options(o, s.params);
  if (o.paper && o.family) throw Error("", "--family", "give either --paper or --family");
  if (o.paper) {
    s.problems = paper_problems(data_dir(o));
    // OPT records the whole CHORD trace; the paper's largest problems would
    // need gigabytes for it, so it runs there only when asked for.
  } else if (o.family || o.family_small) {
    s.problems = family_problems(o.family_small, o.iters > 0 ? o.iters : 5);
    if (o.configs.empty()) s.configs = family_systems();
  } else {
    s.problems.push_back(problem_from_options(o));
    if (o.configs.empty()) s.configs.push_back(MemorySystem::OPT);
  }
  if (o.sweep || o.paper)
    for (uint64_t mb : {1ull, 16ull})
      if ((mb << 20) != s.params.sram_bytes) s.cello_sram_sweep.push_back(mb << 20);
  for (const auto& p : s.problems) {
    ModelParams mp = s.params;
    if (p.sram_bytes) mp.sram_bytes = p.sram_bytes;
    mp.validate(p.word_bytes);
  }
  return s;
}

}  // namespace cello::traffic
