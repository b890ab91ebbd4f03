// `cello sweep` end to end on exec points (milliseconds each): the table holds
// what `cello exec` says of each point, a rerun skips complete points, a
// failing point is listed with its error, `sweep point` repeats a point's
// report, the Slurm backend's job script (through a stand-in sbatch), and every
// bad manifest is one line "file: place: reason" with exit 2.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/common/cli_run.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kWork = fs::path(CELLO_SWEEP_WORK);
const std::string kManifest = CELLO_SWEEP_MANIFEST;

using cello::test::slurp;
using Run = cello::test::CliRun;

Run run_cello(const std::vector<std::string>& args, const std::string& tag) {
  return cello::test::run_cli(CELLO_BIN, kWork, args, tag);
}

fs::path fresh(const std::string& name) {
  const fs::path d = kWork / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A 4-point manifest for the tests that need a sweep folder, not the 8 points of small.json.
std::string four_points(const fs::path& dir) {
  const fs::path m = dir / "four.json";
  std::ofstream(m) << R"({"vary": {"chords.depth": [512, 4096]}, "workloads": [{"workload": "cg", "grid": 4, "n": 2, "iters": 2}],
                          "seeds": [1, 2]})";
  return m.string();
}

json report_of(const fs::path& dir) { return json::parse(slurp(dir / "report.json")); }

// The manifest's points, counted from the manifest itself.
size_t manifest_points(const json& m) {
  size_t n = m.value("seeds", json::array({1})).size() * m.at("workloads").size();
  for (const auto& [k, v] : m.at("vary").items()) n *= v.size();
  return n;
}

}  // namespace

