// `cello model`: DRAM traffic, roofline speedup and off-chip energy of CELLO
// against its baselines (CELLO Table IV), and Orojenesis-style bounds.
//   cello model [--workload cg] [--matrix F.mtx | --dataset NAME] [--n 16] ...
//   cello model --paper            CELLO Table VI set, N in {1,16}, 250/1000 GB/s
//   cello model --bound [--einsum SPEC]... [--chain M,K0,N0,N1...]...
// See docs/model.md.
#include <fmt/core.h>

#include <filesystem>

#include "sw/bound/from_ir.hpp"
#include "sw/bound/ski_slope.hpp"
#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/cli/output_files.hpp"
#include "sw/common/error.hpp"
#include "sw/traffic/family.hpp"
#include "sw/traffic/options.hpp"
#include "sw/traffic/report.hpp"
#include "sw/workloads/workloads.hpp"

namespace cello::cli {

namespace {

using traffic::ModelOptions;

struct BoundArgs {
  std::vector<std::string> einsums, chains;
};

void run_bound(const ModelOptions& o, const BoundArgs& b) {
  using namespace bound;
  std::vector<Series> series;
  std::vector<Einsum> es;
  std::vector<GemmChain> chains;
  for (const auto& s : b.einsums) es.push_back(Einsum::parse(s));
  for (const auto& s : b.chains) chains.push_back(GemmChain::parse(s));
  std::string svg = o.svg.empty() ? (std::filesystem::path(o.out) / "bound.svg").string() : o.svg;
  check_output_path(svg, o.svg.empty() ? "--out" : "--svg");
  traffic::Problem prob = traffic::problem_from_options(o);
  if (es.empty() && chains.empty()) {
    // Defaults: the workload's distinct dense contractions, and two chained
    // skewed GEMMs of its shape (M x N times N x N, twice).
    workloads::Params wp = workloads::default_params(prob.workload);
    if (prob.dataset.pattern) {
      wp.m = static_cast<int64_t>(prob.dataset.pattern->rows);
      wp.nnz = static_cast<int64_t>(prob.dataset.pattern->nnz());
    }
    wp.n = prob.n;
    wp.o = prob.o;
    wp.hw = prob.hw;
    wp.iters = 1;
    auto found = dense_einsums(workloads::make_workload(prob.workload, wp));
    for (size_t i = 0; i < found.size() && i < 4; ++i) es.push_back(found[i]);
    if (prob.workload != "resnet" && wp.m > 0) {
      GemmChain c;
      c.m = static_cast<uint64_t>(wp.m);
      c.k0 = static_cast<uint64_t>(prob.n);
      c.n = {static_cast<uint64_t>(prob.n), static_cast<uint64_t>(prob.n)};
      chains.push_back(c);
    }
  }
  if (es.empty() && chains.empty())
    throw Error("", "--bound", fmt::format("workload {} has no dense contraction to bound; give --einsum or --chain",
                                           prob.workload));
  fmt::print(stderr, "cello model --bound: {} einsum(s), {} chain(s), {} B words\n", es.size(), chains.size(),
             prob.word_bytes);
  for (const auto& e : es) {
    SearchStats st;
    auto f = ski_slope(e, &st);
    fmt::print(stderr, "  einsum {}: {} mappings, {} Pareto points, minimum {} words reached at {} words of buffer\n",
               e.to_string(), st.mappings, f.size(), f.back().accesses, f.back().buffer);
    series.push_back({"einsum " + e.name, std::move(f)});
  }
  for (const auto& c : chains) {
    std::string name = fmt::format("chain {},{}", c.m, c.k0);
    for (auto v : c.n) name += fmt::format(",{}", v);
    auto fused = fused_chain(c);
    auto unfused = unfused_chain(c);
    fmt::print(stderr, "  {}: fused minimum {} words at {} words of buffer; unfused minimum {} words\n", name,
               fused.back().accesses, fused.back().buffer, unfused.back().accesses);
    series.push_back({name + " fused", std::move(fused)});
    series.push_back({name + " unfused", std::move(unfused)});
  }
  fmt::print("{}", to_csv(series, prob.word_bytes));
  write_output_file(svg, bound::to_svg(series, prob.word_bytes, "Ski-slope bounds (Orojenesis-style)"));
  fmt::print(stderr, "  wrote {}\n", svg);
  if (!o.json.empty()) {
    nlohmann::json j;
    j["command"] = "model --bound";
    for (const auto& s : series) {
      nlohmann::json x;
      x["series"] = s.name;
      for (const auto& p : s.points) x["points"].push_back({{"buffer_words", p.buffer}, {"accesses_words", p.accesses}, {"mapping", p.mapping}});
      j["series"].push_back(x);
    }
    write_json_report(o.json, j);
  }
}

void run_model_command(const ModelOptions& o) {
  const std::string base = o.out;
  std::string json_path = o.json.empty() ? (std::filesystem::path(base) / "model.json").string() : o.json;
  std::string csv_path = o.csv.empty() ? (std::filesystem::path(base) / "model.csv").string() : o.csv;
  std::string svg_path = o.svg.empty() ? (std::filesystem::path(base) / "model.svg").string() : o.svg;
  check_output_path(json_path, o.json.empty() ? "--out" : "--json");
  check_output_path(csv_path, o.csv.empty() ? "--out" : "--csv");
  check_output_path(svg_path, o.svg.empty() ? "--out" : "--svg");
  traffic::Study study = traffic::study_from_options(o);
  fmt::print(stderr, "cello model: {} problem(s) x {} configuration(s), SRAM {} MB, {} thread(s); CELLO's CHORD: {}\n",
             study.problems.size(), study.configs.size() + study.cello_sram_sweep.size(),
             static_cast<double>(study.params.sram_bytes) / (1 << 20), study.threads, study.params.chord_policy());
  auto result = traffic::run_study(study, [](size_t done, size_t total, const std::string& what) {
    fmt::print(stderr, "  [{}/{}] {}\n", done, total, what);
  });
  fmt::print("{}", traffic::table_text(result));
  if (o.tensors) fmt::print("{}", traffic::tensor_table_text(result));
  fmt::print("{}", traffic::summary_text(result));
  fmt::print("  off-chip energy at {:g} pJ/bit; {} MACs at {:g} GHz; modelled in {:.1f} s\n", study.machine.dram_pj_per_bit,
             study.machine.mac_units, study.machine.clock_hz / 1e9, result.seconds);
  auto json = traffic::to_json(study, result);
  write_output_file(json_path, json.dump(2) + "\n");
  write_output_file(csv_path, traffic::to_csv(result));
  write_output_file(svg_path, traffic::to_svg(result, o.paper ? "CELLO Table VI set: speedup and off-chip energy"
                                                       : "Speedup and off-chip energy"));
  fmt::print("  wrote {}, {}, {}\n", json_path, csv_path, svg_path);
  if (o.family || o.family_small) {
    auto ps = traffic::summarize_policy(result);
    fmt::print("\nReplacement policy against OPT (Belady MIN with bypass, same trace and capacity)");
    fmt::print("{}", traffic::policy_table_text(ps));
    std::string fam_svg = (std::filesystem::path(base) / "family.svg").string();
    std::string fam_json = (std::filesystem::path(base) / "family.json").string();
    write_output_file(fam_svg, traffic::policy_svg(ps, "CHORD policy family: traffic relative to OPT"));
    write_output_file(fam_json, traffic::policy_json(ps).dump(2) + "\n");
    fmt::print("  wrote {}, {}\n", fam_svg, fam_json);
  }
}

void add_model(CLI::App& app) {
  auto* cmd = app.add_subcommand("model", "DRAM traffic, speedup and energy of CELLO vs its baselines; bounds");
  auto o = std::make_shared<ModelOptions>();
  auto b = std::make_shared<BoundArgs>();
  cmd->add_option("--workload", o->workload, "cg, bicgstab, gcn or resnet")->capture_default_str();
  auto* matrix = cmd->add_option("--matrix", o->matrix, "Matrix Market file (.mtx or .mtx.gz) for CG / BiCGStab / GCN")
                     ->check(non_empty());
  cmd->add_option("--dataset", o->dataset,
                  "fv1, nasa4704, cora, protein (from the data folder), shallow_water1 / G2_circuit (generated "
                  "proxies), hpcg:N (generated stencil, N <= 64; the default)")
      ->excludes(matrix)->check(non_empty());
  cmd->add_option("--n", o->n, "block width N (CG, BiCGStab), input features (GCN), channels (ResNet)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--o", o->o, "GCN output features")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--hw", o->hw, "ResNet feature-map height = width")->capture_default_str()->check(CLI::Range(1, 4096));
  cmd->add_option("--iters", o->iters, "CG/BiCGStab iterations (default 10), GCN layers, ResNet blocks")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--word-bytes", o->word_bytes, "bytes per word (default 4; 2 for ResNet)");
  cmd->add_option("--sram", o->sram, "SRAM / cache / CHORD capacity")->capture_default_str();
  cmd->add_flag("--sweep", o->sweep, "also run CELLO with 1 MB and 16 MB of SRAM");
  cmd->add_option("--bw", o->bw, "DRAM bandwidths in GB/s")->delimiter(',')->capture_default_str();
  cmd->add_option("--pj-per-bit", o->pj_per_bit, "off-chip energy per bit moved")->capture_default_str();
  cmd->add_option("--configs", o->configs,
                  "configurations: flexagon, flex_lru, flex_brrip, flat, set, prelude, cello, ideal, opt (default all; "
                  "--paper leaves out opt)")
      ->delimiter(',');
  cmd->add_option("--threads", o->threads, "worker threads")->capture_default_str();
  cmd->add_flag("--paper", o->paper,
                "CELLO Table VI set (+ nasa4704): CG N in {1,16} x 10 iterations, GCN cora/protein, ResNet; "
                "250 and 1000 GB/s; SRAM sweep");
  cmd->add_flag("--family", o->family,
                "the generated policy family (CG on stencils, banded and mesh matrices; N 1..16; SRAM 1..16 MB) "
                "with OPT, and the table of every policy over OPT");
  add_chord_policy_options(cmd, *o);
  cmd->add_flag("--family-small", o->family_small, "only the family's smallest problems");
  cmd->add_flag("--tensors", o->tensors, "also print each tensor's DRAM bytes per configuration (model.json has them always)");
  cmd->add_option("--data", o->data, "data folder with suitesparse/ and graphs/ (default: $CELLO_DATA or ../shared/data)");
  cmd->add_option("--out", o->out, "folder for model.json, model.csv, model.svg")->capture_default_str();
  auto* bound = cmd->add_flag("--bound", o->bound, "print Orojenesis-style ski-slope bounds as CSV and draw them as SVG");
  cmd->add_option("--einsum", b->einsums, "with --bound: einsum 'm=64,k=32,n=16: A[m,k] B[k,n] -> Z[m,n]'")
      ->needs(bound);
  cmd->add_option("--chain", b->chains, "with --bound: GEMM chain M,K0,N0,N1[,...] (fused vs unfused)")->needs(bound);
  cmd->add_option("--json", o->json, "write the JSON report here (default OUT/model.json)");
  cmd->add_option("--csv", o->csv, "write the CSV table here (default OUT/model.csv)");
  cmd->add_option("--svg", o->svg, "write the SVG chart here (default OUT/model.svg or OUT/bound.svg)");
  cmd->callback([o, b] {
    if (o->bound)
      run_bound(*o, *b);
    else
      run_model_command(*o);
  });
}

}  // namespace

CELLO_COMMAND("model", add_model);

}  // namespace cello::cli
