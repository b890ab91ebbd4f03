#include "sw/cli/sweep_point.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "gen/config_reader.hpp"
#include "gen/hw_config.hpp"
#include "gen/top/top_config.hpp"
#include "sw/area/liberty.hpp"
#include "sw/cli/area_eval.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/common/output_file.hpp"
#include "sw/exec/prepare.hpp"
#include "sw/traffic/from_score.hpp"
#include "sw/traffic/models.hpp"
#include "sw/traffic/report.hpp"

namespace cello::cli::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

stream::ProblemSpec problem_of(const Point& p, const arch::Arch& arch) {
  const json& w = p.workload;
  stream::ProblemSpec s;
  s.workload = w.at("workload").get<std::string>();
  s.matrix = w.at("matrix").get<std::string>();
  s.dataset = w.at("dataset").get<std::string>();
  s.grid = w.at("grid").get<int>();
  s.n = w.at("n").get<int>();
  s.o = w.at("o").get<int>();
  s.iters = w.at("iters").get<int>();
  s.seed = p.seed;
  s.max_image_bytes = arch.memory_bytes;
  return s;
}

arch::Arch arch_of_point(const Point& p, const std::string& config_file) {
  return gen::arch_of(gen::parse_hw_config(p.config, config_file), config_file);
}

// The executor: the golden result of the top, its predicted cycles and the
// DRAM bytes and CHORD counters this top has (docs/commands.md, "DRAM traffic").
json run_exec_tool(const Point& p, const std::string& config_file) {
  const arch::Arch arch = arch_of_point(p, config_file);
  const stream::Problem pr = stream::make_problem(problem_of(p, arch));
  const exec::Prepared prep = exec::prepare(pr, arch);
  const exec::Result r = exec::execute(prep.compiled.stream, "<compiled stream>", arch, prep.image, "<image>");
  fmt::print("  exec: {} records, {} MACs, {} predicted cycles (roofline {}), DRAM {} B read, {} B written\n",
             prep.compiled.stream.records.size(), r.macs, r.cycles, r.roofline_cycles, r.top.read_bytes,
             r.top.write_bytes);
  return {{"source", pr.source},
          {"rows", pr.matrix.rows},
          {"nnz", pr.matrix.nnz()},
          {"records", prep.compiled.stream.records.size()},
          {"macs", r.macs},
          {"cycles", r.cycles},
          {"roofline_cycles", r.roofline_cycles},
          {"read_bytes", r.top.read_bytes},
          {"write_bytes", r.top.write_bytes},
          {"chord", r.top.chord},
          {"cello_read_bytes", r.read_bytes},
          {"cello_write_bytes", r.write_bytes},
          {"clock_period_ns", gen::parse_hw_config(p.config, config_file).clock_period_ns}};
}

// The traffic models of `cello model` on the point's schedule: DRAM bytes of
// CELLO and of each baseline memory system at this design's sizes.
json run_model_tool(const Point& p, const std::string& config_file) {
  const arch::Arch arch = arch_of_point(p, config_file);
  const stream::Problem pr = stream::make_problem(problem_of(p, arch));
  const exec::Prepared prep = exec::prepare(pr, arch);
  const traffic::Workload w = traffic::from_schedule(prep.schedule, pr.pattern, arch.word_bytes);
  json systems = json::object();
  for (auto sys : traffic::all_systems()) {
    const traffic::Traffic t = traffic::run_model(w, sys, arch::model_params_of(arch));
    systems[traffic::key(sys)] = {{"read_bytes", t.read_bytes}, {"write_bytes", t.write_bytes}};
    fmt::print("  model: {:<16} {} B read, {} B written\n", traffic::to_string(sys), t.read_bytes, t.write_bytes);
  }
  return {{"systems", systems}};
}