TEST_CASE("a local sweep's table holds what cello exec says of every point", "[sweep]") {
  const fs::path dir = fresh("local");
  const Run r = run_cello({"sweep", "run", kManifest, "--out", (dir / "out").string(), "-j", "2"}, "local");
  INFO(r.output);
  REQUIRE(r.code == 0);
  const json m = json::parse(slurp(kManifest));
  const json rep = report_of(dir / "out");
  const auto& table = rep.at("table");
  REQUIRE(table.size() == manifest_points(m));
  CHECK(rep.at("passed") == table.size());
  std::set<std::string> ids, combos;
  for (const auto& row : table) {
    ids.insert(row.at("id").get<std::string>());
    std::string combo;
    for (const auto& [k, v] : m.at("vary").items()) combo += k + "=" + row.at(k).dump() + " ";
    combos.insert(combo + row.at("seed").dump());
  }
  CHECK(ids.size() == table.size());
  CHECK(combos.size() == table.size());  // every combination of the varied keys and seeds once

  const auto& w = m.at("workloads")[0];
  for (const auto& row : table) {
    const std::string id = row.at("id");
    const fs::path pdir = dir / "out" / "points" / id;
    const Run e = run_cello({"exec", "--config", (pdir / "config.json").string(), "--workload", w.at("workload"), "--grid",
                         w.at("grid").dump(), "--n", w.at("n").dump(), "--iters", w.at("iters").dump(), "--seed",
                         row.at("seed").dump(), "--json", (pdir / "exec.json").string()},
                        "exec_" + id);
    INFO(e.output);
    REQUIRE(e.code == 0);
    const json x = json::parse(slurp(pdir / "exec.json"));
    const json point = json::parse(slurp(pdir / "report.json"));
    CHECK(row.at("cycles") == x.at("cycles"));
    CHECK(row.at("exec_cycles") == x.at("cycles"));
    CHECK(row.at("roofline_cycles") == x.at("roofline_cycles"));
    CHECK(row.at("macs") == x.at("macs"));
    CHECK(point.at("exec").at("cello_read_bytes") == x.at("read_bytes"));
    CHECK(point.at("exec").at("cello_write_bytes") == x.at("write_bytes"));
    CHECK(row.at("dram_bytes").get<uint64_t>() ==
          point.at("exec").at("read_bytes").get<uint64_t>() + point.at("exec").at("write_bytes").get<uint64_t>());
    // The point's config is the manifest's base with the varied keys set.
    const json cfg = json::parse(slurp(pdir / "config.json"));
    for (const auto& [k, v] : m.at("vary").items()) {
      const std::string section = k.substr(0, k.find('.')), key = k.substr(k.find('.') + 1);
      const json& got = section == "top" ? cfg.at("top").at(key) : cfg.at(section)[0].at(key);
      CHECK(got == row.at(k));
    }
  }
  // A varied key the executor sees changes its prediction: the two DRAM bandwidths differ in cycles.
  std::map<std::string, std::set<uint64_t>> cycles_by_bw;
  for (const auto& row : table) cycles_by_bw[row.at("top.dram_bytes_per_cycle").dump()].insert(row.at("cycles").get<uint64_t>());
  REQUIRE(cycles_by_bw.size() == 2);
  CHECK(*cycles_by_bw.begin()->second.begin() != *cycles_by_bw.rbegin()->second.begin());

  for (const char* f : {"report.csv", "timings.csv", "plots/cycles_vs_chords_depth.svg",
                        "plots/cycles_vs_top_dram_bytes_per_cycle.svg", "plots/dram_vs_chord_capacity.svg"})
    CHECK(fs::file_size(dir / "out" / f) > 0);
  CHECK(slurp(dir / "out" / "plots" / "dram_vs_chord_capacity.svg").find("<circle") != std::string::npos);
  // One CSV line per point plus the header.
  const std::string csv = slurp(dir / "out" / "report.csv");
  CHECK(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')) == table.size() + 1);
}

TEST_CASE("a rerun skips complete points and runs again those without a good report", "[sweep]") {
  const fs::path dir = fresh("rerun");
  const std::string out = (dir / "out").string(), manifest = four_points(dir);
  REQUIRE(run_cello({"sweep", "run", manifest, "--out", out, "-j", "2"}, "rerun1").code == 0);
  const json table = report_of(out).at("table");
  const std::string gone = table[0].at("id"), broken = table[1].at("id"), kept = table[2].at("id");
  const fs::path kept_report = fs::path(out) / "points" / kept / "report.json";
  const auto kept_time = fs::last_write_time(kept_report);
  const Run again = run_cello({"sweep", "run", manifest, "--out", out}, "rerun2");
  INFO(again.output);
  CHECK(again.output.find(", 0 to run,") != std::string::npos);

  fs::remove(fs::path(out) / "points" / gone / "report.json");
  std::ofstream(fs::path(out) / "points" / broken / "report.json") << "{\"id\": \"" << broken << "\", \"status\"";
  // Without the two reports, the report lists them as MISSING.
  const Run rep = run_cello({"sweep", "report", out}, "rerun_report");
  INFO(rep.output);
  CHECK(rep.code == 0);
  CHECK(report_of(out).at("missing") == 2);
  CHECK(rep.output.find("MISSING " + gone) != std::string::npos);

  const Run third = run_cello({"sweep", "run", manifest, "--out", out, "-j", "1"}, "rerun3");
  INFO(third.output);
  CHECK(third.code == 0);
  CHECK(third.output.find(", 2 to run, " + std::to_string(table.size() - 2) + " complete") != std::string::npos);
  CHECK(report_of(out).at("passed") == table.size());
  CHECK(fs::last_write_time(kept_report) == kept_time);
  // The two points came back with the same figures.
  CHECK(report_of(out).at("table") == table);
}

TEST_CASE("cello sweep point writes the same report again, wall times aside", "[sweep]") {
  const fs::path dir = fresh("point");
  const std::string out = (dir / "out").string();
  REQUIRE(run_cello({"sweep", "run", four_points(dir), "--out", out}, "point_run").code == 0);
  const std::string id = report_of(out).at("table")[3].at("id");
  const fs::path file = fs::path(out) / "points" / id / "report.json";
  json before = json::parse(slurp(file));
  const Run r = run_cello({"sweep", "point", out, id}, "point_again");
  INFO(r.output);
  CHECK(r.code == 0);
  json after = json::parse(slurp(file));
  before.erase("wall_seconds");
  after.erase("wall_seconds");
  CHECK(before == after);
  const Run bad = run_cello({"sweep", "point", out, "0123456789abcdef"}, "point_bad");
  CHECK(bad.code == 2);
  CHECK(bad.output == "cello: error: " + out + "/sweep.json: 0123456789abcdef: no point has this id\n");
  const Run nodir = run_cello({"sweep", "report", (dir / "nothing").string()}, "report_nodir");
  CHECK(nodir.code == 2);
  CHECK(nodir.output.find("cello: error: " + (dir / "nothing" / "sweep.json").string() + ": no such file") == 0);
}

TEST_CASE("a point that fails is FAIL with its first error line, and the run exits 1", "[sweep]") {
  const fs::path dir = fresh("fail");
  const fs::path m = dir / "m.json";
  // 1 MiB of DRAM cannot hold CG with N = 8 on a 14^3 grid; it holds a 4^3 one.
  std::ofstream(m) << R"({"vary": {"top.memory_mb": [1]},
                          "workloads": [{"workload": "cg", "grid": 14, "n": 8}, {"workload": "cg", "grid": 4, "n": 8}]})";
  const Run r = run_cello({"sweep", "run", m.string(), "--out", (dir / "out").string()}, "fail");
  INFO(r.output);
  CHECK(r.code == 1);
  const json rep = report_of(dir / "out");
  CHECK(rep.at("failed") == 1);
  CHECK(rep.at("passed") == 1);
  const json& bad = rep.at("table")[0];
  CHECK(bad.at("top.memory_mb") == 1);
  CHECK(bad.at("status") == "FAIL");
  CHECK(bad.at("error").get<std::string>().find("exec: memory layout: the DRAM image needs") == 0);
  CHECK(r.output.find("FAIL " + bad.at("id").get<std::string>()) != std::string::npos);
  // --rerun-failed runs it again (and it fails again); without it the rerun has nothing to do.
  CHECK(run_cello({"sweep", "run", m.string(), "--out", (dir / "out").string()}, "fail2").output.find(", 0 to run,") !=
        std::string::npos);
  CHECK(run_cello({"sweep", "run", m.string(), "--out", (dir / "out").string(), "--rerun-failed"}, "fail3")
            .output.find(", 1 to run,") != std::string::npos);
}

