#include "sw/perf/roofline.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <limits>

#include "sw/common/error.hpp"

namespace cello::perf {

void Machine::validate() const {
  if (mac_units == 0) throw Error("", "machine", "MAC units must be at least 1");
  if (!(clock_hz > 0)) throw Error("", "machine", fmt::format("clock {} Hz must be positive", clock_hz));
  if (!(bandwidth_bytes_per_s > 0))
    throw Error("", "machine", fmt::format("bandwidth {} B/s must be positive", bandwidth_bytes_per_s));
  if (word_bytes == 0) throw Error("", "machine", "word size must be at least 1 byte");
  if (!(dram_pj_per_bit >= 0)) throw Error("", "machine", "DRAM energy per bit must not be negative");
}

Perf roofline(uint64_t macs, uint64_t dram_bytes, const Machine& m) {
  m.validate();
  Perf p;
  p.macs = macs;
  p.dram_bytes = dram_bytes;
  p.compute_s = static_cast<double>(macs) / m.peak_macs_per_s();
  p.memory_s = static_cast<double>(dram_bytes) / m.bandwidth_bytes_per_s;
  p.time_s = std::max(p.compute_s, p.memory_s);
  p.memory_bound = p.memory_s > p.compute_s;
  p.macs_per_s = p.time_s > 0 ? static_cast<double>(macs) / p.time_s : 0;
  p.intensity = dram_bytes ? static_cast<double>(macs) / static_cast<double>(dram_bytes)
                           : std::numeric_limits<double>::infinity();
  p.energy_j = static_cast<double>(dram_bytes) * 8.0 * m.dram_pj_per_bit * 1e-12;
  return p;
}

}  // namespace cello::perf