// The generated top through Yosys and OpenSTA: its area (logic and RAMs) and Fmax.
json run_area_tool(const Sweep& s, const Point& p, const std::string& work) {
  const gen::HwConfig cfg = gen::parse_hw_config(p.config, "config");
  AreaOptions o;
  const fs::path lib = area::find_liberty(s.area.value("liberty", std::string()));
  o.liberty = area::unpacked_liberty(lib, fs::path(work) / "liberty");
  o.period_ns = s.area.value("period_ns", 0.0);
  const std::string top = cfg.top->name;
  auto blocks = evaluate_config(cfg, fs::path(work) / "area", o,
                                [](const std::string& line) {
                                  fmt::print("  area: {}\n", line);
                                  std::fflush(stdout);
                                }, {top});
  if (blocks.empty()) throw Error("", "area", "the generated design has no module " + top);
  const BlockArea& b = blocks.front();
  const auto& t = b.flow.timing;
  json j = {{"module", b.module},
            {"control_area_um2", b.flow.control.area_um2},
            {"ram_area_um2", b.ram_um2},
            {"area_um2", b.flow.control.area_um2 + b.ram_um2},
            {"period_ns", t.period_ns},
            {"fmax_mhz", t.constrained ? json(t.fmax_mhz) : json(nullptr)}};
  fmt::print("  area: {} um2 ({} logic, {} RAM), Fmax {}\n", j["area_um2"].dump(), j["control_area_um2"].dump(),
             j["ram_area_um2"].dump(), j["fmax_mhz"].dump());
  return j;
}

std::string first_error_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

std::string point_dir(const std::string& dir, const std::string& id) { return (fs::path(dir) / "points" / id).string(); }

json complete_report(const std::string& dir, const Point& p) {
  const fs::path file = fs::path(point_dir(dir, p.id)) / "report.json";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return nullptr;
  try {
    json r = gen::parse_json_file(file.string());
    if (!r.is_object() || r.value("id", "") != p.id || !r.contains("status")) return nullptr;
    const auto tools = r.value("tools", std::vector<std::string>{});
    for (const auto& t : p.tools)
      if (std::find(tools.begin(), tools.end(), t) == tools.end()) return nullptr;
    return r;
  } catch (const std::exception&) {
    return nullptr;
  }
}

json run_point(const Sweep& s, const Point& p, const std::string& dir, const PointOptions& o) {
  const std::string work = point_dir(dir, p.id);
  const std::string config_file = (fs::path(work) / "config.json").string();
  write_output(config_file, p.config.dump(2) + "\n");
  fmt::print("cello sweep point {}: {}\n", p.id, p.label);
  std::fflush(stdout);
  json report = {{"id", p.id}, {"label", p.label}, {"at", p.at}, {"workload", p.workload.at("label")},
                 {"seed", p.seed}, {"tools", p.tools}, {"status", "PASS"}};
  json wall = json::object();
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& tool : p.tools) {
    const auto t1 = std::chrono::steady_clock::now();
    try {
      if (tool == "exec") report["exec"] = run_exec_tool(p, config_file);
      else if (tool == "model") report["model"] = run_model_tool(p, config_file);
      else if (tool == "sim") report["sim"] = run_sim_tool(config_file, p, o);
      else if (tool == "area") report["area"] = run_area_tool(s, p, work);
      else throw Error("", "run", "unknown tool " + tool);
      if (tool == "sim" && !report["sim"].value("pass", false)) {
        report["status"] = "FAIL";
        report["error"] = "sim: the RTL's run differs from the executor (see log.txt)";
      }
    } catch (const std::exception& e) {
      report["status"] = "FAIL";
      report["error"] = fmt::format("{}: {}", tool, first_error_line(e.what()));
    }
    wall[tool] = seconds_since(t1);
    std::fflush(stdout);
    if (report["status"] != "PASS") break;
  }
  wall["total"] = seconds_since(t0);
  report["wall_seconds"] = wall;
  write_output((fs::path(work) / "report.json").string(), report.dump(2) + "\n");
  fmt::print("cello sweep point {}: {}{}\n", p.id, report["status"].get<std::string>(),
             report.contains("error") ? " (" + report["error"].get<std::string>() + ")" : "");
  return report;
}

}  // namespace cello::cli::sweep
