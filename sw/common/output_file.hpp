// The one writer of every output file (reports, generated RTL, command
// streams, images, charts, tool scripts). A regular file is written to a
// temporary file in its own folder and renamed into place once every byte is
// written and the file is closed, so a failed run never leaves a half-written
// file where a good one was. A write, close or rename error is a one-line
// cello::Error, and the temporary file is removed.
//
// An output that exists and is a character device or a FIFO (/dev/null,
// /dev/stdout, /dev/full, a pipe) is written in place: there is no file to
// replace, and its write errors are refused the same way. A FIFO without a
// reader is refused at once instead of waiting for one. A directory, a block
// device or a socket is refused.
//
// Before it writes, the writer asks run_files (sw/common/run_files.hpp)
// whether the path is an input of the run or a file another output has written.
// Header-only: the configure-time generator build writes through it.
#pragma once

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>

#include "sw/common/error.hpp"
#include "sw/common/read_file.hpp"
#include "sw/common/run_files.hpp"

namespace cello {

class OutputFile {
 public:
  // `label` names the option the file comes from in messages ("--json"); the
  // option that claimed the path is used when there is one.
  OutputFile(const std::string& path, const std::string& label = "") : path_(path) {
    label_ = run_files::before_write(path, label);
    namespace fs = std::filesystem;
    const fs::path parent = fs::path(path).parent_path();
    if (!parent.empty()) {
      std::error_code ec;
      fs::create_directories(parent, ec);
      if (ec) fail(fmt::format("cannot create its folder {} ({})", parent.string(), ec.message()));
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) fail("is a directory, not a file");
      if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
        open_in_place(S_ISFIFO(st.st_mode));
        return;
      }
      if (!S_ISREG(st.st_mode))
        fail(fmt::format("is {}; an output must be a regular file, a character device or a FIFO", file_kind(st.st_mode)));
    }
    open_temporary(st.st_mode != 0 ? &st : nullptr);
  }
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile() { abandon(); }

  void write(const void* data, size_t size) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      const ssize_t n = ::write(fd_, p, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail_write(n < 0 ? errno : EIO);
      p += n;
      size -= static_cast<size_t>(n);
    }
  }
  void write(std::string_view text) { write(text.data(), text.size()); }

  // Closes the file and, for a regular file, renames it into place.
  void commit() {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail_write(errno);
    if (temp_.empty()) return;
    if (::rename(temp_.c_str(), target_.c_str()) != 0) {
      const int err = errno;
      abandon();
      fail(fmt::format("cannot replace the file ({})", std::strerror(err)));
    }
    temp_.clear();
  }

 private:
  [[noreturn]] void fail(const std::string& why) { throw Error(path_, label_, why); }
  [[noreturn]] void fail_write(int err) {
    abandon();
    fail(fmt::format("write failed ({}){}", std::strerror(err),
                     temp_was_used_ ? "; the file was left as it was" : ""));
  }
  void abandon() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    if (!temp_.empty()) ::unlink(temp_.c_str());
    temp_.clear();
  }
  void open_in_place(bool fifo) {
    // O_NONBLOCK: opening a FIFO that nobody reads fails (ENXIO) instead of waiting.
    fd_ = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
      if (fifo && errno == ENXIO) fail("is a FIFO that no process reads");
      fail(fmt::format("cannot open file ({})", std::strerror(errno)));
    }
    ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  }
  void open_temporary(const struct stat* existing) {
    namespace fs = std::filesystem;
    // Through a symlink to an existing file: replace the file, keep the link.
    std::error_code ec;
    const fs::path target = existing ? fs::canonical(path_, ec) : fs::path(path_);
    target_ = ec ? path_ : target.string();
    static std::atomic<unsigned> counter{0};
    const fs::path dir = fs::path(target_).parent_path();
    for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
      temp_ = (dir / fmt::format(".{}.tmp.{}.{}", fs::path(target_).filename().string(), ::getpid(), counter++)).string();
      fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ < 0 && errno != EEXIST) break;
    }
    if (fd_ < 0) {
      const int err = errno;
      temp_.clear();
      fail(fmt::format("cannot create file in folder {} ({})", dir.empty() ? std::string(".") : dir.string(),
                       std::strerror(err)));
    }
    temp_was_used_ = true;
    if (existing) (void)::fchmod(fd_, existing->st_mode & 07777);  // the replaced file's permissions
  }

  std::string path_, label_, target_, temp_;
  int fd_ = -1;
  bool temp_was_used_ = false;
};

// Writes `bytes` to `path` (creating its folder) through OutputFile.
inline void write_output(const std::string& path, std::string_view bytes, const std::string& label = "") {
  OutputFile f(path, label);
  f.write(bytes);
  f.commit();
}

// Same, but a regular file that already holds `text` is left untouched (its
// time stamp too, so an unchanged generated design does not make downstream
// builds stale). It still counts as written for the checks of run_files.
inline void write_output_if_changed(const std::string& path, std::string_view text, const std::string& label = "") {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) == text.size()) {
    bool same = false;
    try {
      same = read_file_capped(path, text.size(), "generated") == text;
    } catch (const Error&) {
    }
    if (same) {
      (void)run_files::before_write(path, label);
      return;
    }
  }
  write_output(path, text, label);
}

}  // namespace cello
