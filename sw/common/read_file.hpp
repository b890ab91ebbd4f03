// Every input file is read here, with a size cap, so that /dev/zero, a FIFO,
// a directory or a huge file is refused with one line instead of blocking or
// growing without bound:
//   - the path is looked at with stat() before it is opened (opening a FIFO
//     that has no writer would block), and anything but a regular file is
//     refused, naming what it is;
//   - a regular file longer than the cap, or than the memory budget
//     (sw/common/limits.hpp), is refused from its size alone;
//   - at most cap + 1 bytes are read, so a file that grows while it is read
//     is refused as soon as it passes the cap.
// Header-only: the configure-time generator build uses it without cello_sw.
#pragma once

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "sw/common/error.hpp"
#include "sw/common/limits.hpp"

namespace cello {

// "a FIFO", "a character device"...: what a file that is not regular is.
inline std::string file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISREG(mode)) return "a regular file";
  return "a special file";
}

// Throws unless `path` names a regular file (symlinks are followed); `what`
// names the kind of input in the message ("hardware config", ".cello DAG").
inline struct stat stat_input_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error(path, "", fmt::format("cannot open file ({})", std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) throw Error(path, "", "is a directory, not a " + what + " file");
  if (!S_ISREG(st.st_mode))
    throw Error(path, "", fmt::format("is {}, not a regular {} file", file_kind(st.st_mode), what));
  return st;
}

namespace detail {

// Appends the whole file to `out` (a std::string or a byte vector).
template <class Bytes>
void read_input_into(const std::string& path, uint64_t max_bytes, const std::string& what, Bytes& out) {
  const auto too_long = [&] {
    return Error(path, "", fmt::format("longer than {}, the limit for a {} file", limits::human_bytes(max_bytes), what));
  };
  const struct stat st = stat_input_file(path, what);
  if (static_cast<uint64_t>(st.st_size) > max_bytes) throw too_long();
  limits::check_memory(static_cast<uint64_t>(st.st_size), path, "", "reading this " + what + " file");
  // O_NONBLOCK: should the path be replaced by a FIFO after the stat, open()
  // still returns, and the fstat below refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw Error(path, "", fmt::format("cannot open file ({})", std::strerror(errno)));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat now {};
  if (::fstat(fd, &now) != 0 || !S_ISREG(now.st_mode))
    throw Error(path, "", fmt::format("is {}, not a regular {} file", file_kind(now.st_mode), what));
  out.reserve(static_cast<size_t>(now.st_size));
  char buf[1 << 16];
  uint64_t total = 0;
  while (true) {
    // Never more than cap + 1 bytes in all: one byte past the cap is enough to refuse.
    const uint64_t left = max_bytes - total;
    const ssize_t n = ::read(fd, buf, left >= sizeof buf ? sizeof buf : static_cast<size_t>(left) + 1);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(path, "", fmt::format("read error ({})", std::strerror(errno)));
    }
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    if (total > max_bytes) throw too_long();
    out.insert(out.end(), buf, buf + n);
  }
}

}  // namespace detail

// The whole file as text.
inline std::string read_file_capped(const std::string& path, uint64_t max_bytes, const std::string& what) {
  std::string out;
  detail::read_input_into(path, max_bytes, what, out);
  return out;
}

// The whole file as bytes.
inline std::vector<uint8_t> read_bytes_capped(const std::string& path, uint64_t max_bytes, const std::string& what) {
  std::vector<uint8_t> out;
  detail::read_input_into(path, max_bytes, what, out);
  return out;
}

}  // namespace cello
