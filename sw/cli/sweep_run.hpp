// The backends of `cello sweep run` (docs/sweep.md): both run `cello sweep
// point DIR ID` for every point whose report is not complete, the local one as
// child processes N at a time, the Slurm one as the tasks of sbatch job arrays.
#pragma once

#include <string>
#include <vector>

#include "sw/cli/sweep_manifest.hpp"
#include "sw/cli/sweep_point.hpp"

namespace cello::cli::sweep {

struct RunOptions {
  std::string dir;
  int jobs = 1;                 // local: points at once
  bool rerun_failed = false;    // run points again whose report says FAIL
  PointOptions point;
  std::string cello;            // the program the tasks run; "" = this one
  // Slurm
  std::string partition, time, mem;  // "" = from the point kind
  int cpus = 0;                      // 0 = from the point kind
  int max_array = 1000;              // tasks per job array (Slurm's MaxArraySize is 1001 by default)
  std::vector<std::string> sbatch_args, prologue;
  bool wait = true;
  double poll_seconds = 2;
};

// The points to run: those without a complete report (and failed ones with rerun_failed).
std::vector<const Point*> pending_points(const Sweep& s, const RunOptions& o);

// Each returns the number of points that have no PASS report afterwards.
size_t run_local(const Sweep& s, const std::vector<const Point*>& todo, const RunOptions& o);

// Refuses Slurm options that would not stay on their line of the job script.
void check_slurm_options(const RunOptions& o);

// Writes the job script(s) into DIR/slurm/, submits them with sbatch and, when
// o.wait, polls squeue until every task has left the queue. Returns the job ids.
std::vector<std::string> run_slurm(const Sweep& s, const std::vector<const Point*>& todo, const RunOptions& o);

// This program's path (/proc/self/exe).
std::string self_program();

}  // namespace cello::cli::sweep
