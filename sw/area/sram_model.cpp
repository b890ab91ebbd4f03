#include "sw/area/sram_model.hpp"

#include <algorithm>
#include <cmath>

namespace cello::area {

namespace {
constexpr uint64_t kMaxMacroWords = 2048;  // sky130_sram_8kbyte_1rw1r_32x2048_8
constexpr uint64_t kMinMacroWords = 256;   // sky130_sram_1kbyte_1rw1r_32x256_8
constexpr int kMacroWidth = 32;
// Internal energy of the SPICE-characterised 1 KB macro (32 x 256), rise + fall
// of clk0 in its TT 1.8 V 25 C .lib, in pJ: "!csb0 & web0" (read) and
// "!csb0 & !web0" (write).
constexpr double kReadPj1K = 2.391613 + 2.208443;
constexpr double kWritePj1K = 2.226912 + 2.371604;

// A macro as its repository publishes it: 32 bits wide, its LEF at
// <name>/<name>.lef in `repository` ("owner/repo @commit").
SramMacro published(const std::string& name, uint64_t words, double width_um, double height_um,
                    const std::string& repository) {
  return {name, words, kMacroWidth, width_um, height_um, repository + ", " + name + "/" + name + ".lef"};
}
}  // namespace

const std::vector<SramMacro>& published_sram_macros() {
  static const std::string kVlsida = "VLSIDA/sky130_sram_macros @0178860d21d6a73e56d3c1a5e0d4932197d68255";
  static const std::string kOld = "efabless/sky130_sram_macros_old @30b3ead1e94fdbc1094e708b0f22e9befef6afe3";
  static const std::string kOld8k = "efabless/sky130_sram_macros_old @33994aa6a781eb2904daf149e901008c1711f06e";
  static const std::vector<SramMacro> m = {
      published("sky130_sram_1kbyte_1rw1r_32x256_8", 256, 493.38, 400.22, kVlsida),
      published("sky130_sram_2kbyte_1rw1r_32x512_8", 512, 659.98, 398.18, kOld),
      published("sky130_sram_4kbyte_1rw1r_32x1024_8", 1024, 670.86, 651.14, kOld),
      published("sky130_sram_8kbyte_1rw1r_32x2048_8", 2048, 1093.82, 720.5, kOld8k),
  };
  return m;
}

const SramFit& sram_fit() {
  static const SramFit fit = [] {
    const auto& ms = published_sram_macros();
    double n = double(ms.size()), sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& m : ms) {
      double x = double(m.bits()), y = m.area_um2();
      sx += x, sy += y, sxx += x * x, sxy += x * y;
    }
    SramFit f;
    f.per_bit_um2 = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    f.fixed_um2 = (sy - f.per_bit_um2 * sx) / n;
    for (const auto& m : ms) {
      double model = f.fixed_um2 + f.per_bit_um2 * double(m.bits());
      f.max_rel_error = std::max(f.max_rel_error, std::abs(model - m.area_um2()) / m.area_um2());
    }
    return f;
  }();
  return fit;
}

SramEstimate sram_estimate(uint64_t words, int width, int write_ports, int read_ports) {
  SramEstimate e;
  if (words == 0 || width <= 0) return e;
  const SramFit& f = sram_fit();
  const uint64_t banks = (words + kMaxMacroWords - 1) / kMaxMacroWords;
  const uint64_t slices = (uint64_t(width) + kMacroWidth - 1) / kMacroWidth;
  const uint64_t copies = uint64_t(std::max(1, write_ports)) * uint64_t(std::max(1, read_ports));
  const uint64_t words_per_bank = (words + banks - 1) / banks;
  e.macros = banks * slices * copies;
  e.extrapolated = words_per_bank < kMinMacroWords;
  e.area_um2 = double(copies) * (double(banks * slices) * f.fixed_um2 + f.per_bit_um2 * double(words) * double(width));
  // Energy: one bank of every width slice is accessed. Scaled from the 1 KB
  // macro with the word width and the square root of the rows (bit-line length);
  // an assumption, see docs/area.md. A write lands in every read-port copy.
  const double scale = double(width) / kMacroWidth * std::sqrt(double(words_per_bank) / double(kMinMacroWords));
  e.read_pj = kReadPj1K * scale;
  e.write_pj = kWritePj1K * scale * double(std::max(1, read_ports));
  return e;
}

}  // namespace cello::area
