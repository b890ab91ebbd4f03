#include "sw/cli/commands.hpp"
#include "sw/cli/output_files.hpp"

namespace cello::cli {

void write_json_report(const std::string& path, const nlohmann::json& report) {
  if (path.empty()) return;
  write_output_file(path, report.dump(2) + "\n");
}

}  // namespace cello::cli
