// Runs an external tool (yosys, verilator...) from an argument vector, never
// through a shell: paths with spaces, quotes or ';' reach the tool unchanged and
// cannot inject commands.
#pragma once

#include <string>
#include <vector>

namespace cello {

// Runs argv[0] (looked up in PATH when it has no '/') with its standard output
// and error sent to `output` (a file, truncated; "" = /dev/null). Returns the
// exit status; -1 when the program could not be started or was killed.
int run_process(const std::vector<std::string>& argv, const std::string& output = "");

// Quotes a path for a Yosys script command ("..."); throws cello::Error when the
// path holds a character Yosys cannot take inside quotes (", newline, NUL).
std::string yosys_quote(const std::string& path);

}  // namespace cello
