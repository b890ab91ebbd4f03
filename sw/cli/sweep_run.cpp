#include "sw/cli/sweep_run.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/common/output_file.hpp"
#include "sw/common/run_process.hpp"

extern char** environ;

namespace cello::cli::sweep {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string eta(double seconds) {
  if (!(seconds >= 0) || seconds > 1e8) return "?";
  const auto s = static_cast<long long>(seconds + 0.5);
  if (s < 120) return fmt::format("{} s", s);
  if (s < 7200) return fmt::format("{} min", (s + 30) / 60);
  return fmt::format("{:.1f} h", static_cast<double>(s) / 3600);
}

// One progress line: on a terminal it rewrites itself, in a log it is a line.
class Progress {
 public:
  Progress() : tty_(::isatty(1) != 0), t0_(Clock::now()) {}
  void show(size_t total, size_t done, size_t failed, size_t running, size_t queued = 0) {
    const double el = seconds_since(t0_);
    const std::string e = done == 0 ? "?" : eta(el / static_cast<double>(done) * static_cast<double>(total - done));
    std::string line = fmt::format("cello sweep: {}/{} points done, {} failed, {} running", done, total, failed, running);
    if (queued) line += fmt::format(", {} queued", queued);
    line += fmt::format(", {:.0f} s elapsed, ETA {}", el, done == total ? "0 s" : e);
    // In a log, a line only when a count changes.
    const std::string key = tty_ ? line : fmt::format("{} {} {} {} {}", total, done, failed, running, queued);
    if (key == last_) return;
    last_ = key;
    if (tty_) fmt::print("\r{}\x1b[K", line);
    else fmt::print("{}\n", line);
    std::fflush(stdout);
  }
  void finish() {
    if (tty_ && !last_.empty()) fmt::print("\n");
    std::fflush(stdout);
  }

 private:
  bool tty_;
  Clock::time_point t0_;
  std::string last_;
};

std::vector<std::string> point_argv(const RunOptions& o, const std::string& id) {
  std::vector<std::string> argv = {o.cello.empty() ? self_program() : o.cello, "sweep", "point", o.dir, id};
  if (!o.point.cache.empty()) argv.insert(argv.end(), {"--cache", o.point.cache});
  return argv;
}

// Starts `cello sweep point` with its output in the point's log.txt.
pid_t spawn_point(const RunOptions& o, const Point& p) {
  const fs::path work = point_dir(o.dir, p.id);
  std::error_code ec;
  fs::create_directories(work, ec);
  if (ec) throw Error(work.string(), "", "cannot create: " + ec.message());
  const std::string log = (work / "log.txt").string();
  std::vector<std::string> args = point_argv(o, p.id);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  const int err = ::posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0) throw Error(args[0], "", fmt::format("cannot start ({})", std::strerror(err)));
  return pid;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// "cello-NAME" with every character but letters, digits, '.', '_' and '-' as '_'
// (an #SBATCH line is not a shell line: no quoting).
std::string job_name(const std::string& name) {
  std::string out = "cello-";
  for (char c : name) out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '_';
  return out;
}

std::string slurp_log(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string last_text_line(const std::string& text) {
  std::string line, last;
  std::istringstream in(text);
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  return last;
}

// What a point kind asks of a node: the most any of the sweep's tools needs.
struct Request {
  std::string time, mem;
  int cpus;
};
Request request_for(const std::vector<std::string>& tools) {
  // exec and model run in seconds to minutes; sim builds a simulator (Verilator,
  // two compile jobs) once per RTL and runs it; area is Yosys and OpenSTA on the top.
  const std::map<std::string, std::pair<int, Request>> kinds = {
      {"exec", {0, {"00:30:00", "4G", 1}}},
      {"model", {1, {"01:00:00", "8G", 1}}},
      {"sim", {2, {"04:00:00", "8G", 2}}},
      {"area", {3, {"08:00:00", "8G", 1}}}};
  int rank = -1;
  Request r = kinds.at("exec").second;
  for (const auto& t : tools) {
    const auto& k = kinds.at(t);
    if (k.first > rank) rank = k.first, r = k.second;
  }
  return r;
}

struct Queue {
  bool ok = false;
  size_t pending = 0, running = 0;
  std::string error;
};

// The tasks of `jobs` still in the queue (squeue -r: one line per array task).
Queue query_queue(const std::vector<std::string>& jobs, const fs::path& log) {
  std::string list;
  for (const auto& j : jobs) list += (list.empty() ? "" : ",") + j;
  const ProcessResult r = run_process({"squeue", "-h", "-r", "-j", list, "-o", "%T"}, log, "apt-get install slurm-client");
  const std::string out = slurp_log(log);
  Queue q;
  if (r.exit_code != 0) {
    // A job that has left the controller's memory is "invalid": it has finished.
    if (out.find("Invalid job id") != std::string::npos) q.ok = true;
    else q.error = last_text_line(out);
    return q;
  }
  q.ok = true;
  std::istringstream in(out);
  std::string state;
  while (in >> state) {
    if (state == "PENDING" || state == "REQUEUED" || state == "SUSPENDED") ++q.pending;
    else ++q.running;
  }
  return q;
}

}  // namespace

std::string self_program() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("/proc/self/exe", "", "cannot find this program (" + ec.message() + "); pass --cello PATH");
  return p.string();
}

