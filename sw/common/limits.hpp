// Memory guards: a size declared by an input (a Matrix Market header, hpcg:N,
// --sram, a config depth...) is checked against the memory budget before
// anything is allocated. The budget is half the machine's physical memory unless
// CELLO_MAX_MEMORY (bytes, or with a K/M/G suffix) or `cello --max-memory` sets it.
// Header-only: the configure-time generator build uses it without cello_sw.
#pragma once

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "sw/common/error.hpp"

namespace cello::limits {

// "1.5 GB", "512 KB", "17 B".
inline std::string human_bytes(uint64_t b) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
  double v = static_cast<double>(b);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", b) : fmt::format("{:.3g} {}", v, units[u]);
}

// Parses "123", "64K", "512MB", "2G", "2GiB"; returns false when it is not a size
// or does not fit in 64 bits.
inline bool parse_size(const std::string& text, uint64_t& out) {
  size_t i = 0;
  uint64_t v = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    uint64_t d = static_cast<uint64_t>(text[i++] - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  if (i == 0) return false;
  std::string unit;
  for (size_t k = i; k < text.size(); ++k) unit += static_cast<char>(text[k] >= 'a' && text[k] <= 'z' ? text[k] - 32 : text[k]);
  int shift = -1;
  if (unit.empty() || unit == "B") shift = 0;
  if (unit == "K" || unit == "KB" || unit == "KIB") shift = 10;
  if (unit == "M" || unit == "MB" || unit == "MIB") shift = 20;
  if (unit == "G" || unit == "GB" || unit == "GIB") shift = 30;
  if (unit == "T" || unit == "TB" || unit == "TIB") shift = 40;
  if (shift < 0 || v > (UINT64_MAX >> shift)) return false;
  out = v << shift;
  return true;
}

inline uint64_t physical_memory() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return uint64_t{4} << 30;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
}

namespace detail {
inline uint64_t& budget() {
  static uint64_t b = [] {
    const char* env = std::getenv("CELLO_MAX_MEMORY");
    uint64_t v = 0;
    if (env && parse_size(env, v) && v > 0) return v;
    return physical_memory() / 2;
  }();
  return b;
}
}  // namespace detail

inline uint64_t memory_budget() { return detail::budget(); }
inline void set_memory_budget(uint64_t bytes) { detail::budget() = bytes; }

// a*b, or UINT64_MAX when it overflows.
inline uint64_t mul_sat(uint64_t a, uint64_t b) { return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b; }
inline uint64_t add_sat(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

// "<what> needs <size> of memory, more than the <budget> budget (...)", or ""
// when `bytes` is within the budget.
inline std::string memory_refusal(uint64_t bytes, const std::string& what) {
  if (bytes <= memory_budget()) return "";
  return fmt::format("{} needs {} of memory, more than the {} budget (set by --max-memory or "
                     "CELLO_MAX_MEMORY; default half the machine's memory)",
                     what, bytes == UINT64_MAX ? std::string("more than 16 EB") : human_bytes(bytes),
                     human_bytes(memory_budget()));
}

// Throws "file: place: <what> needs <size>, more than the <budget> memory budget"
// when `bytes` exceeds the budget.
inline void check_memory(uint64_t bytes, const std::string& file, const std::string& place, const std::string& what) {
  if (std::string why = memory_refusal(bytes, what); !why.empty()) throw Error(file, place, why);
}

}  // namespace cello::limits