TEST_CASE("the slurm backend writes one job array whose tasks run sweep point", "[sweep]") {
  const fs::path dir = fresh("fake_slurm");
  const fs::path bin = dir / "bin";
  fs::create_directories(bin);
  // A stand-in sbatch that records its argument and answers like `sbatch --parsable`.
  {
    std::ofstream f(bin / "sbatch");
    f << "#!/bin/sh\necho \"$@\" > " << (dir / "sbatch.args").string() << "\necho '4242;cluster'\n";
  }
  ::chmod((bin / "sbatch").c_str(), 0755);
  const std::string out = (dir / "out").string();
  const std::string path = bin.string() + ":" + (std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin:/bin");
  ::setenv("PATH", path.c_str(), 1);
  const Run r = run_cello({"sweep", "run", kManifest, "--out", out, "--backend", "slurm", "--no-wait", "--prologue",
                       "module load verilator", "--partition", "short", "--sbatch-arg=--account=lab"},
                      "fake_slurm");
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK(r.output.find("submitted job array 4242 (") != std::string::npos);
  const std::string args = slurp(dir / "sbatch.args");
  const fs::path script = fs::path(args.substr(args.rfind(' ') + 1, args.find('\n') - args.rfind(' ') - 1));
  const std::string text = slurp(script);
  INFO(text);
  const json sweep = json::parse(slurp(fs::path(out) / "sweep.json"));
  const size_t n = sweep.at("points").size();
  CHECK(text.find("#SBATCH --array=0-" + std::to_string(n - 1) + "\n") != std::string::npos);
  CHECK(text.find("#SBATCH --cpus-per-task=1\n#SBATCH --mem=4G\n") != std::string::npos);  // an exec point's request
  CHECK(text.find("#SBATCH --time=00:30:00\n") != std::string::npos);
  CHECK(text.find("#SBATCH --partition=short\n") != std::string::npos);
  CHECK(text.find("#SBATCH --account=lab\n") != std::string::npos);
  CHECK(text.find("\nmodule load verilator\n") != std::string::npos);
  CHECK(text.find("#SBATCH --job-name=cello-sweep_test\n") != std::string::npos);
  CHECK(text.find("' 'sweep' 'point' '" + fs::absolute(out).string() + "' \"$id\" > ") != std::string::npos);
  CHECK(args.find("--output=" + fs::absolute(out).string() + "/slurm/%A_%a.out ") != std::string::npos);
  // A value that would break out of its #SBATCH line is refused before anything is submitted.
  fs::remove(dir / "sbatch.args");
  const Run bad = run_cello({"sweep", "run", kManifest, "--out", out, "--backend", "slurm", "--no-wait", "--partition",
                             "short\n#SBATCH --uid=0"},
                            "fake_slurm_bad");
  CHECK(bad.code == 2);
  CHECK(bad.output == "cello: error: --partition: \"short\\n#SBATCH --uid=0\" holds a space, a quote or a line break\n");
  CHECK(!fs::exists(dir / "sbatch.args"));
  // The ids file lists every point, in the sweep's order.
  const size_t at = text.find("p\" '") + 4;
  const std::string ids = slurp(text.substr(at, text.find('\'', at) - at));
  std::string want;
  for (const auto& p : sweep.at("points")) want += p.at("id").get<std::string>() + "\n";
  CHECK(ids == want);
}

namespace {

struct BadCase {
  const char* name;
  std::string text;     // the manifest
  std::string expect;   // the message after "<file>: "
};

}  // namespace

TEST_CASE("every bad manifest is one line naming the file, the place and the reason, and exit 2", "[sweep]") {
  const fs::path dir = fresh("bad");
  const std::string wl = R"("workloads": [{"workload": "cg", "grid": 4}])";
  const std::vector<BadCase> cases = {
      {"not_json", "{\"vary\": ", "invalid JSON: parse error at line 1, column 10"},
      {"array", "[1, 2]", "a sweep manifest is a JSON object"},
      {"unknown_key", "{\"varry\": {}, " + wl + "}", "varry: unknown key (one of name, base, vary, workloads, run, seeds, area)"},
      {"section", "{\"vary\": {\"chrds.depth\": [1]}, " + wl + "}", "vary.chrds.depth: unknown section \"chrds\""},
      {"config_key", "{\"vary\": {\"chords.dpth\": [1024]}, " + wl + "}", "vary (chords.dpth=1024): chords[0].dpth: unknown key"},
      {"config_range", "{\"vary\": {\"chords.depth\": [1]}, " + wl + "}", "vary (chords.depth=1): chords[0].depth: "},
      {"no_values", "{\"vary\": {\"chords.depth\": []}, " + wl + "}", "vary.chords.depth: no values"},
      {"twice", "{\"vary\": {\"chords.depth\": [1024, 1024]}, " + wl + "}", "vary.chords.depth[1]: 1024 is listed twice"},
      {"object_value", "{\"vary\": {\"chords.depth\": [{}]}, " + wl + "}", "vary.chords.depth: a value must be a number"},
      {"range_both", "{\"vary\": {\"chords.depth\": {\"from\": 1, \"to\": 4, \"step\": 1, \"times\": 2}}, " + wl + "}",
       "vary.chords.depth: a range needs exactly one of \"step\" and \"times\""},
      {"range_step", "{\"vary\": {\"chords.depth\": {\"from\": 1, \"to\": 4, \"step\": 0}}, " + wl + "}",
       "vary.chords.depth.step: must be above 0"},
      {"range_down", "{\"vary\": {\"chords.depth\": {\"from\": 8, \"to\": 4, \"times\": 2}}, " + wl + "}",
       "vary.chords.depth.to: 4 is below \"from\" (8)"},
      {"range_key", "{\"vary\": {\"chords.depth\": {\"from\": 8, \"upto\": 4}}, " + wl + "}",
       "vary.chords.depth.upto: unknown key (one of from, to, step, times)"},
      {"no_workloads", "{}", "workloads: missing"},
      {"workload_name", R"({"workloads": [{"workload": "lu"}]})", "workloads[0].workload: unknown workload \"lu\" (one of cg, bicgstab, gcn)"},
      {"workload_key", R"({"workloads": [{"workload": "cg", "grd": 4}]})", "workloads[0].grd: unknown key"},
      {"workload_grid", R"({"workloads": [{"workload": "cg", "grid": 1}]})", "workloads[0].grid: 1 is out of range [2, 512]"},
      {"matrix", R"({"workloads": [{"workload": "cg", "matrix": "nope.mtx"}]})", "workloads[0].matrix: "},
      {"grid_and_matrix", R"({"workloads": [{"workload": "cg", "matrix": "nope.mtx", "grid": 4}]})",
       "workloads[0].grid: only applies to the generated matrix"},
      {"tool", "{\"run\": [\"exec\", \"synth\"], " + wl + "}", "run[1]: unknown tool \"synth\" (one of exec, model, sim, area)"},
      {"seed", "{\"seeds\": [1, 0], " + wl + "}", "seeds[1]: 0 is out of range"},
      {"seed_twice", "{\"seeds\": [3, 3], " + wl + "}", "seeds[1]: listed twice"},
      {"base_file", "{\"base\": \"nope.json\", " + wl + "}", "base: "},
      {"base_no_top", "{\"base\": {\"name\": \"x\", \"buffets\": [{\"name\": \"b\"}]}, " + wl + "}",
       "base: the base config has no \"top\" section"},
      {"same_point", R"({"workloads": [{"workload": "cg", "grid": 4}, {"workload": "cg", "grid": 4}]})",
       "base: two points are the same design, workload and seed"},
      {"area", "{\"area\": {\"liberty\": \"none.lib\"}, " + wl + "}", "area.liberty: "},
      {"no_section", "{\"base\": {\"name\": \"x\", \"mac_arrays\": [{\"name\": \"mac\"}], \"pipeline_buffers\": [{\"name\": \"pipe\"}], \"top\": {\"mac_array\": \"mac\", \"pipeline_buffer\": \"pipe\"}}, \"vary\": {\"chords.depth\": [1024]}, " + wl + "}",
       "vary: chords.depth: the config has no \"chords\" blocks to sweep"},
  };
  for (const auto& c : cases) {
    const fs::path m = dir / (std::string(c.name) + ".json");
    std::ofstream(m) << c.text;
    const Run r = run_cello({"sweep", "run", m.string(), "--out", (dir / "out").string()}, std::string("bad_") + c.name);
    INFO(c.name << ": " << r.output);
    CHECK(r.code == 2);
    CHECK(r.output.rfind("cello: error: " + m.string() + ": " + c.expect, 0) == 0);
    CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
  }
  CHECK(!fs::exists(dir / "out"));  // a bad manifest runs nothing
}

TEST_CASE("a model point gives every memory system's bytes, and CELLO's equal the executor's walk", "[sweep]") {
  const fs::path dir = fresh("model");
  const fs::path m = dir / "m.json";
  std::ofstream(m) << R"({"vary": {"chords.depth": [1024, 16384]}, "workloads": [{"workload": "cg", "grid": 8, "n": 4, "iters": 2}],
                          "run": ["model", "exec"]})";
  const Run r = run_cello({"sweep", "run", m.string(), "--out", (dir / "out").string()}, "model");
  INFO(r.output);
  REQUIRE(r.code == 0);
  const json rep = report_of(dir / "out");
  REQUIRE(rep.at("table").size() == 2);
  for (const auto& row : rep.at("table")) {
    const json point = json::parse(slurp(dir / "out" / "points" / row.at("id").get<std::string>() / "report.json"));
    CHECK(point.at("tools") == json::array({"exec", "model"}));  // run in the tools' order, not the manifest's
    const auto& ex = point.at("exec");
    CHECK(row.at("model_cello_bytes").get<uint64_t>() ==
          ex.at("cello_read_bytes").get<uint64_t>() + ex.at("cello_write_bytes").get<uint64_t>());
    for (const char* sys : {"model_flexagon_bytes", "model_flat_bytes", "model_ideal_bytes"}) CHECK(row.at(sys).is_number());
  }
  // A bigger CHORD moves fewer bytes under CELLO.
  CHECK(rep.at("table")[1].at("model_cello_bytes").get<uint64_t>() < rep.at("table")[0].at("model_cello_bytes").get<uint64_t>());
}

