#include "sw/cli/output_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "sw/common/error.hpp"

namespace cello::cli {

namespace {

void make_parent(const std::string& path, const std::string& option) {
  auto parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw Error(path, option, "cannot create its folder (" + ec.message() + ")");
}

}  // namespace

void check_output_path(const std::string& path, const std::string& option) {
  if (path.empty()) return;
  make_parent(path, option);
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw Error(path, option, "is a directory, not a file");
  const bool existed = std::filesystem::exists(path, ec);
  std::FILE* f = std::fopen(path.c_str(), "a");  // "a": an existing file is left as it is
  if (!f) throw Error(path, option, std::string("cannot create file (") + std::strerror(errno) + ")");
  std::fclose(f);
  if (!existed) std::filesystem::remove(path, ec);
}

void write_output_file(const std::string& path, const std::string& text) {
  make_parent(path, "");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(path, "", std::string("cannot create file (") + std::strerror(errno) + ")");
  size_t n = std::fwrite(text.data(), 1, text.size(), f);
  int err = n == text.size() ? 0 : errno;
  if (std::fflush(f) != 0 && !err) err = errno;
  if (std::fclose(f) != 0 && !err) err = errno;
  if (n != text.size() || err)
    throw Error(path, "", std::string("write failed (") + std::strerror(err ? err : EIO) + "); the file is incomplete");
}

}  // namespace cello::cli
