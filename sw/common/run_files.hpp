// The files of one run of `cello`: the inputs named on its command line and
// the outputs its options name (claimed before the work starts). An output may
// not be the same file as an input, nor as another option's output. Two paths
// name the same file when they resolve to the same absolute path (".", "..",
// symlinks) or, for files that exist, when they have the same device and inode
// (a symlink or a hard link to the file).
//
// Outputs that are character devices or FIFOs (/dev/null, /dev/stdout, a pipe)
// are written in place and lose nothing when several options name them, so
// they are not compared with each other; an input is always a regular file
// (sw/common/read_file.hpp), so no input can be one of them.
// Header-only: the configure-time generator build writes through it.
#pragma once

#include <fmt/format.h>
#include <sys/stat.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <vector>

#include "sw/common/error.hpp"

namespace cello::run_files {

struct FileId {
  std::string given;     // the path as written
  std::string resolved;  // absolute, with symlinks resolved as far as the path exists
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  mode_t mode = 0;
  // Written in place and never compared with other outputs (see above).
  bool device() const { return exists && (S_ISCHR(mode) || S_ISFIFO(mode)); }
};

inline FileId identify(const std::string& path) {
  FileId id;
  id.given = path;
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  if (!ec) abs = std::filesystem::weakly_canonical(abs, ec);
  id.resolved = ec ? path : abs.lexically_normal().string();
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    id.mode = st.st_mode;
  }
  return id;
}

inline bool same_file(const FileId& a, const FileId& b) {
  if (a.exists && b.exists) return a.dev == b.dev && a.ino == b.ino;
  return a.resolved == b.resolved;
}

namespace detail {
struct Named {
  FileId id;
  std::string label;  // the option that names the file ("--matrix", "--json"...)
  int writes = 0;     // outputs only
};
struct State {
  std::mutex mutex;
  std::vector<Named> inputs, outputs;
};
inline State& state() {
  static State s;
  return s;
}
inline std::string label_or(const std::string& label, const char* fallback) { return label.empty() ? fallback : label; }
[[noreturn]] inline void refuse_input(const Named& out, const Named& in) {
  throw Error(out.id.given, out.label,
              fmt::format("is the same file as the input {} ({}); an output never replaces an input",
                          label_or(in.label, "file"), in.id.given));
}
}  // namespace detail

// Records an input named on the command line. A path that does not exist, or
// a directory, is not recorded (it is not a file this run could overwrite).
// Throws when an output claimed earlier is the same file.
inline void note_input(const std::string& path, const std::string& label) {
  FileId id = identify(path);
  if (!id.exists || S_ISDIR(id.mode)) return;
  auto& s = detail::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  detail::Named in{std::move(id), label};
  for (const auto& out : s.outputs)
    if (!out.id.device() && same_file(out.id, in.id)) detail::refuse_input(out, in);
  s.inputs.push_back(std::move(in));
}

// Records an output named by option `label` before it is written. Throws when
// it is the same file as an input or as another option's output; the same
// option claiming the same file again is not an error.
inline void claim_output(const std::string& path, const std::string& label) {
  detail::Named out{identify(path), label};
  if (out.id.device()) return;
  auto& s = detail::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const auto& in : s.inputs)
    if (same_file(out.id, in.id)) detail::refuse_input(out, in);
  for (const auto& other : s.outputs)
    if (same_file(out.id, other.id)) {
      if (other.label == label) return;
      throw Error(path, detail::label_or(label, "output"),
                  fmt::format("is the same file as {} ({}); two outputs may not name one file",
                              detail::label_or(other.label, "another output"), other.id.given));
    }
  s.outputs.push_back(std::move(out));
}

// Called by the writer before each output is written. Throws when the file is
// an input, or when it is a claimed output that this run has written already
// (two outputs of one command name the same file: the second would replace the
// first). Returns the option that claimed it ("" when none did).
inline std::string before_write(const std::string& path, const std::string& label) {
  const FileId id = identify(path);
  if (id.device()) return label;
  auto& s = detail::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  for (const auto& in : s.inputs)
    if (same_file(id, in.id)) detail::refuse_input({id, label}, in);
  for (auto& out : s.outputs)
    if (same_file(id, out.id)) {
      if (out.writes++ > 0)
        throw Error(path, detail::label_or(out.label, "output"),
                    "another output of this command has written this file already; two outputs may not name one file");
      return out.label;
    }
  return label;
}

// For tests: forgets every input and output.
inline void forget_all() {
  auto& s = detail::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.inputs.clear();
  s.outputs.clear();
}

}  // namespace cello::run_files
