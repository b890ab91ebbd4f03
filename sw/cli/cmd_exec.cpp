// `cello exec`: runs a command stream on a DRAM image with the C++ executor
// (sw/exec), the golden reference of the generated top. Either compiles a
// workload in memory first (--workload ...) or runs files (--stream, --image).
// Prints the residual history, DRAM traffic per tensor beside the traffic
// model's prediction, CHORD counters and predicted cycles against the roofline.
#include <fmt/core.h>

#include <algorithm>

#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/cli/output_files.hpp"
#include "sw/common/limits.hpp"
#include "sw/common/error.hpp"
#include "sw/exec/prepare.hpp"
#include "sw/golden/solvers.hpp"
#include "gen/top/top_config.hpp"
#include "sw/traffic/from_score.hpp"
#include "sw/traffic/report.hpp"

namespace cello::cli {

namespace {

struct ExecArgs {
  std::string workload, matrix, dataset, config, stream_file, image_file, json, dump_image;
  int grid = 16, n = 0, o = 0, iters = 1, show = 12;
  uint64_t seed = 1;
};

std::string mb(uint64_t bytes) { return fmt::format("{:.3f} MB", static_cast<double>(bytes) / 1e6); }

void run_exec(const ExecArgs& a) {
  const arch::Arch arch = gen::load_arch(a.config);
  if (a.workload.empty() == a.stream_file.empty()) throw Error("", "", "give exactly one of --workload and --stream");
  check_output_path(a.dump_image, "--dump-image");
  std::optional<stream::Problem> problem;
  std::optional<exec::Prepared> prep;
  stream::Stream s;
  std::vector<uint8_t> image;
  std::string what, stream_name, image_name;
  if (!a.workload.empty()) {
    if (!a.image_file.empty()) throw Error("", "--image", "only applies with --stream");
    stream::ProblemSpec spec{a.workload, a.matrix, a.dataset, a.grid, a.n, a.o, a.iters, a.seed};
    spec.max_image_bytes = arch.memory_bytes;
    problem = stream::make_problem(spec);
    prep = exec::prepare(*problem, arch);
    s = prep->compiled.stream;
    image = prep->image;
    stream_name = "<compiled " + a.workload + ">";
    image_name = "<image>";
    what = fmt::format("{} on {} (M={} nnz={}, {} iteration{})", a.workload, problem->source, problem->matrix.rows,
                       problem->matrix.nnz(), a.iters, a.iters == 1 ? "" : "s");
  } else {
    if (!a.matrix.empty() || !a.dataset.empty()) throw Error("", "--matrix", "only applies with --workload");
    if (a.image_file.empty()) throw Error("", "--image", "--stream needs the DRAM image it runs on (--image FILE)");
    s = stream::decode(stream::read_bytes(a.stream_file), a.stream_file, arch.config_hash);
    // The image is at most what the top addresses, and within the memory budget.
    image = stream::read_bytes(a.image_file, std::min(arch.memory_bytes, limits::memory_budget()), "DRAM image");
    stream_name = a.stream_file;
    image_name = a.image_file;
    what = a.stream_file;
  }
  if (s.header.config_hash != arch.config_hash)
    throw Error(stream_name, "header", "compiled for another hardware config");
  fmt::print("cello exec: {} on {} ({}x{} array, L={}, CHORD {} KiB, {} B/cycle DRAM)\n", what, arch.name, arch.pe_rows,
             arch.pe_cols, arch.fma_stages, arch.chord_bytes / 1024, arch.dram_bytes_per_cycle);
  const exec::Result r = exec::execute(s, stream_name, arch, std::move(image), image_name);
  fmt::print("  {} records, {} ops, DRAM image {} bytes; executed in {:.3f} s ({:.3g} MACs/s, {:.3g} records/s)\n",
             s.records.size(), r.program.ops.size(), s.header.memory_bytes, r.seconds,
             static_cast<double>(r.macs) / std::max(r.seconds, 1e-9),
             static_cast<double>(s.records.size()) / std::max(r.seconds, 1e-9));

  nlohmann::json report = {{"command", "exec"}, {"config", arch.name}, {"records", s.records.size()},
                           {"seconds", r.seconds}, {"macs", r.macs}};
  // Residual history against the double-precision solver.
  if (problem && (a.workload == "cg" || a.workload == "bicgstab")) {
    const auto& p = prep->schedule.program;
    const auto bt = p.find_tensor("B");
    const auto& b = r.values[static_cast<size_t>(*bt)];
    const std::vector<double> hist = exec::residual_history(p, r, b);
    const std::vector<double> bd(b.begin(), b.end());
    golden::SolveOptions so;
    so.max_iters = a.iters;
    so.tol = 0;
    const int n = static_cast<int>(r.program.tensors[static_cast<size_t>(*bt)].cols);
    const golden::SolveResult d = a.workload == "cg" ? golden::block_cg(problem->matrix, bd, n, so)
                                                     : golden::block_bicgstab(problem->matrix, bd, n, so);
    fmt::print("  residual max_j |r_j|/|b_j|   iter  executor (fp32)   solver (double)\n");
    for (size_t i = 0; i < hist.size(); ++i)
      fmt::print("  {:>33}  {:>14.6e}   {}\n", i, hist[i],
                 i == 0 ? std::string("   1 (x0 = 0)") : i - 1 < d.history.size() ? fmt::format("{:>14.6e}", d.history[i - 1]) : "");
    report["residual_history"] = hist;
    report["double_history"] = d.history;
  }
  // Traffic, per tensor, beside the model.
  std::optional<traffic::Traffic> model;
  if (prep && arch.has_chord()) {
    const traffic::Workload w = traffic::from_schedule(prep->schedule, problem->pattern, arch.word_bytes);
    model = traffic::run_model(w, traffic::MemorySystem::CELLO, arch::model_params_of(arch));
  }
  fmt::print("  DRAM traffic: {} read, {} written", mb(r.read_bytes), mb(r.write_bytes));
  if (model)
    fmt::print(" (cello model CELLO: {} read, {} written{})", mb(model->read_bytes), mb(model->write_bytes),
               model->read_bytes == r.read_bytes && model->write_bytes == r.write_bytes ? ", equal" : ", DIFFERENT");
  fmt::print("\n");
  std::vector<size_t> order;
  for (size_t t = 0; t < r.tensor_read_bytes.size(); ++t)
    if (r.tensor_read_bytes[t] + r.tensor_write_bytes[t] > 0) order.push_back(t);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return r.tensor_read_bytes[x] + r.tensor_write_bytes[x] > r.tensor_read_bytes[y] + r.tensor_write_bytes[y];
  });
  fmt::print("  {:<14} {:>12} {:>12}{}\n", "tensor", "read B", "written B", model ? "   model read B  model written B" : "");
  nlohmann::json per = nlohmann::json::array();
  for (size_t k = 0; k < order.size(); ++k) {
    const size_t t = order[k];
    const std::string name = r.program.tensors[t].name.empty() ? fmt::format("t{}", t) : r.program.tensors[t].name;
    per.push_back({{"tensor", name}, {"read_bytes", r.tensor_read_bytes[t]}, {"write_bytes", r.tensor_write_bytes[t]}});
    if (static_cast<int>(k) >= a.show) continue;
    fmt::print("  {:<14} {:>12} {:>12}", name, r.tensor_read_bytes[t], r.tensor_write_bytes[t]);
    if (model) fmt::print(" {:>16} {:>16}", model->tensor_read_bytes[t], model->tensor_write_bytes[t]);
    fmt::print("\n");
  }
  if (static_cast<int>(order.size()) > a.show) fmt::print("  ... {} more tensors (--show N, --json)\n", order.size() - static_cast<size_t>(a.show));
  if (arch.has_chord())
    fmt::print("  CHORD: {} read hits, {} read misses, {} write hits, {} spills, {} evicted words, {} bypassed tensors\n",
               r.chord.read_hits, r.chord.read_misses, r.chord.write_hits, r.chord.spills, r.chord.evicted_words,
               r.chord.bypass_tensors);
  fmt::print("  cycles: {} predicted, roofline {} (max of {} MACs / {} per cycle and {} B / {} B per cycle): {:.2f}x\n",
             r.cycles, r.roofline_cycles, r.macs, arch.macs_per_cycle(), r.read_bytes + r.write_bytes,
             arch.dram_bytes_per_cycle, static_cast<double>(r.cycles) / std::max<double>(1.0, static_cast<double>(r.roofline_cycles)));
  if (!a.dump_image.empty()) {
    stream::write_bytes(a.dump_image, r.image);
    fmt::print("  final DRAM image -> {}\n", a.dump_image);
  }
  report.update({{"read_bytes", r.read_bytes},
                 {"write_bytes", r.write_bytes},
                 {"tensors", per},
                 {"chord", r.chord},
                 {"cycles", r.cycles},
                 {"roofline_cycles", r.roofline_cycles}});
  if (model) report["model"] = {{"read_bytes", model->read_bytes}, {"write_bytes", model->write_bytes}};
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& o : r.ops)
    ops.push_back({{"op", o.label}, {"macs", o.macs}, {"read_bytes", o.read_bytes}, {"write_bytes", o.write_bytes},
                   {"compute_cycles", o.compute_cycles}, {"dram_cycles", o.dram_cycles}, {"cycles", o.cycles}});
  report["ops"] = ops;
  write_json_report(a.json, report);
}

