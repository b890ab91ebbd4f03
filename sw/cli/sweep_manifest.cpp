#include "sw/cli/sweep_manifest.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "gen/config_reader.hpp"
#include "gen/design.hpp"
#include "gen/hw_config.hpp"
#include "sw/area/sweep.hpp"
#include "sw/common/error.hpp"
#include "sw/traffic/experiment.hpp"

namespace cello::cli::sweep {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr size_t kMaxValues = 10000, kMaxPoints = 100000;

const std::vector<std::string>& workload_names() {
  static const std::vector<std::string> w = {"cg", "bicgstab", "gcn"};
  return w;
}

std::string what(const json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// Reads manifest values with the manifest's file name and the value's place in every error.
struct Reader {
  std::string file;
  [[noreturn]] void fail(const std::string& place, const std::string& reason) const { throw Error(file, place, reason); }
  void only_keys(const json& obj, const std::string& place, const std::vector<std::string>& keys) const {
    for (const auto& [k, v] : obj.items())
      if (std::find(keys.begin(), keys.end(), k) == keys.end())
        fail(place.empty() ? k : place + "." + k, fmt::format("unknown key (one of {})", fmt::join(keys, ", ")));
  }
  int64_t integer(const json& v, const std::string& place, int64_t lo, int64_t hi) const {
    if (!v.is_number_integer() && !v.is_number_unsigned()) fail(place, "expected an integer, got " + what(v));
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi))
      fail(place, fmt::format("{} is out of range [{}, {}]", what(v), lo, hi));
    const int64_t x = v.get<int64_t>();
    if (x < lo || x > hi) fail(place, fmt::format("{} is out of range [{}, {}]", x, lo, hi));
    return x;
  }
  std::string string(const json& v, const std::string& place) const {
    if (!v.is_string() || v.get<std::string>().empty()) fail(place, "expected a non-empty string, got " + what(v));
    return v.get<std::string>();
  }
  double number(const json& v, const std::string& place) const {
    if (!v.is_number()) fail(place, "expected a number, got " + what(v));
    return v.get<double>();
  }
};

// A path in the manifest: "data:REL" is REL in the data folder ($CELLO_DATA or
// ../shared/data), an absolute path is itself, anything else is relative to the
// manifest's folder.
std::string resolve_path(const Reader& r, const std::string& given, const std::string& place) {
  if (given.rfind("data:", 0) == 0) {
    const std::string dir = traffic::find_data_dir();
    if (dir.empty()) r.fail(place, "no data folder for " + given + " (set CELLO_DATA)");
    return (fs::path(dir) / given.substr(5)).lexically_normal().string();
  }
  fs::path p(given);
  if (p.is_absolute()) return p.string();
  return (fs::path(r.file).parent_path() / p).lexically_normal().string();
}

void need_file(const Reader& r, const std::string& path, const std::string& place) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) r.fail(place, path + ": no such file");
}

// One axis's values: a list, or {"from", "to", "step"} / {"from", "to", "times"}.
std::vector<json> axis_values(const Reader& r, const json& v, const std::string& place) {
  if (v.is_array()) {
    if (v.empty()) r.fail(place, "no values");
    if (v.size() > kMaxValues) r.fail(place, fmt::format("more than {} values", kMaxValues));
    std::vector<json> out(v.begin(), v.end());
    std::set<std::string> seen;
    for (size_t i = 0; i < out.size(); ++i)
      if (!seen.insert(out[i].dump()).second) r.fail(fmt::format("{}[{}]", place, i), what(out[i]) + " is listed twice");
    return out;
  }
  if (!v.is_object()) r.fail(place, "expected a list of values or {\"from\", \"to\", \"step\" or \"times\"}, got " + what(v));
  r.only_keys(v, place, {"from", "to", "step", "times"});
  if (!v.contains("from") || !v.contains("to")) r.fail(place, "a range needs \"from\" and \"to\"");
  if (v.contains("step") == v.contains("times")) r.fail(place, "a range needs exactly one of \"step\" and \"times\"");
  const bool ints = v["from"].is_number_integer() && v["to"].is_number_integer() &&
                    (v.contains("step") ? v["step"].is_number_integer() : v["times"].is_number_integer());
  const double from = r.number(v["from"], place + ".from"), to = r.number(v["to"], place + ".to");
  if (to < from) r.fail(place + ".to", fmt::format("{} is below \"from\" ({})", what(v["to"]), what(v["from"])));
  std::vector<json> out;
  auto push = [&](double x) {
    if (out.size() >= kMaxValues) r.fail(place, fmt::format("the range has more than {} values", kMaxValues));
    if (ints) out.push_back(static_cast<int64_t>(std::llround(x)));
    else out.push_back(x);
  };
  if (v.contains("step")) {
    const double step = r.number(v["step"], place + ".step");
    if (!(step > 0)) r.fail(place + ".step", "must be above 0");
    if ((to - from) / step >= static_cast<double>(kMaxValues))
      r.fail(place, fmt::format("the range has more than {} values", kMaxValues));
    for (size_t i = 0;; ++i) {
      const double x = from + static_cast<double>(i) * step;
      if (x > to * (1 + 1e-12) + 1e-12) break;
      push(x);
    }
  } else {
    const double times = r.number(v["times"], place + ".times");
    if (!(times > 1)) r.fail(place + ".times", "must be above 1");
    if (!(from > 0)) r.fail(place + ".from", "a geometric range (\"times\") must start above 0");
    for (double x = from; x <= to * (1 + 1e-12); x *= times) push(x);
  }
  return out;
}

