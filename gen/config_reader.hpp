// Validating reader over one JSON object of a hardware config. Every accessor
// checks the type and range of a key and throws cello::Error naming the file,
// the key path (e.g. "buffets[2].depth") and the reason. finish() rejects keys
// that no accessor asked for, so typos never pass silently. identifier() is the
// one check of a name that becomes SystemVerilog (a module or the design).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace cello::gen {

// What an identifier() key names; it words the errors.
enum class NameKind {
  module,  // a block's module: "must start with a letter", "module name \"x\" is a SystemVerilog keyword"
  design,  // the config's own name: any bad spelling is "not a valid SystemVerilog identifier",
           // a reserved word "design name \"x\" is a SystemVerilog keyword"
};

class ConfigReader {
 public:
  ConfigReader(const nlohmann::json& obj, std::string file, std::string path);

  bool has(const std::string& key) const;
  int64_t integer(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  int64_t required_integer(const std::string& key, int64_t min, int64_t max);
  double number(const std::string& key, double fallback, double min, double max);
  bool boolean(const std::string& key, bool fallback);
  std::string string(const std::string& key, const std::string& fallback);
  std::string choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& allowed);
  // A string that must be a legal SystemVerilog identifier (a letter, then
  // letters, digits and '_') and no reserved word (sv_keywords.hpp); the fallback
  // is checked too.
  std::string identifier(const std::string& key, const std::string& fallback, NameKind kind = NameKind::module);
  ConfigReader object(const std::string& key);
  std::vector<ConfigReader> objects(const std::string& key);

  // Throws for any key that was present but never read.
  void finish() const;
  [[noreturn]] void fail(const std::string& key, const std::string& reason) const;
  std::string where(const std::string& key) const;
  const std::string& file() const { return file_; }

 private:
  const nlohmann::json* lookup(const std::string& key);
  const nlohmann::json& obj_;
  std::string file_, path_;
  std::set<std::string> used_;
};

// Limits on a JSON input: its size and nesting depth.
constexpr uint64_t kMaxJsonBytes = uint64_t{16} << 20;
constexpr int kMaxJsonDepth = 64;

// Parses JSON text, turning syntax errors (and too deep nesting) into one-line
// cello::Error naming `path`.
nlohmann::json parse_json_text(const std::string& text, const std::string& path);
// Reads (at most kMaxJsonBytes) and parses a JSON file.
nlohmann::json parse_json_file(const std::string& path);
// A JSON value for an error message, cut to 60 characters.
std::string short_json(const nlohmann::json& v);

}  // namespace cello::gen