void add_exec(CLI::App& app) {
  auto* cmd = app.add_subcommand("exec", "run a command stream with the C++ executor (the RTL's golden reference)");
  auto a = std::make_shared<ExecArgs>();
  cmd->add_option("--workload", a->workload, "compile and run a built-in workload: cg, bicgstab, gcn");
  cmd->add_option("--matrix", a->matrix, "Matrix Market file for A (default: HPCG stencil on --grid)");
  cmd->add_option("--dataset", a->dataset, "gcn graph: cora:DIR or proteins:DIR");
  cmd->add_option("--grid", a->grid, "HPCG grid G (G^3 rows) when no --matrix")->capture_default_str();
  cmd->add_option("--n", a->n, "block width N (cg, bicgstab) or input features (gcn)");
  cmd->add_option("--o", a->o, "output features (gcn)");
  cmd->add_option("--iters", a->iters, "iterations (cg, bicgstab) or layers (gcn)")->capture_default_str();
  cmd->add_option("--seed", a->seed, "seed of the dense inputs")->capture_default_str();
  cmd->add_option("--stream", a->stream_file, "run this commands.bin instead of compiling");
  cmd->add_option("--image", a->image_file, "initial DRAM image for --stream (image.bin from cello compile)");
  add_top_config_option(cmd, a->config);
  cmd->add_option("--dump-image", a->dump_image, "write the final DRAM image here");
  cmd->add_option("--show", a->show, "tensors listed in the traffic table")->capture_default_str();
  add_json_option(cmd, a->json);
  cmd->callback([a] { run_exec(*a); });
}

}  // namespace

CELLO_COMMAND("exec", add_exec);

}  // namespace cello::cli