// A workload entry with every default filled in; `given` keeps the paths as
// written (the id is taken over it), `run` has them resolved.
void read_workload(const Reader& r, const json& w, const std::string& place, json& given, json& run) {
  if (!w.is_object()) r.fail(place, "expected an object {\"workload\": \"cg\", ...}, got " + what(w));
  r.only_keys(w, place, {"workload", "matrix", "grid", "dataset", "n", "o", "iters", "label"});
  if (!w.contains("workload")) r.fail(place, "missing \"workload\" (one of cg, bicgstab, gcn)");
  const std::string name = r.string(w["workload"], place + ".workload");
  if (std::find(workload_names().begin(), workload_names().end(), name) == workload_names().end())
    r.fail(place + ".workload", fmt::format("unknown workload \"{}\" (one of {})", name, fmt::join(workload_names(), ", ")));
  given = {{"workload", name}, {"matrix", ""}, {"dataset", ""}, {"grid", 16}, {"n", 0}, {"o", 0}, {"iters", 1}};
  if (w.contains("matrix")) given["matrix"] = r.string(w["matrix"], place + ".matrix");
  if (w.contains("dataset")) given["dataset"] = r.string(w["dataset"], place + ".dataset");
  if (w.contains("matrix") && w.contains("dataset")) r.fail(place, "give at most one of \"matrix\" and \"dataset\"");
  if (w.contains("dataset") && name != "gcn") r.fail(place + ".dataset", "only gcn reads a data set");
  if (w.contains("grid")) {
    if (w.contains("matrix") || w.contains("dataset")) r.fail(place + ".grid", "only applies to the generated matrix (no \"matrix\", no \"dataset\")");
    given["grid"] = r.integer(w["grid"], place + ".grid", 2, 512);
  }
  if (w.contains("n")) given["n"] = r.integer(w["n"], place + ".n", 1, 4096);
  if (w.contains("o")) {
    if (name != "gcn") r.fail(place + ".o", "only gcn has output features");
    given["o"] = r.integer(w["o"], place + ".o", 1, 4096);
  }
  if (w.contains("iters")) given["iters"] = r.integer(w["iters"], place + ".iters", 1, 100000);
  run = given;
  std::string source;
  if (!given["matrix"].get<std::string>().empty()) {
    const std::string m = resolve_path(r, given["matrix"], place + ".matrix");
    need_file(r, m, place + ".matrix");
    run["matrix"] = m;
    source = fs::path(given["matrix"].get<std::string>()).stem().string();
  } else if (!given["dataset"].get<std::string>().empty()) {
    const std::string d = given["dataset"];
    const size_t colon = d.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == d.size())
      r.fail(place + ".dataset", "expected KIND:DIR, e.g. cora:data:graphs/cora");
    const std::string dir = resolve_path(r, d.substr(colon + 1), place + ".dataset");
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) r.fail(place + ".dataset", dir + ": no such folder");
    run["dataset"] = d.substr(0, colon + 1) + dir;
    source = d.substr(0, colon);
  } else {
    source = fmt::format("hpcg{}", given["grid"].get<int>());
  }
  std::string label = fmt::format("{} {}", name, source);
  if (given["n"] != 0) label += fmt::format(" n{}", given["n"].get<int>());
  if (given["o"] != 0) label += fmt::format(" o{}", given["o"].get<int>());
  label += fmt::format(" i{}", given["iters"].get<int>());
  if (w.contains("label")) label = r.string(w["label"], place + ".label");
  given["label"] = run["label"] = label;
}

