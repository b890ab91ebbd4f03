// `cello compile`: a workload DAG (built-in or .cello) through SCORE into
// DIR/schedule.json (+ DIR/workload.cello, the DAG that was compiled), and for
// the hardware config's top the command stream DIR/commands.bin, its disassembly
// DIR/commands.txt and the initial DRAM image DIR/image.bin.
// docs/compile.md describes the options and the schedule fields,
// docs/commands.md the stream.
#include <fmt/core.h>

#include <chrono>
#include <filesystem>
#include <optional>

#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/cli/output_files.hpp"
#include "gen/config_reader.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/common/limits.hpp"
#include "sw/exec/prepare.hpp"
#include "gen/top/top_config.hpp"
#include "sw/ir/cello_format.hpp"
#include "sw/mtx/hpcg.hpp"
#include "sw/mtx/matrix_market.hpp"
#include "sw/score/compile.hpp"
#include "sw/workloads/workloads.hpp"

namespace cello::cli {

namespace {

struct CompileArgs {
  std::string workload, dag, matrix, dataset, target, config, out = "compile_out", json;
  int grid = 0, n = 0, o = 0, hw = 0, iters = 1;  // 0: not given (the workload's default)
  uint64_t seed = 1;
  bool no_stream = false;
};

void write_file(const std::filesystem::path& path, const std::string& text) { write_output_file(path.string(), text); }

void run_compile(const CompileArgs& a) {
  if (a.workload.empty() == a.dag.empty()) throw Error("", "", "give exactly one of --workload and --dag");
  // Options that do not apply to the chosen workload are refused, not ignored.
  const bool cg_like = a.workload == "cg" || a.workload == "bicgstab";
  if (a.o && a.workload != "gcn") throw Error("", "--o", "only applies to --workload gcn");
  if (a.hw && a.workload != "resnet") throw Error("", "--hw", "only applies to --workload resnet");
  if (a.grid && (!cg_like || !a.matrix.empty()))
    throw Error("", "--grid", "only applies to --workload cg or bicgstab without --matrix");
  std::filesystem::path dir(a.out);
  // Every file under --out is claimed before the work, like --json.
  std::vector<std::string> outputs = {"schedule.json", "workload.cello"};
  if (!a.no_stream) outputs.insert(outputs.end(), {"commands.bin", "commands.txt", "image.bin"});
  for (const std::string& name : outputs) check_output_path((dir / name).string(), "--out");
  check_output_path(a.json, "--json");
  ir::Program prog;
  nlohmann::ordered_json source;
  std::string what;
  const bool streaming = !a.no_stream;
  const arch::Arch arch = gen::load_arch(a.config);
  stream::Problem problem;  // with values, when a stream is written
  if (!a.dag.empty()) {
    prog = ir::load_cello(a.dag);
    if (prog.ops.empty()) throw Error(a.dag, "", "the DAG has no operations");
    source = {{"dag", a.dag}};
    what = a.dag;
    if (streaming) {
      problem.program = prog;
      // Before the matrix is read: the DAG's dense inputs must fit the memory budget.
      limits::check_memory(stream::dense_input_bytes(prog), a.dag, "", "the DAG's dense inputs");
      for (const ir::Tensor& t : prog.tensors)
        if (t.format == ir::Format::Csr) {
          if (a.matrix.empty()) throw Error(a.dag, "tensor " + t.name, "a CSR input needs --matrix for its values");
          // The size line must match the tensor before the reader allocates A.
          const int64_t rows = prog.ranks[static_cast<size_t>(t.dims.at(0))].size;
          problem.matrix = mtx::read_matrix_market(a.matrix, false, nullptr, [&](int64_t r, int64_t, int64_t) {
            return r == rows ? std::string()
                             : fmt::format("{} rows, but the DAG's CSR tensor {} ({}) has {}", r, t.name, a.dag, rows);
          });
          problem.pattern = std::make_shared<const mtx::CsrPattern>(problem.matrix);
        }
      problem.dense = stream::make_dense_inputs(prog, a.seed);
    } else if (!a.matrix.empty()) {
      throw Error("", "--matrix", "with --no-stream only applies to built-in workloads");
    }
  } else if (streaming) {
    stream::ProblemSpec spec;
    spec.workload = a.workload;
    spec.matrix = a.matrix;
    spec.dataset = a.dataset;
    spec.grid = a.grid ? a.grid : 16;
    spec.n = a.n;
    spec.o = a.o;
    spec.iters = a.iters;
    spec.seed = a.seed;
    spec.max_image_bytes = arch.memory_bytes;
    if (a.hw) throw Error("", "--hw", "only the resnet workload has feature maps (and it needs --no-stream)");
    fmt::print("cello compile: building {}\n", a.workload);
    std::fflush(stdout);
    problem = stream::make_problem(spec);
    prog = problem.program;
    source = {{"workload", a.workload}, {"matrix", problem.source}, {"m", problem.matrix.rows},
              {"nnz", problem.matrix.nnz()}, {"iters", a.iters}, {"seed", a.seed}};
    what = fmt::format("{} on {} (M={} nnz={}, {} iteration{})", a.workload, problem.source, problem.matrix.rows,
                       problem.matrix.nnz(), a.iters, a.iters == 1 ? "" : "s");
  } else {
    workloads::Params prm = workloads::default_params(a.workload);
    const bool sparse = a.workload == "cg" || a.workload == "bicgstab" || a.workload == "gcn";
    if (!a.matrix.empty()) {
      if (!sparse) throw Error("", "--matrix", "the resnet workload has no sparse matrix");
      fmt::print("cello compile: reading {}\n", a.matrix);
      std::fflush(stdout);
      mtx::Csr m = mtx::read_matrix_market(a.matrix, true);
      prm.m = m.rows;
      prm.nnz = m.nnz();
      source["matrix"] = a.matrix;
    } else if (a.workload == "cg" || a.workload == "bicgstab") {
      // Only A's size matters to SCORE: no need to build the stencil.
      const int grid = a.grid ? a.grid : 16;
      prm.m = int64_t{grid} * grid * grid;
      prm.nnz = mtx::hpcg_nnz(grid, grid, grid);
      source["matrix"] = fmt::format("hpcg {}^3", grid);
    }
    if (a.n) prm.n = a.n;
    if (a.o) prm.o = a.o;
    if (a.hw) prm.hw = a.hw;
    prm.iters = a.iters;
    prog = workloads::make_workload(a.workload, prm);
    source.update({{"workload", a.workload}, {"m", prm.m}, {"nnz", prm.nnz}, {"n", prm.n}, {"iters", prm.iters}});
    if (a.workload == "gcn") source["o"] = prm.o;
    if (a.workload == "resnet") source["hw"] = prm.hw;
    what = sparse ? fmt::format("{} (M={} nnz={} N={}, {} iteration{})", a.workload, prm.m, prm.nnz, prm.n, prm.iters,
                                prm.iters == 1 ? "" : "s")
                  : fmt::format("{} ({}x{}x{}, {} block{})", a.workload, prm.hw, prm.hw, prm.n, prm.iters,
                                prm.iters == 1 ? "" : "s");
  }
  score::Target target = arch::target_of(arch);
  if (!a.target.empty()) {
    target = score::parse_target(gen::parse_json_file(a.target), a.target);
  }

  auto t0 = std::chrono::steady_clock::now();
  score::Schedule s = score::compile(std::move(prog), target);
  double secs = seconds_since(t0);

  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(a.out, "", "cannot create directory (" + ec.message() + ")");
  nlohmann::ordered_json sj = score::schedule_json(s, source);
  std::optional<stream::Compiled> compiled;
  if (streaming) {
    compiled = stream::encode_schedule(s, arch, problem.pattern);
    // The memory-layout pass: every tensor version's DRAM region.
    nlohmann::ordered_json mem = nlohmann::ordered_json::array();
    for (size_t t = 0; t < s.program.tensors.size(); ++t)
      mem.push_back({{"tensor", s.program.tensors[t].name},
                     {"base", compiled->base[t]},
                     {"bytes", compiled->bytes[t]}});
    sj["memory"] = {{"config_hash", stream::config_hash_hex(arch.config_hash)},
                    {"bytes", compiled->stream.header.memory_bytes},
                    {"granule_bytes", arch.granule_bytes},
                    {"regions", mem}};
  }
  write_file(dir / "schedule.json", sj.dump(2) + "\n");
  write_file(dir / "workload.cello", ir::print_cello(s.program));
  if (compiled) {
    stream::write_bytes((dir / "commands.bin").string(), stream::encode(compiled->stream));
    write_file(dir / "commands.txt", stream::disassemble(compiled->stream));
    stream::write_bytes((dir / "image.bin").string(),
                        exec::initial_image(s.program, *compiled, problem.matrix, problem.dense, arch.granule_bytes));
  }

  const ir::Program& p = s.program;
  std::vector<int> counts = score::class_counts(s);
  fmt::print("cello compile: {} -> {}\n", what, (dir / "schedule.json").string());
  fmt::print("  {} ops, {} edges, critical path {} ops, compiled in {:.2f} ms\n", p.ops.size(), s.dag.edges.size(),
             s.critical_path.size(), secs * 1e3);
  std::string cls;
  for (int c = 0; c < 5; ++c)
    if (counts[c]) cls += fmt::format("{}{} {}", cls.empty() ? "" : ", ", counts[c], to_string(static_cast<score::EdgeClass>(c)));
  fmt::print("  edges: {}\n  swizzle penalty {}, loop-order violations {}\n", cls.empty() ? "none" : cls,
             s.swizzle_penalty, s.loop_order_violations);
  if (compiled)
    fmt::print("  command stream: {} records for config {} ({}), DRAM image {} bytes -> {}\n",
               compiled->stream.records.size(), arch.name, stream::config_hash_hex(arch.config_hash),
               compiled->stream.header.memory_bytes, (dir / "commands.bin").string());
  // One iteration in full (the second when there is one: it has predecessors and successors).
  int show = 0;
  for (const ir::Op& op : p.ops) show = std::max(show, op.iter);
  show = std::min(show, 2);
  fmt::print("  {}:\n", show ? fmt::format("edges into iteration {}", show) : std::string("edges"));
  int listed = 0;
  for (size_t e = 0; e < s.dag.edges.size() && listed < 40; ++e) {
    const ir::Edge& ed = s.dag.edges[e];
    if (p.ops[ed.dst].iter != show) continue;
    fmt::print("    {:>8} -> {:<8} {:<10} {}\n", p.ops[ed.src].name, p.ops[ed.dst].name, p.tensors[ed.tensor].name,
               to_string(s.edges[e].cls));
    ++listed;
  }
  nlohmann::json cj = nlohmann::json::object();
  for (int c = 0; c < 5; ++c) cj[to_string(static_cast<score::EdgeClass>(c))] = counts[c];
  write_json_report(a.json, {{"command", "compile"},
                             {"source", nlohmann::json::parse(source.dump())},
                             {"out_dir", dir.string()},
                             {"schedule", (dir / "schedule.json").string()},
                             {"ops", p.ops.size()},
                             {"edges", s.dag.edges.size()},
                             {"edge_classes", cj},
                             {"swizzle_penalty", s.swizzle_penalty},
                             {"loop_order_violations", s.loop_order_violations},
                             {"critical_path_length", s.critical_path.size()},
                             {"compile_seconds", secs},
                             {"commands", compiled ? nlohmann::json((dir / "commands.bin").string()) : nlohmann::json()},
                             {"records", compiled ? compiled->stream.records.size() : 0},
                             {"memory_bytes", compiled ? compiled->stream.header.memory_bytes : 0}});
}

void add_compile(CLI::App& app) {
  auto* cmd = app.add_subcommand("compile", "SCORE: compile a tensor DAG into a schedule (schedule.json)");
  auto a = std::make_shared<CompileArgs>();
  auto* workload = cmd->add_option("--workload", a->workload, "built-in workload: cg, bicgstab, gcn, resnet")
                       ->check(non_empty());
  auto* dag = cmd->add_option("--dag", a->dag, "a .cello DAG file (docs/cello-format.md)")
                  ->check(non_empty())->excludes(workload);
  // Workload sizes apply to built-in workloads only: with --dag they are refused.
  cmd->add_option("--matrix", a->matrix, "Matrix Market file (.mtx or .mtx.gz): A (with --dag: the CSR input's values)")
      ->check(non_empty());
  cmd->add_option("--grid", a->grid, "HPCG 27-point stencil grid G (G^3 rows) when no --matrix (cg, bicgstab; default 16)")
      ->check(CLI::Range(1, 4096))->excludes(dag);
  cmd->add_option("--n", a->n, "block width N (cg, bicgstab), input features (gcn), channels (resnet)")
      ->check(CLI::Range(1, 1 << 20))->excludes(dag);
  cmd->add_option("--o", a->o, "output features (gcn)")->check(CLI::Range(1, 1 << 20))->excludes(dag);
  cmd->add_option("--hw", a->hw, "feature-map height and width (resnet)")->check(CLI::Range(1, 4096))->excludes(dag);
  cmd->add_option("--iters", a->iters, "iterations (cg, bicgstab), layers (gcn), blocks (resnet); at most 1000")
      ->capture_default_str()->check(CLI::Range(1, 1000))->excludes(dag);
  cmd->add_option("--target", a->target, "JSON overriding the target sizes SCORE assumes (docs/compile.md)")
      ->check(non_empty());
  add_top_config_option(cmd, a->config)
      ->check(non_empty());
  cmd->add_option("--dataset", a->dataset, "gcn graph: cora:DIR or proteins:DIR")->check(non_empty())->excludes(dag);
  cmd->add_option("--seed", a->seed, "seed of the dense inputs in image.bin")->capture_default_str();
  cmd->add_flag("--no-stream", a->no_stream, "schedule only: no commands.bin (any workload size, resnet)");
  cmd->add_option("--out", a->out, "output directory")->capture_default_str();
  add_json_option(cmd, a->json);
  cmd->callback([a] { run_compile(*a); });
}

}  // namespace

CELLO_COMMAND("compile", add_compile);

}  // namespace cello::cli
