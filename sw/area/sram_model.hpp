// SRAM macro model for sky130: area and energy per access of a RAM of a given
// number of words, width and ports. The area is a least-squares fit to the
// published OpenRAM sky130 macros (their LEF outlines, listed in
// published_sram_macros() and docs/area.md); the energy is scaled from the one
// macro whose .lib was characterised with SPICE. The same model prices the
// buffet RAMs, the CHORD SRAM and the cache baseline's data and tag arrays.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cello::area {

// One published macro: 1RW+1R port, 32-bit words (OpenRAM's sky130 family).
struct SramMacro {
  std::string name;
  uint64_t words = 0;
  int width = 0;
  double width_um = 0, height_um = 0;  // LEF "SIZE w BY h"
  std::string source;                  // repository @ commit, path
  double area_um2() const { return width_um * height_um; }
  uint64_t bits() const { return words * uint64_t(width); }
};
const std::vector<SramMacro>& published_sram_macros();

// area of one macro = fixed_um2 + per_bit_um2 * bits, fitted by least squares.
struct SramFit {
  double fixed_um2 = 0, per_bit_um2 = 0;
  double max_rel_error = 0;  // largest |model - LEF| / LEF over the published macros
};
const SramFit& sram_fit();
// The error the model claims (docs/area.md); the fit must stay inside it.
constexpr double kSramStatedError = 0.06;

struct SramEstimate {
  double area_um2 = 0;
  double read_pj = 0, write_pj = 0;  // energy of one read / one write access
  uint64_t macros = 0;               // macro instances (banks x width slices x port copies)
  bool extrapolated = false;         // outside the published range (fewer than 256 words per macro)
};

// A RAM of `words` x `width` bits with `write_ports` write ports and one read
// port per `read_ports`. Wider or deeper arrays are banked from macros of at most
// 2048 x 32 (the largest published); 1W+1R fits one macro; n write ports x m read
// ports are built as n*m copies (live-value-table style replication).
SramEstimate sram_estimate(uint64_t words, int width, int write_ports = 1, int read_ports = 1);

}  // namespace cello::area
