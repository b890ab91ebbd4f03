#include "sw/common/run_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"

extern char** environ;

namespace cello {

namespace fs = std::filesystem;

bool program_available(const std::string& program) {
  if (program.empty()) return false;
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    fs::path p = fs::path(dir.empty() ? "." : dir) / program;
    if (::access(p.c_str(), X_OK) == 0) return true;
  }
  return false;
}

ProcessResult run_process(const std::vector<std::string>& argv, const fs::path& log, const std::string& hint,
                          const fs::path& cwd) {
  if (argv.empty()) throw Error("", "run_process", "empty argument vector");
  const std::string suffix = hint.empty() ? "" : " (" + hint + ")";
  if (!program_available(argv[0])) throw Error(argv[0], "", "not found on PATH" + suffix);

  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  const fs::path log_abs = log.empty() ? fs::path() : fs::absolute(log);
  if (!log.empty()) {
    posix_spawn_file_actions_addopen(&fa, 1, log_abs.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
  }
  if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());

  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) throw Error(argv[0], "", std::string("cannot start: ") + std::strerror(rc) + suffix);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw Error(argv[0], "", std::string("waitpid failed: ") + std::strerror(errno));
  ProcessResult r;
  r.seconds = seconds_since(t0);
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status)) r.exit_code = 128 + WTERMSIG(status);
  // posix_spawnp reports a failed exec of the child as exit status 127.
  if (r.exit_code == 127 && !program_available(argv[0])) throw Error(argv[0], "", "not found on PATH" + suffix);
  return r;
}

std::string yosys_quote(const std::string& path) {
  for (char c : path)
    if (c == '"' || c == '\n' || c == '\r' || c == '\0')
      throw Error(path, "", "a path given to Yosys cannot contain a double quote or a line break");
  return "\"" + path + "\"";
}

}  // namespace cello
