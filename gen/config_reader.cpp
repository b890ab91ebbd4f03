#include "gen/config_reader.hpp"

#include <fmt/format.h>

#include <cctype>

#include "sw/common/error.hpp"
#include "sw/common/read_file.hpp"
#include "gen/sv_keywords.hpp"

namespace cello::gen {

ConfigReader::ConfigReader(const nlohmann::json& obj, std::string file, std::string path)
    : obj_(obj), file_(std::move(file)), path_(std::move(path)) {
  if (!obj_.is_object()) throw Error(file_, path_.empty() ? "top level" : path_, "expected a JSON object");
}

std::string ConfigReader::where(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

void ConfigReader::fail(const std::string& key, const std::string& reason) const {
  throw Error(file_, where(key), reason);
}

bool ConfigReader::has(const std::string& key) const { return obj_.contains(key); }

const nlohmann::json* ConfigReader::lookup(const std::string& key) {
  used_.insert(key);
  auto it = obj_.find(key);
  return it == obj_.end() ? nullptr : &*it;
}

int64_t ConfigReader::integer(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  const auto* v = lookup(key);
  if (!v) return fallback;
  if (!v->is_number_integer()) fail(key, fmt::format("expected an integer, got {}", short_json(*v)));
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    fail(key, fmt::format("value {} is out of range [{}, {}]", short_json(*v), min, max));
  int64_t x = v->get<int64_t>();
  if (x < min || x > max) fail(key, fmt::format("value {} is out of range [{}, {}]", x, min, max));
  return x;
}

int64_t ConfigReader::required_integer(const std::string& key, int64_t min, int64_t max) {
  if (!has(key)) fail(key, "required key is missing");
  return integer(key, 0, min, max);
}

double ConfigReader::number(const std::string& key, double fallback, double min, double max) {
  const auto* v = lookup(key);
  if (!v) return fallback;
  if (!v->is_number()) fail(key, fmt::format("expected a number, got {}", v->dump()));
  double x = v->get<double>();
  if (!(x >= min && x <= max)) fail(key, fmt::format("value {} is out of range [{:g}, {:g}]", v->dump(), min, max));
  return x;
}

bool ConfigReader::boolean(const std::string& key, bool fallback) {
  const auto* v = lookup(key);
  if (!v) return fallback;
  if (!v->is_boolean()) fail(key, fmt::format("expected true or false, got {}", short_json(*v)));
  return v->get<bool>();
}

std::string ConfigReader::string(const std::string& key, const std::string& fallback) {
  const auto* v = lookup(key);
  if (!v) return fallback;
  if (!v->is_string()) fail(key, fmt::format("expected a string, got {}", short_json(*v)));
  return v->get<std::string>();
}

std::string ConfigReader::choice(const std::string& key, const std::string& fallback,
                                 const std::vector<std::string>& allowed) {
  std::string s = string(key, fallback);
  for (const auto& a : allowed)
    if (a == s) return s;
  fail(key, fmt::format("\"{}\" is not one of {}", s, fmt::join(allowed, ", ")));
}

std::string ConfigReader::identifier(const std::string& key, const std::string& fallback, NameKind kind) {
  std::string s = string(key, fallback);
  const bool design = kind == NameKind::design;
  const std::string invalid = fmt::format("\"{}\" is not a valid SystemVerilog identifier", s);
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0])))
    fail(key, design ? invalid : "must start with a letter");
  for (char ch : s)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') fail(key, invalid);
  if (is_sv_keyword(s))
    fail(key, fmt::format("{} name \"{}\" is a SystemVerilog keyword", design ? "design" : "module", s));
  return s;
}

ConfigReader ConfigReader::object(const std::string& key) {
  const auto* v = lookup(key);
  static const nlohmann::json empty = nlohmann::json::object();
  if (!v) return ConfigReader(empty, file_, where(key));
  if (!v->is_object()) fail(key, fmt::format("expected an object, got {}", v->type_name()));
  return ConfigReader(*v, file_, where(key));
}

std::vector<ConfigReader> ConfigReader::objects(const std::string& key) {
  std::vector<ConfigReader> out;
  const auto* v = lookup(key);
  if (!v) return out;
  if (!v->is_array()) fail(key, fmt::format("expected an array, got {}", v->type_name()));
  for (size_t i = 0; i < v->size(); ++i) out.emplace_back((*v)[i], file_, fmt::format("{}[{}]", where(key), i));
  return out;
}

void ConfigReader::finish() const {
  for (const auto& [k, v] : obj_.items())
    if (!used_.count(k)) fail(k, "unknown key");
}

nlohmann::json parse_json_text(const std::string& text, const std::string& path) {
  // Nesting is capped so that a hostile file cannot exhaust the stack of code
  // that walks the tree; real configs nest 3 levels.
  auto depth_guard = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonDepth)
      throw Error(path, "", fmt::format("invalid JSON: nested deeper than {} levels", kMaxJsonDepth));
    return true;
  };
  try {
    return nlohmann::json::parse(text, depth_guard);
  } catch (const nlohmann::json::exception& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: ..."
    // (or out_of_range.406 "number overflow parsing '1e400'").
    std::string msg = e.what();
    auto pos = msg.find("] ");
    throw Error(path, "", "invalid JSON: " + (pos == std::string::npos ? msg : msg.substr(pos + 2)));
  }
}

nlohmann::json parse_json_file(const std::string& path) {
  return parse_json_text(read_file_capped(path, kMaxJsonBytes, "JSON"), path);
}

std::string short_json(const nlohmann::json& v) {
  std::string s = v.dump();
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

}  // namespace cello::gen
