// Design-time options of one MAC array (see docs/config.md, "mac_arrays").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gen/config_reader.hpp"

namespace cello::gen {

struct MacArrayConfig {
  std::string name = "mac_array";
  int rows = 4;        // R: PE rows (1..64)
  int cols = 4;        // C: PE columns (1..16), also the register file's row width
  int fma_stages = 3;  // FMA pipeline depth L (1..8) = accumulation lanes per PE
  int rf_rows = 16;    // register-file rows: largest K of a skinny GEMM (1..16)
  bool gram = true;    // Gram / long-reduction mode (per-PE fold register)
  bool spmm = true;    // CSR SpMM mode (op_last/op_pad ports, per-lane row state)

  std::string pe_name() const { return name + "_pe"; }
  std::string rf_name() const { return name + "_rf"; }

  // The canonical config section: every field under its own name.
  NLOHMANN_DEFINE_TYPE_INTRUSIVE(MacArrayConfig, name, rows, cols, fma_stages, rf_rows, gram, spmm)
  nlohmann::json to_json() const { return *this; }
  static MacArrayConfig parse(ConfigReader& r);
};

}  // namespace cello::gen
