// Buffet simulations that the `cello` program runs itself (demo, bench), on the
// models verilated by tb/buffet/cello_models.cmake.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cello::tb {

struct BuffetMixReport {
  std::string mix;
  uint64_t ops = 0, cycles = 0, responses = 0;
  bool passed = false;
  std::string failure;  // first mismatch, with the seed to replay
};

// Config hash of the embedded default design that the linked model was made from.
std::string default_design_hash();

// Every traffic mix on the default design's buffet, with random stalls.
std::vector<BuffetMixReport> check_default_buffet(uint64_t seed, size_t ops_per_mix);

struct BuffetStreamFigures {
  uint64_t cycles = 0, fills = 0, reads = 0, updates = 0;
  double seconds = 0;  // wall time of the simulation loop
};

// DEPTH=256 buffet: read(0)/shrink(1) streaming with no stalls, separate ports.
BuffetStreamFigures bench_buffet_streaming(uint64_t elements);
// DEPTH=256 buffet: read-modify-write stream (read will_update, update, shrink).
BuffetStreamFigures bench_buffet_update_stream(uint64_t elements);
// DEPTH=256 buffet: random mix with random stalls on every port (simulation speed).
BuffetStreamFigures bench_buffet_random(uint64_t ops, uint64_t seed);

}  // namespace cello::tb
