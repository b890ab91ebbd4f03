// `cello sweep run|point|report`: design-space sweeps (docs/sweep.md). `run`
// expands a manifest into points, stores the sweep as DIR/sweep.json and runs
// every point whose report is not complete, on this machine (-j N) or as Slurm
// job arrays; `point` runs one point (what each task runs); `report` gathers
// the points' reports into one table and the plots. `run` ends with `report`.
#include <fmt/core.h>

#include <filesystem>
#include <memory>
#include <thread>

#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/cli/sweep_manifest.hpp"
#include "sw/cli/sweep_point.hpp"
#include "sw/cli/sweep_report.hpp"
#include "sw/cli/sweep_run.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/common/output_file.hpp"

namespace cello::cli {

namespace {

namespace fs = std::filesystem;

struct SweepArgs {
  std::string manifest, backend = "local", json, id;
  sweep::RunOptions run;
};

nlohmann::json summary_json(const sweep::ReportSummary& r) {
  return {{"points", r.points}, {"passed", r.passed}, {"failed", r.failed}, {"missing", r.missing}, {"files", r.files}};
}

sweep::ReportSummary report_and_print(const sweep::Sweep& s, const std::string& dir) {
  const sweep::ReportSummary r = sweep::write_report(s, dir);
  fmt::print("cello sweep report: {} points, {} PASS, {} FAIL, {} without a report -> {}/report.csv, report.json, "
             "timings.csv, {} plot{} in {}/plots\n",
             r.points, r.passed, r.failed, r.missing, dir, r.files.size() - 3, r.files.size() == 4 ? "" : "s", dir);
  return r;
}

void run_sweep(const SweepArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  if (a.backend != "local" && a.backend != "slurm")
    throw Error("", "--backend", "\"" + a.backend + "\" is not a backend (local or slurm)");
  if (a.backend == "slurm") sweep::check_slurm_options(a.run);
  const sweep::Sweep s = sweep::load_manifest(a.manifest);
  sweep::RunOptions o = a.run;
  write_output((fs::path(o.dir) / "sweep.json").string(), s.to_json().dump(2) + "\n");
  const auto todo = sweep::pending_points(s, o);
  fmt::print("cello sweep run: {}: {} points ({} varied key{}, {} tool{}: {}), {} to run, {} complete in {}\n", s.name,
             s.points.size(), s.axes.size(), s.axes.size() == 1 ? "" : "s", s.tools.size(), s.tools.size() == 1 ? "" : "s",
             fmt::join(s.tools, ", "), todo.size(), s.points.size() - todo.size(), o.dir);
  std::fflush(stdout);
  nlohmann::json report = {{"command", "sweep run"}, {"sweep", s.name}, {"backend", a.backend}, {"dir", o.dir},
                           {"points", s.points.size()}, {"ran", todo.size()}};
  if (a.backend == "local") {
    fmt::print("cello sweep run: local backend, {} point{} at once\n", o.jobs, o.jobs == 1 ? "" : "s");
    sweep::run_local(s, todo, o);
  } else {
    const auto jobs = sweep::run_slurm(s, todo, o);
    report["jobs"] = jobs;
    if (!o.wait) {
      fmt::print("cello sweep run: submitted; `cello sweep report {}` gathers the points once they are done\n", o.dir);
      report["seconds"] = seconds_since(t0);
      write_json_report(a.json, report);
      return;
    }
  }
  const auto r = report_and_print(s, o.dir);
  const double secs = seconds_since(t0);
  fmt::print("cello sweep run: done in {:.1f} s\n", secs);
  report["report"] = summary_json(r);
  report["seconds"] = secs;
  write_json_report(a.json, report);
  if (r.failed + r.missing > 0) throw CLI::RuntimeError(1);
}

void add_sweep(CLI::App& app) {
  auto* cmd = app.add_subcommand("sweep", "design-space sweeps: run a manifest's points (locally or on Slurm), gather the report");
  cmd->require_subcommand(1);
  auto a = std::make_shared<SweepArgs>();
  a->run.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  auto* run = cmd->add_subcommand("run", "run every point of a sweep manifest whose report is not complete, then report");
  run->add_option("manifest", a->manifest, "sweep manifest (JSON, docs/sweep.md)")->required()->check(CLI::ExistingFile);
  run->add_option("--out", a->run.dir, "the sweep's folder (points/, report, plots)")->required()->check(non_empty());
  run->add_option("--backend", a->backend, "local or slurm")->capture_default_str();
  run->add_option("-j,--jobs", a->run.jobs, "local: points at once (default: the number of cores)")->check(CLI::Range(1, 1024));
  run->add_flag("--rerun-failed", a->run.rerun_failed, "run points again whose report says FAIL");
  run->add_option("--cache", a->run.point.cache, "simulator cache of sim points (default: ~/.cache/cello; on a cluster, a shared folder)");
  run->add_option("--cello", a->run.cello, "the cello program the points run (default: this one)");
  run->add_option("--partition", a->run.partition, "slurm: partition (default: the cluster's default)");
  run->add_option("--time", a->run.time, "slurm: time limit per task (default from the tools: exec 00:30:00 ... area 08:00:00)");
  run->add_option("--cpus", a->run.cpus, "slurm: CPUs per task (default from the tools: 1, sim 2)")->check(CLI::Range(1, 1024));
  run->add_option("--mem", a->run.mem, "slurm: memory per task, e.g. 4G (default from the tools: exec 4G, others 8G)");
  run->add_option("--sbatch-arg", a->run.sbatch_args, "slurm: one more #SBATCH line, e.g. --sbatch-arg=--account=lab (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--prologue", a->run.prologue, "slurm: a shell line each task runs first, e.g. 'module load verilator' (repeatable)")
      ->allow_extra_args(false);
  run->add_option("--max-array", a->run.max_array, "slurm: tasks per job array")->capture_default_str()->check(CLI::Range(1, 1000000));
  run->add_flag("--no-wait", [a](int64_t) { a->run.wait = false; }, "slurm: return once submitted");
  run->add_option("--poll", a->run.poll_seconds, "slurm: seconds between squeue polls")->capture_default_str()->check(CLI::Range(0.1, 3600.0));
  add_json_option(run, a->json);
  run->callback([a] { run_sweep(*a); });

  auto* point = cmd->add_subcommand("point", "run one point of a sweep folder (what every task of `sweep run` runs)");
  point->add_option("dir", a->run.dir, "the sweep's folder")->required()->check(non_empty());
  point->add_option("id", a->id, "the point's id (DIR/sweep.json)")->required()->check(non_empty());
  point->add_option("--cache", a->run.point.cache, "simulator cache (default: ~/.cache/cello)");
  point->callback([a] {
    const sweep::Sweep s = sweep::load_sweep_dir(a->run.dir);
    const sweep::Point* p = s.find(a->id);
    if (!p) throw Error((fs::path(a->run.dir) / "sweep.json").string(), a->id, "no point has this id");
    const nlohmann::json r = sweep::run_point(s, *p, a->run.dir, a->run.point);
    if (r.value("status", "") != "PASS") throw CLI::RuntimeError(1);
  });

  auto* rep = cmd->add_subcommand("report", "gather a sweep folder's point reports: report.csv, report.json, plots/");
  rep->add_option("dir", a->run.dir, "the sweep's folder")->required()->check(non_empty());
  add_json_option(rep, a->json);
  rep->callback([a] {
    const sweep::Sweep s = sweep::load_sweep_dir(a->run.dir);
    const auto r = report_and_print(s, a->run.dir);
    write_json_report(a->json, {{"command", "sweep report"}, {"sweep", s.name}, {"report", summary_json(r)}});
  });
}

}  // namespace

CELLO_COMMAND("sweep", add_sweep);

}  // namespace cello::cli
