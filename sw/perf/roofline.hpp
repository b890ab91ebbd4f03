// Roofline throughput and off-chip energy from DRAM traffic (CELLO Table V).
//
// time       = max(MACs / (MAC units x clock), DRAM bytes / bandwidth)
// throughput = MACs / time = min(peak, bandwidth x MACs / bytes)
// energy     = DRAM bytes x 8 x pJ/bit   (off-chip transfers only)
//
// The paper does not give its DRAM energy per bit; dram_pj_per_bit is a
// parameter (default 4 pJ/bit, an HBM-class figure). Relative energies (the
// paper's metric) do not depend on it.
#pragma once

#include <cstdint>
#include <string>

namespace cello::perf {

struct Machine {
  uint64_t mac_units = 16384;
  double clock_hz = 1e9;
  double bandwidth_bytes_per_s = 250e9;
  uint64_t sram_bytes = 4ull << 20;
  unsigned word_bytes = 4;
  double dram_pj_per_bit = 4.0;

  double peak_macs_per_s() const { return static_cast<double>(mac_units) * clock_hz; }
  // Operational intensity (MACs per DRAM byte) above which the machine is compute bound.
  double ridge_macs_per_byte() const { return peak_macs_per_s() / bandwidth_bytes_per_s; }
  void validate() const;  // throws cello::Error on non-positive parameters
};

struct Perf {
  uint64_t macs = 0;
  uint64_t dram_bytes = 0;
  double compute_s = 0;
  double memory_s = 0;
  double time_s = 0;
  double macs_per_s = 0;        // attained throughput
  double intensity = 0;         // MACs per DRAM byte (inf when no traffic)
  bool memory_bound = false;
  double energy_j = 0;          // off-chip energy
};

Perf roofline(uint64_t macs, uint64_t dram_bytes, const Machine& m);

}  // namespace cello::perf
