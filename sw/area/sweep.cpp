#include "sw/area/sweep.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sw/common/error.hpp"

namespace cello::area {

namespace {
// The block lists of the hardware config (gen/hw_config.cpp) a sweep may vary,
// and the top's section (one object).
const std::vector<std::string>& sections() {
  static const std::vector<std::string> s = {"buffets", "chords", "mac_arrays", "regfiles", "pipeline_buffers", "buffet_groups", "top"};
  return s;
}

// Splits "SECTION.KEY" (or a bare top-level "KEY") into the axis.
void set_path(SweepAxis& a, const std::string& path, const std::string& file, const std::string& place) {
  size_t dot = path.find('.');
  if (path.empty()) throw Error(file, place, "empty key path");
  if (dot == std::string::npos) {
    a.key = path;
    return;
  }
  a.section = path.substr(0, dot);
  a.key = path.substr(dot + 1);
  if (std::find(sections().begin(), sections().end(), a.section) == sections().end())
    throw Error(file, place, fmt::format("unknown section \"{}\" (one of {})", a.section, fmt::join(sections(), ", ")));
  if (a.key.empty() || a.key.find('.') != std::string::npos) throw Error(file, place, "expected SECTION.KEY");
}

nlohmann::json parse_value(const std::string& spec, const std::string& token) {
  if (token.empty()) throw Error("--sweep", spec, "empty value");
  nlohmann::json v = nlohmann::json::parse(token, nullptr, false);
  if (v.is_discarded() || v.is_object() || v.is_array() || v.is_null()) return token;  // a bare word: a string
  return v;
}
}  // namespace

SweepAxis parse_sweep(const std::string& spec) {
  SweepAxis a;
  a.spec = spec;
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) throw Error("--sweep", spec, "expected KEY=v1,v2,... (e.g. buffets.depth=64,256)");
  std::string path = spec.substr(0, eq), list = spec.substr(eq + 1);
  set_path(a, path, "--sweep", spec);
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    a.values.push_back(parse_value(spec, list.substr(start, comma - start)));
    start = comma + 1;
  }
  return a;
}

SweepAxis make_axis(const std::string& path, std::vector<nlohmann::json> values, const std::string& file,
                    const std::string& place) {
  SweepAxis a;
  a.spec = path;
  set_path(a, path, file, place);
  if (values.empty()) throw Error(file, place, "no values");
  for (const auto& v : values)
    if (v.is_object() || v.is_array() || v.is_null()) throw Error(file, place, "a value must be a number, a string or a boolean, not " + v.dump());
  a.values = std::move(values);
  return a;
}

std::vector<SweepPoint> expand_sweeps(const nlohmann::json& base, const std::vector<SweepAxis>& axes) {
  for (const auto& a : axes) {
    if (a.section == "top") {
      if (!base.contains("top") || !base["top"].is_object())
        throw Error("--sweep", a.spec, "the config has no \"top\" section to sweep");
    } else if (!a.section.empty() && (!base.contains(a.section) || !base[a.section].is_array() || base[a.section].empty())) {
      throw Error("--sweep", a.spec, "the config has no \"" + a.section + "\" blocks to sweep");
    }
  }
  std::vector<SweepPoint> out;
  std::vector<size_t> idx(axes.size(), 0);
  while (true) {
    SweepPoint p;
    p.config = base;
    for (size_t i = 0; i < axes.size(); ++i) {
      const auto& a = axes[i];
      const auto& v = a.values[idx[i]];
      if (a.section.empty()) p.config[a.key] = v;
      else if (a.section == "top") p.config["top"][a.key] = v;
      else
        for (auto& block : p.config[a.section]) block[a.key] = v;
      p.at.push_back(v);
      if (!p.label.empty()) p.label += ' ';
      p.label += a.name();
      p.label += '=';
      p.label += v.is_string() ? v.get<std::string>() : v.dump();
    }
    out.push_back(std::move(p));
    // Odometer: the last axis varies fastest.
    size_t k = axes.size();
    while (k > 0) {
      --k;
      if (++idx[k] < axes[k].values.size()) break;
      idx[k] = 0;
      if (k == 0) return out;
    }
    if (axes.empty()) return out;
  }
}

}  // namespace cello::area
