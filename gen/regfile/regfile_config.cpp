#include "regfile/regfile_config.hpp"

#include <fmt/format.h>

#include <cctype>

#include "sv_module.hpp"

namespace cello::gen {

int RegfileConfig::row_width() const { return bits_for(rows - 1); }

nlohmann::json RegfileConfig::to_json() const { return {{"name", name}, {"rows", rows}, {"cols", cols}}; }

void check_module_name(ConfigReader& r, const std::string& key, const std::string& name) {
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) r.fail(key, "must start with a letter");
  for (char ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_')
      r.fail(key, fmt::format("\"{}\" is not a valid SystemVerilog identifier", name));
}

RegfileConfig RegfileConfig::parse(ConfigReader& r) {
  RegfileConfig c;
  c.name = r.string("name", c.name);
  check_module_name(r, "name", c.name);
  c.rows = static_cast<int>(r.integer("rows", c.rows, 1, 16));
  c.cols = static_cast<int>(r.integer("cols", c.cols, 1, 16));
  r.finish();
  return c;
}

}  // namespace cello::gen
