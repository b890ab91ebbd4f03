// The one way the project runs Yosys: a script written to a file, the tool run
// from an argument vector (common/run_process.hpp) with its full log kept, and
// one-line errors that name the log and the script. The generic statistics
// (yosys_stat.hpp) and the liberty flow of `cello area` (synth_flow.hpp) build
// on it.
#pragma once

#include <filesystem>
#include <string>

namespace cello::synth {

// One Yosys run. The script is written to `script_file`; Yosys runs as
// `yosys -q -l <log> -s <script_file>`, its terminal output (warnings, errors)
// going to <log> with the extension ".out".
struct YosysJob {
  std::string script;                 // one command per line
  std::filesystem::path script_file;  // e.g. <dir>/<top>.ys
  std::filesystem::path log;          // e.g. <dir>/<top>.yosys.log
  std::string top;                    // names the run in errors (the top module)
  std::string yosys = "yosys";        // executable: on PATH, or a path
  std::filesystem::path cwd;          // working directory of Yosys; empty: this program's
};

struct YosysRun {
  std::string log;     // the text of the log
  double seconds = 0;  // wall time of the Yosys process
};

// Throws cello::Error "<yosys>: not found on PATH (apt-get install yosys)" when
// the executable cannot be found, so a command can fail before any work.
void require_yosys(const std::string& yosys);

// Runs the job and returns its log. Throws cello::Error when Yosys is missing
// (as require_yosys), when the script cannot be written, and
// "<log>: <top>: yosys failed (exit N) running <script_file>, see the log"
// when Yosys fails.
YosysRun run_yosys(const YosysJob& job);

}  // namespace cello::synth
