// Reads a whole input file with a size cap, so that /dev/zero, a FIFO or a huge
// file is refused with one line instead of growing without bound.
// Header-only: the configure-time generator build uses it without cello_sw.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "sw/common/error.hpp"
#include "sw/common/limits.hpp"

namespace cello {

// `what` names the kind of file in the message ("hardware config", ".cello DAG").
inline std::string read_file_capped(const std::string& path, uint64_t max_bytes, const std::string& what) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path, "", "is a directory, not a " + what + " file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path, "", "cannot open file");
  std::string out;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    out.append(buf, static_cast<size_t>(in.gcount()));
    if (out.size() > max_bytes)
      throw Error(path, "", fmt::format("longer than {}, the limit for a {} file", limits::human_bytes(max_bytes), what));
  }
  if (in.bad()) throw Error(path, "", "read error");
  return out;
}

}  // namespace cello
