#include <fstream>

#include "cli/commands.hpp"
#include "common/error.hpp"

namespace cello::cli {

void write_json_report(const std::string& path, const nlohmann::json& report) {
  if (path.empty()) return;
  std::ofstream out(path);
  if (!out) throw Error(path, "", "cannot write JSON report");
  out << report.dump(2) << "\n";
}

}  // namespace cello::cli
