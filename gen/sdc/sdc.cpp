#include "gen/sdc/sdc.hpp"

#include <fmt/format.h>

#include "sw/common/error.hpp"
#include "sw/common/output_file.hpp"

namespace cello::gen {

namespace {
void replace_all(std::string& s, const std::string& key, const std::string& value) {
  for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + value.size()))
    s.replace(at, key.size(), value);
}
}  // namespace

std::string block_sdc(const std::string& module, const SdcOptions& o) {
  std::string s = sdc_template("block");
  const double io = o.period_ns * o.io_delay_fraction;
  replace_all(s, "@MODULE@", module);
  replace_all(s, "@PERIOD@", fmt::format("{:g}", o.period_ns));
  replace_all(s, "@CLOCK@", o.clock_port);
  replace_all(s, "@INPUT_DELAY@", fmt::format("{:g}", io));
  replace_all(s, "@OUTPUT_DELAY@", fmt::format("{:g}", io));
  replace_all(s, "@DRIVING_CELL@", o.driving_cell);
  replace_all(s, "@LOAD@", fmt::format("{:g}", o.load_pf));
  return s;
}

std::vector<std::filesystem::path> write_block_sdcs(const Design& design, const SdcOptions& o,
                                                    const std::filesystem::path& out_dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& b : design.blocks) {
    const std::string module = b.value("module", "");
    if (module.empty()) continue;
    auto path = out_dir / (module + ".sdc");
    std::string text = block_sdc(module, o);
    write_output_if_changed(path.string(), text);
    out.push_back(path);
  }
  return out;
}

}  // namespace cello::gen
