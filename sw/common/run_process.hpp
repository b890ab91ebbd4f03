// Runs an external tool (yosys, sta, ...) from an argument vector: no shell, so
// paths with spaces or quotes pass through unchanged. Standard output and error
// both go to a log file (or, with an empty log path, to this program's own);
// standard input is /dev/null.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cello {

struct ProcessResult {
  int exit_code = -1;  // the tool's exit status; 128 + N when killed by signal N
  double seconds = 0;  // wall time
};

// argv[0] is looked up on PATH unless it contains a '/'. Throws cello::Error
// "<tool>: not found (...)" when the program cannot be started, naming `hint`
// (e.g. "apt-get install opensta") when given.
// `cwd` (when not empty) is the tool's working directory.
ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& log,
                          const std::string& hint = "", const std::filesystem::path& cwd = {});

// True when `program` can be found (on PATH, or as a path to an executable).
bool program_available(const std::string& program);

// Quotes a path for a Yosys script command ("..."); throws cello::Error when the
// path holds a character Yosys cannot take inside quotes (", newline, NUL).
std::string yosys_quote(const std::string& path);

}  // namespace cello
