// Output files of the subcommands. Paths are checked before the work starts
// (a path that cannot be created fails in a second, not after the run), and a
// write that fails (full disk, /dev/full) is an error, never a silent loss.
#pragma once

#include <string>

namespace cello::cli {

// Throws cello::Error naming `option` and the path when the file cannot be
// created (its folder is created when missing). Empty path: nothing to check.
void check_output_path(const std::string& path, const std::string& option);

// Writes `text` to `path` (creating its folder); throws cello::Error when any
// byte cannot be written or the file cannot be closed.
void write_output_file(const std::string& path, const std::string& text);

}  // namespace cello::cli
