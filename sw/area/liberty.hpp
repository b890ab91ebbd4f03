// Finds the sky130 HD typical-corner liberty the area flow maps to, and
// unpacks it once when it is gzip-compressed (Yosys and OpenSTA read plain text).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace cello::area {

inline constexpr const char* kLibertyName = "sky130_fd_sc_hd__tt_025C_1v80.lib";

// `given` (a .lib or .lib.gz) when not empty; else <data>/liberty/ where <data>
// is $CELLO_DATA or a shared/data folder found upward from the working directory
// or the executable. Throws cello::Error (one line) when nothing is found.
std::filesystem::path find_liberty(const std::string& given);

// The largest unpacked liberty (the sky130 HD one is about 13 MB): a gzip bomb
// is refused instead of filling the disk.
inline constexpr uint64_t kMaxLibertyBytes = uint64_t{1} << 30;

// A plain-text copy of `lib` in `cache_dir` (or `lib` itself when not .gz).
// Throws cello::Error when it unpacks to more than max_bytes (no copy is left).
std::filesystem::path unpacked_liberty(const std::filesystem::path& lib, const std::filesystem::path& cache_dir,
                                       uint64_t max_bytes = kMaxLibertyBytes);

}  // namespace cello::area
