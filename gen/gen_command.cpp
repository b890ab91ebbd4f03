#include "gen/gen_command.hpp"

#include "gen/config_reader.hpp"
#include "gen/sdc/sdc.hpp"

namespace cello::gen {

GenResult run_gen(const std::string& config_path, const std::string& out_dir, double period_ns) {
  nlohmann::json raw = config_path.empty() ? default_hw_config_json() : parse_json_file(config_path);
  GenResult r;
  r.config = parse_hw_config(raw, config_path.empty() ? "<default config>" : config_path);
  nlohmann::json canonical = r.config.to_json();
  Design d = generate_design(r.config);
  r.files = write_design(d, canonical, out_dir).size();
  SdcOptions sdc;
  sdc.period_ns = r.period_ns = period_ns > 0 ? period_ns : r.config.clock_period_ns;
  r.sdc_files = write_block_sdcs(d, sdc, out_dir).size();
  r.out_dir = out_dir;
  r.hash = config_hash(canonical);
  r.blocks = d.blocks;
  return r;
}

}  // namespace cello::gen
