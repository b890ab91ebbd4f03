// Design-time options of one register file for small tensors (see docs/config.md,
// "regfiles"). The MAC array builds its own from its "rf_rows" and "cols".
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gen/config_reader.hpp"

namespace cello::gen {

struct RegfileConfig {
  std::string name = "regfile";
  int rows = 16;  // 1..16 rows (e.g. the K rows of a skinny GEMM's B)
  int cols = 16;  // 1..16 fp32 words per row, read out as one broadcast vector
  // A load writes only the words its ld_mask selects, and each word reads as zero
  // until it is written (the top's engine writes its register file word by word).
  bool word_writes = false;

  int row_width() const;  // bits of ld_row / rd_row

  // The canonical config section: every field under its own name.
  NLOHMANN_DEFINE_TYPE_INTRUSIVE(RegfileConfig, name, rows, cols, word_writes)
  nlohmann::json to_json() const { return *this; }
  static RegfileConfig parse(ConfigReader& r);
};

}  // namespace cello::gen