std::vector<const Point*> pending_points(const Sweep& s, const RunOptions& o) {
  std::vector<const Point*> out;
  for (const auto& p : s.points) {
    const nlohmann::json r = complete_report(o.dir, p);
    if (r.is_null() || (o.rerun_failed && r.value("status", "") != "PASS")) out.push_back(&p);
  }
  return out;
}

size_t run_local(const Sweep& s, const std::vector<const Point*>& todo, const RunOptions& o) {
  (void)s;
  struct Child {
    const Point* p;
  };
  std::map<pid_t, Child> running;
  size_t next = 0, done = 0, failed = 0;
  Progress progress;
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < static_cast<size_t>(std::max(1, o.jobs))) {
      const pid_t pid = spawn_point(o, *todo[next]);
      running[pid] = {todo[next]};
      ++next;
    }
    progress.show(todo.size(), done, failed, running.size());
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw Error("", "", fmt::format("waiting for the points failed ({})", std::strerror(errno)));
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const Point* p = it->second.p;
    running.erase(it);
    ++done;
    const nlohmann::json r = complete_report(o.dir, *p);
    if (r.is_null() || r.value("status", "") != "PASS") {
      ++failed;
      if (r.is_null()) {
        progress.finish();
        fmt::print("  point {} ({}) left no report: {} (see {})\n", p->id, p->label,
                   WIFSIGNALED(status) ? fmt::format("killed by signal {}", WTERMSIG(status))
                                       : fmt::format("exit code {}", WEXITSTATUS(status)),
                   (fs::path(point_dir(o.dir, p->id)) / "log.txt").string());
      }
    }
    progress.show(todo.size(), done, failed, running.size());
  }
  progress.finish();
  return failed;
}

void check_slurm_options(const RunOptions& o) {
  // Each of these becomes one #SBATCH line of the script.
  for (const auto& [value, option] : {std::pair{o.partition, "--partition"}, std::pair{o.time, "--time"}, std::pair{o.mem, "--mem"}})
    if (value.find_first_of(" \t\r\n'\"") != std::string::npos)
      throw Error("", option, "\"" + value + "\" holds a space, a quote or a line break");
  for (const auto& a : o.sbatch_args)
    if (a.find_first_of("\r\n") != std::string::npos) throw Error("", "--sbatch-arg", "holds a line break");
  for (const auto& l : o.prologue)
    if (l.find_first_of("\r\n") != std::string::npos) throw Error("", "--prologue", "holds a line break; give one --prologue per line");
}

