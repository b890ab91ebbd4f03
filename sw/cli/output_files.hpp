// Output files of the subcommands. Every output is claimed before the work
// starts: its folder is created and a file is created in it and removed (a
// path that cannot be written fails in a second, not after the run), and it
// may not be the same file as an input or another output (sw/common/run_files.hpp).
// Every output is written by one writer (sw/common/output_file.hpp): a
// temporary file renamed into place, and any write error is an error.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace cello::cli {

// Throws cello::Error naming `option` and the path when the file cannot be
// created (its folder is created when missing), or when it is an input or
// another option's output. Empty path: nothing to check.
void check_output_path(const std::string& path, const std::string& option);

// Writes `text` to `path` (creating its folder) through the one writer; throws
// cello::Error when any byte cannot be written or the file cannot be closed.
void write_output_file(const std::string& path, const std::string& text);

// True for the options whose values are outputs (files or folders written).
bool is_output_option(const CLI::Option& opt);

// Records as inputs the files named by every other option (and positional) of
// the parsed subcommands of `app`, and refuses an output claimed already that
// is one of them. main() calls it once the command line is parsed, before any
// subcommand runs.
void note_command_line_inputs(const CLI::App& app);

}  // namespace cello::cli
