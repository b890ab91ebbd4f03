// Word-address streams for the load and store unit testbenches: 1 to 6 pieces,
// each a sequential run, a stride, random words, one word again and again, or a
// column-major matrix read along its rows (each row revisits the same granules,
// as a row group of a column-major operand does).
#pragma once

#include <cstdint>
#include <vector>

#include "tb/harness/rng.hpp"

namespace cello::tb {

inline std::vector<uint64_t> word_pattern(Rng& rng, uint64_t image_words) {
  std::vector<uint64_t> w;
  const int pieces = 1 + static_cast<int>(rng.below(6));
  for (int p = 0; p < pieces; ++p) {
    const uint64_t n = 1 + rng.below(300), at = rng.below(image_words), stride = 1 + rng.below(40);
    const uint64_t shape = rng.below(5);
    if (shape == 4) {
      const uint64_t rows = 1 + rng.below(8), cols = 1 + rng.below(24);
      for (uint64_t r = 0; r < rows; ++r)
        for (uint64_t c = 0; c < cols; ++c) w.push_back((at + c * (stride + 8) + r) % image_words);
      continue;
    }
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t word = shape == 0 ? at + i : shape == 1 ? at + i * stride : shape == 2 ? rng.below(image_words) : at;
      w.push_back(word % image_words);
    }
  }
  return w;
}

}  // namespace cello::tb