json read_base(const Reader& r, const json& m) {
  if (!m.contains("base")) return gen::default_hw_config_json();
  const json& b = m["base"];
  if (b.is_object()) return b;
  const std::string path = resolve_path(r, r.string(b, "base"), "base");
  need_file(r, path, "base");
  return gen::parse_json_file(path);
}

}  // namespace

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

const std::vector<std::string>& tool_names() {
  static const std::vector<std::string> t = {"exec", "model", "sim", "area"};
  return t;
}

json Point::to_json() const {
  return {{"id", id}, {"label", label}, {"at", at}, {"config", config}, {"workload", workload}, {"seed", seed}, {"tools", tools}};
}

Point Point::from_json(const json& j) {
  Point p;
  p.id = j.at("id").get<std::string>();
  p.label = j.at("label").get<std::string>();
  p.at = j.at("at");
  p.config = j.at("config");
  p.workload = j.at("workload");
  p.seed = j.at("seed").get<uint64_t>();
  p.tools = j.at("tools").get<std::vector<std::string>>();
  return p;
}

json Sweep::to_json() const {
  json axes_j = json::array(), pts = json::array();
  for (const auto& a : axes) axes_j.push_back({{"key", a.key}, {"values", a.values}});
  for (const auto& p : points) pts.push_back(p.to_json());
  return {{"sweep", name}, {"manifest", manifest}, {"tool_version", kToolVersion}, {"axes", axes_j},
          {"tools", tools}, {"area", area}, {"points", pts}};
}

Sweep Sweep::from_json(const json& j, const std::string& file) {
  try {
    Sweep s;
    s.name = j.at("sweep").get<std::string>();
    s.manifest = j.at("manifest").get<std::string>();
    if (j.at("tool_version").get<std::string>() != kToolVersion)
      throw Error(file, "tool_version",
                  fmt::format("written by {}, this cello is {}; run the sweep again into a new folder",
                              j.at("tool_version").get<std::string>(), kToolVersion));
    for (const auto& a : j.at("axes")) s.axes.push_back({a.at("key").get<std::string>(), a.at("values").get<std::vector<json>>()});
    s.tools = j.at("tools").get<std::vector<std::string>>();
    s.area = j.at("area");
    for (const auto& p : j.at("points")) s.points.push_back(Point::from_json(p));
    return s;
  } catch (const json::exception& e) {
    throw Error(file, "", fmt::format("not a sweep written by cello sweep run ({})", e.what()));
  }
}

const Point* Sweep::find(const std::string& id) const {
  for (const auto& p : points)
    if (p.id == id) return &p;
  return nullptr;
}

