#include "sw/synth/yosys_run.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "sw/common/error.hpp"
#include "sw/common/output_file.hpp"
#include "sw/common/run_process.hpp"

namespace cello::synth {

namespace fs = std::filesystem;

namespace {

constexpr const char* kInstallHint = "apt-get install yosys";

}  // namespace

void require_yosys(const std::string& yosys) {
  if (!program_available(yosys)) throw Error(yosys, "", fmt::format("not found on PATH ({})", kInstallHint));
}

YosysRun run_yosys(const YosysJob& job) {
  require_yosys(job.yosys);
  write_output(job.script_file.string(), job.script);
  const fs::path log = fs::absolute(job.log);
  const fs::path terminal = fs::path(log).replace_extension(".out");
  auto p = run_process({job.yosys, "-q", "-l", log.string(), "-s", fs::absolute(job.script_file).string()}, terminal,
                       kInstallHint, job.cwd);
  if (p.exit_code != 0)
    throw Error(job.log.string(), job.top,
                fmt::format("yosys failed (exit {}) running {}, see the log", p.exit_code, job.script_file.string()));
  YosysRun r;
  r.seconds = p.seconds;
  std::ifstream in(log, std::ios::binary);
  if (!in) throw Error(job.log.string(), job.top, "yosys wrote no log");
  std::stringstream ss;
  ss << in.rdbuf();
  r.log = ss.str();
  return r;
}

}  // namespace cello::synth
