// CHORD simulations linked into the `cello` program (tb/chord/cello_models.cmake
// verilates the benchmark configuration into cello_sim).
#pragma once

#include <cstdint>
#include <string>

#include "gen/chord/chord_config.hpp"

namespace cello::tb {

// The configuration verilated for `cello bench chord`: configs/bench/
// bench_chord.json (64 entries, 4 MB SRAM of 32-bit words, 4 runs per entry,
// SRAM-macro RAM). The benchmark runs the throughput test only when the
// configuration it was asked for is this one.
const gen::ChordConfig& chord_bench_config();

struct ChordThroughput {
  uint64_t words = 0;             // tensor length used
  uint64_t mixed_accesses = 0;    // read hits + write hits in the mixed phase
  uint64_t mixed_cycles = 0;
  uint64_t read_accesses = 0;     // read hits in the read-only phase
  uint64_t read_cycles = 0;
  double mixed_per_cycle() const { return double(mixed_accesses) / double(mixed_cycles); }
  double reads_per_cycle() const { return double(read_accesses) / double(read_cycles); }
};

// Writes a `words`-word tensor A, then streams reads of A interleaved with
// writes of a second tensor B (both hit), then reads only; no back-pressure,
// every decision checked against the functional model. Throws on a mismatch.
ChordThroughput chord_hit_throughput(uint64_t words);

}  // namespace cello::tb