Sweep load_manifest(const std::string& path) {
  const Reader r{path};
  const json m = gen::parse_json_file(path);
  if (!m.is_object()) r.fail("", "a sweep manifest is a JSON object");
  r.only_keys(m, "", {"name", "base", "vary", "workloads", "run", "seeds", "area"});
  Sweep s;
  s.manifest = path;
  s.name = m.contains("name") ? r.string(m["name"], "name") : fs::path(path).stem().string();

  json base = read_base(r, m);
  gen::parse_hw_config(base, m.contains("base") && m["base"].is_string() ? resolve_path(r, m["base"], "base") : path + " (base)");
  if (!base.contains("top")) r.fail("base", "the base config has no \"top\" section; a sweep runs workloads on a top");

  std::vector<area::SweepAxis> axes;
  if (m.contains("vary")) {
    if (!m["vary"].is_object()) r.fail("vary", "expected an object {\"KEY.PATH\": [values] or {range}}");
    for (const auto& [key, v] : m["vary"].items()) {
      const std::string place = "vary." + key;
      axes.push_back(area::make_axis(key, axis_values(r, v, place), path, place));
      s.axes.push_back({key, axes.back().values});
    }
  }

  std::vector<json> given, run;
  if (!m.contains("workloads")) r.fail("workloads", "missing: list at least one workload, e.g. [{\"workload\": \"cg\", \"grid\": 8}]");
  if (!m["workloads"].is_array() || m["workloads"].empty()) r.fail("workloads", "expected a non-empty list of workloads");
  for (size_t i = 0; i < m["workloads"].size(); ++i) {
    json g, x;
    read_workload(r, m["workloads"][i], fmt::format("workloads[{}]", i), g, x);
    given.push_back(g);
    run.push_back(x);
  }

  s.tools = {"exec"};
  if (m.contains("run")) {
    if (!m["run"].is_array() || m["run"].empty()) r.fail("run", "expected a non-empty list of tools (exec, model, sim, area)");
    std::set<std::string> want;
    for (size_t i = 0; i < m["run"].size(); ++i) {
      const std::string t = r.string(m["run"][i], fmt::format("run[{}]", i));
      if (std::find(tool_names().begin(), tool_names().end(), t) == tool_names().end())
        r.fail(fmt::format("run[{}]", i), fmt::format("unknown tool \"{}\" (one of {})", t, fmt::join(tool_names(), ", ")));
      if (!want.insert(t).second) r.fail(fmt::format("run[{}]", i), "\"" + t + "\" is listed twice");
    }
    s.tools.clear();
    for (const auto& t : tool_names())
      if (want.count(t)) s.tools.push_back(t);
  }

  std::vector<uint64_t> seeds{1};
  if (m.contains("seeds")) {
    if (!m["seeds"].is_array() || m["seeds"].empty()) r.fail("seeds", "expected a non-empty list of seeds");
    seeds.clear();
    for (size_t i = 0; i < m["seeds"].size(); ++i) {
      const uint64_t x = static_cast<uint64_t>(r.integer(m["seeds"][i], fmt::format("seeds[{}]", i), 1, int64_t{1} << 62));
      if (std::find(seeds.begin(), seeds.end(), x) != seeds.end()) r.fail(fmt::format("seeds[{}]", i), "listed twice");
      seeds.push_back(x);
    }
  }

  if (m.contains("area")) {
    if (!m["area"].is_object()) r.fail("area", "expected an object {\"liberty\": PATH, \"period_ns\": NS}");
    r.only_keys(m["area"], "area", {"liberty", "period_ns"});
    if (m["area"].contains("liberty")) {
      const std::string lib = resolve_path(r, r.string(m["area"]["liberty"], "area.liberty"), "area.liberty");
      need_file(r, lib, "area.liberty");
      s.area["liberty"] = lib;
    }
    if (m["area"].contains("period_ns")) {
      const double p = r.number(m["area"]["period_ns"], "area.period_ns");
      if (!(p >= 0.1 && p <= 1e6)) r.fail("area.period_ns", "must be in [0.1, 1e6]");
      s.area["period_ns"] = p;
    }
  }

  std::vector<area::SweepPoint> configs;
  try {
    configs = area::expand_sweeps(base, axes);
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.rfind("--sweep: ", 0) == 0) why = why.substr(9);  // expand_sweeps speaks of --sweep: "KEY: reason"
    r.fail("vary", why);
  }
  if (configs.size() * given.size() * seeds.size() > kMaxPoints)
    r.fail("", fmt::format("{} points; a sweep has at most {}", configs.size() * given.size() * seeds.size(), kMaxPoints));
  std::set<std::string> ids;
  for (const auto& c : configs) {
    const std::string place = c.label.empty() ? std::string("base") : "vary (" + c.label + ")";
    json canonical;
    try {
      canonical = gen::parse_hw_config(c.config, "config").to_json();
    } catch (const Error& e) {
      std::string why = e.what();
      if (why.rfind("config: ", 0) == 0) why = why.substr(8);
      r.fail(place, why);
    }
    json at = json::object();
    for (size_t i = 0; i < axes.size(); ++i) at[axes[i].name()] = c.at[i];
    for (size_t w = 0; w < given.size(); ++w)
      for (uint64_t seed : seeds) {
        Point p;
        p.config = canonical;
        p.at = at;
        p.workload = run[w];
        p.seed = seed;
        p.tools = s.tools;
        p.id = gen::config_hash({{"config", canonical}, {"workload", given[w]}, {"seed", seed}, {"version", kToolVersion}});
        std::string label;
        for (size_t i = 0; i < axes.size(); ++i) label += axes[i].name() + "=" + value_text(c.at[i]) + " ";
        p.label = label + given[w]["label"].get<std::string>() + fmt::format(" seed {}", seed);
        if (!ids.insert(p.id).second)
          r.fail(place, fmt::format("two points are the same design, workload and seed ({}); a varied key changes nothing, or a workload is listed twice", p.label));
        s.points.push_back(std::move(p));
      }
  }
  return s;
}

Sweep load_sweep_dir(const std::string& dir) {
  const std::string file = (fs::path(dir) / "sweep.json").string();
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw Error(file, "", "no such file: not a folder cello sweep run wrote");
  return Sweep::from_json(gen::parse_json_file(file), file);
}

}  // namespace cello::cli::sweep
