#include "common/run_process.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>

#include "common/error.hpp"

extern char** environ;

namespace cello {

int run_process(const std::vector<std::string>& argv, const std::string& output) {
  if (argv.empty()) return -1;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  const char* out = output.empty() ? "/dev/null" : output.c_str();
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string yosys_quote(const std::string& path) {
  for (char c : path)
    if (c == '"' || c == '\n' || c == '\r' || c == '\0')
      throw Error(path, "", "a path given to Yosys cannot contain a double quote or a line break");
  return "\"" + path + "\"";
}

}  // namespace cello
