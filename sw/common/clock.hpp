// The two clocks the benchmarks and reports time their runs with.
#pragma once

#include <chrono>
#include <ctime>

namespace cello {

// Wall-clock seconds since t0.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU seconds of the calling thread. On a shared machine wall time also counts
// the time other processes hold the core, which grows with the length of a run.
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace cello
