// A test's run of a command-line program (the cello CLI): its exit code and
// everything it printed, stdout and stderr together, through a log file
// <work>/<tag>.log.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sw/common/run_process.hpp"

namespace cello::test {

// The file's text ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct CliRun {
  int code;
  std::string output;
};

inline CliRun run_cli(const std::string& program, const std::filesystem::path& work, const std::vector<std::string>& args,
                      const std::string& tag) {
  std::filesystem::create_directories(work);
  std::vector<std::string> argv{program};
  argv.insert(argv.end(), args.begin(), args.end());
  const std::filesystem::path log = work / (tag + ".log");
  const auto r = run_process(argv, log);
  return {r.exit_code, slurp(log)};
}

}  // namespace cello::test
