// The `sim` tool of a sweep point in a build without the simulator (the
// sanitizer build, sw/cli/CMakeLists.txt): refused with a one-line error.
#include "sw/cli/sweep_point.hpp"
#include "sw/common/error.hpp"

namespace cello::cli::sweep {

nlohmann::json run_sim_tool(const std::string&, const Point&, const PointOptions&) {
  throw Error("", "sim", "this cello is built without the simulator (a sanitizer build); run sim points with the main build");
}

}  // namespace cello::cli::sweep
