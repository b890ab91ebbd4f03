#include "sw/cli/output_files.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "sw/common/error.hpp"
#include "sw/common/output_file.hpp"
#include "sw/common/read_file.hpp"
#include "sw/common/run_files.hpp"

namespace cello::cli {

namespace {

void make_parent(const std::string& path, const std::string& option) {
  auto parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw Error(path, option, fmt::format("cannot create its folder {} ({})", parent.string(), ec.message()));
}

// Creates and removes a file beside `path`: the writer's temporary file will
// be created there.
void probe_folder(const std::string& path, const std::string& option) {
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  const std::string probe = (dir / fmt::format(".cello-probe.{}", ::getpid())).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0 && errno != EEXIST)
    throw Error(path, option, fmt::format("cannot create file in folder {} ({})", dir.empty() ? "." : dir.string(),
                                          std::strerror(errno)));
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
  }
}

}  // namespace

void check_output_path(const std::string& path, const std::string& option) {
  if (path.empty()) return;
  make_parent(path, option);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(path, option, "is a directory, not a file");
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
      throw Error(path, option,
                  fmt::format("is {}; an output must be a regular file, a character device or a FIFO", file_kind(st.st_mode)));
  }
  if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) probe_folder(path, option);
  run_files::claim_output(path, option);
}

void write_output_file(const std::string& path, const std::string& text) { write_output(path, text); }

bool is_output_option(const CLI::Option& opt) {
  for (const char* name : {"--out", "--json", "--csv", "--svg", "--dump-image", "--dump", "--trace", "--counters",
                           "--timeline", "--cache"})
    if (opt.check_lname(std::string(name).substr(2))) return true;
  return false;
}

void note_command_line_inputs(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const CLI::Option* opt : sub->get_options()) {
      if (opt->count() == 0 || is_output_option(*opt)) continue;
      for (const std::string& value : opt->results()) {
        if (value.empty()) continue;
        run_files::note_input(value, opt->get_name());
      }
    }
    note_command_line_inputs(*sub);
  }
}

}  // namespace cello::cli