TEST_CASE("with an Fmax the table gives the time to solution, and the plots are time and the Pareto front", "[sweep]") {
  const fs::path dir = fresh("pareto");
  const std::string out = (dir / "out").string();
  REQUIRE(run_cello({"sweep", "run", four_points(dir), "--out", out}, "pareto_run").code == 0);
  // Give every point an area and an Fmax as the area tool reports them (the
  // area flow itself takes Yosys minutes): a larger CHORD is larger and slower.
  const json sweep = json::parse(slurp(fs::path(out) / "sweep.json"));
  for (const auto& p : sweep.at("points")) {
    const fs::path f = fs::path(out) / "points" / p.at("id").get<std::string>() / "report.json";
    json r = json::parse(slurp(f));
    const double depth = p.at("at").at("chords.depth").get<double>();
    r["area"] = {{"area_um2", 1e5 + 50 * depth}, {"fmax_mhz", 200 - depth / 100}};
    std::ofstream(f) << r.dump(2);
  }
  const Run r = run_cello({"sweep", "report", out}, "pareto_report");
  INFO(r.output);
  REQUIRE(r.code == 0);
  const json table = report_of(out).at("table");
  REQUIRE(table.size() == sweep.at("points").size());
  for (const auto& row : table) {
    const double depth = row.at("chords.depth").get<double>();
    CHECK(row.at("area_um2").get<double>() == Approx(1e5 + 50 * depth));
    CHECK(row.at("time_us").get<double>() == Approx(row.at("cycles").get<double>() / (200 - depth / 100)));
  }
  CHECK(fs::exists(fs::path(out) / "plots" / "time_vs_chords_depth.svg"));
  const std::string svg = slurp(fs::path(out) / "plots" / "pareto_area_time.svg");
  CHECK(svg.find("Pareto front") != std::string::npos);
  // Every point is drawn once in the scatter, and the front once more; the
  // front's points: sorted by area, each faster than every smaller one.
  std::vector<std::pair<double, double>> pts;
  for (const auto& row : table) pts.push_back({row.at("area_um2"), row.at("time_us")});
  std::sort(pts.begin(), pts.end());
  size_t front = 0;
  double best = 1e300;
  for (const auto& [a, t] : pts)
    if (t < best) best = t, ++front;
  size_t n = 0;
  for (size_t at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) ++n;
  CHECK(n == pts.size() + front + 1);  // + the legend's dot of the scatter
}