std::vector<std::string> run_slurm(const Sweep& s, const std::vector<const Point*>& todo, const RunOptions& o) {
  check_slurm_options(o);
  if (!program_available("sbatch")) throw Error("sbatch", "--backend slurm", "not found on PATH (load Slurm's module, or apt-get install slurm-client)");
  const Request req = request_for(s.tools);
  const std::string time = o.time.empty() ? req.time : o.time, mem = o.mem.empty() ? req.mem : o.mem;
  const int cpus = o.cpus > 0 ? o.cpus : req.cpus;
  const fs::path sdir = fs::absolute(fs::path(o.dir) / "slurm");
  const std::string dir = fs::absolute(o.dir).string();
  RunOptions task = o;
  task.dir = dir;
  if (!task.point.cache.empty()) task.point.cache = fs::absolute(task.point.cache).string();
  const std::string stamp = fmt::format("{}-{}", static_cast<long long>(::time(nullptr)), ::getpid());
  std::vector<std::string> jobs;
  const size_t chunk = static_cast<size_t>(std::max(1, o.max_array));
  for (size_t first = 0, n = 0; first < todo.size(); first += chunk, ++n) {
    const size_t count = std::min(chunk, todo.size() - first);
    const fs::path ids = sdir / fmt::format("ids-{}-{}.txt", stamp, n), script = sdir / fmt::format("sweep-{}-{}.sbatch", stamp, n);
    std::string list;
    for (size_t i = 0; i < count; ++i) {
      list += todo[first + i]->id + "\n";
      std::error_code ec;
      fs::create_directories(point_dir(dir, todo[first + i]->id), ec);
    }
    write_output(ids.string(), list);
    std::vector<std::string> argv = point_argv(task, "\"$id\"");
    std::string cmd;
    for (size_t i = 0; i < argv.size(); ++i) cmd += (i ? " " : "") + (argv[i] == "\"$id\"" ? argv[i] : shell_quote(argv[i]));
    std::string text = "#!/bin/bash\n# Written by cello sweep run --backend slurm: one task per point of " +
                       s.name + " (docs/sweep.md).\n";
    text += fmt::format("#SBATCH --job-name={}\n", job_name(s.name));
    text += fmt::format("#SBATCH --array=0-{}\n", count - 1);
    text += fmt::format("#SBATCH --time={}\n#SBATCH --cpus-per-task={}\n#SBATCH --mem={}\n", time, cpus, mem);
    if (!o.partition.empty()) text += fmt::format("#SBATCH --partition={}\n", o.partition);
    for (const auto& a : o.sbatch_args) text += "#SBATCH " + a + "\n";
    for (const auto& l : o.prologue) text += l + "\n";
    text += fmt::format("id=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {})\n", shell_quote(ids.string()));
    text += "[ -n \"$id\" ] || { echo \"cello sweep: no point for array task $SLURM_ARRAY_TASK_ID\"; exit 1; }\n";
    text += fmt::format("exec {} > {}/points/\"$id\"/log.txt 2>&1\n", cmd, shell_quote(dir));
    write_output(script.string(), text);
    const fs::path log = sdir / fmt::format("sbatch-{}-{}.log", stamp, n);
    // The output path goes on sbatch's command line, not in an #SBATCH line, so
    // that no folder name has to be quoted for Slurm's parser.
    const ProcessResult r =
        run_process({"sbatch", "--parsable", "--output=" + (sdir / "%A_%a.out").string(), script.string()}, log);
    const std::string out = slurp_log(log);
    if (r.exit_code != 0) throw Error(script.string(), "sbatch", last_text_line(out).empty() ? fmt::format("exit code {}", r.exit_code) : last_text_line(out));
    std::string id = last_text_line(out);
    id = id.substr(0, id.find(';'));
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
      throw Error(script.string(), "sbatch", "no job id in its output: " + last_text_line(out));
    jobs.push_back(id);
    fmt::print("cello sweep: submitted job array {} ({} tasks, {} per task, {} CPU{}, {}{}): {}\n", id, count, time,
               cpus, cpus == 1 ? "" : "s", mem, o.partition.empty() ? "" : ", partition " + o.partition, script.string());
  }
  {
    std::string text;
    for (const auto& j : jobs) text += j + "\n";
    write_output((sdir / fmt::format("jobs-{}.txt", stamp)).string(), text);
  }
  if (!o.wait || jobs.empty()) return jobs;

  Progress progress;
  const fs::path qlog = sdir / fmt::format("squeue-{}.log", stamp);
  int errors = 0;
  while (true) {
    const Queue q = query_queue(jobs, qlog);
    if (!q.ok) {
      if (++errors >= 30) throw Error("squeue", "", "the queue cannot be read: " + q.error);
    } else {
      errors = 0;
    }
    size_t done = 0, failed = 0;
    for (const Point* p : todo) {
      const nlohmann::json r = complete_report(dir, *p);
      if (r.is_null()) continue;
      ++done;
      if (r.value("status", "") != "PASS") ++failed;
    }
    progress.show(todo.size(), done, failed, q.running, q.pending);
    if (q.ok && q.pending + q.running == 0) break;
    std::this_thread::sleep_for(std::chrono::duration<double>(o.poll_seconds));
  }
  progress.finish();
  // Tasks that ended without a report (time limit, memory, node failure): sacct
  // says why when the cluster keeps accounting.
  std::vector<const Point*> lost;
  for (const Point* p : todo)
    if (complete_report(dir, *p).is_null()) lost.push_back(p);
  if (!lost.empty()) {
    fmt::print("cello sweep: {} task{} ended without a report (see {}/<job>_<task>.out)\n", lost.size(),
               lost.size() == 1 ? "" : "s", sdir.string());
    if (program_available("sacct")) {
      std::string list;
      for (const auto& j : jobs) list += (list.empty() ? "" : ",") + j;
      const fs::path alog = sdir / fmt::format("sacct-{}.log", stamp);
      if (run_process({"sacct", "-n", "-P", "-X", "-j", list, "-o", "JobID,State,ExitCode"}, alog).exit_code == 0)
        fmt::print("{}", slurp_log(alog));
    }
  }
  return jobs;
}

}  // namespace cello::cli::sweep
