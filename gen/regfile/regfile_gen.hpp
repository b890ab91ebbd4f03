// Register-file generator: a small fp32 tensor (rows x cols words) written one
// row per handshake from a load stream and read one row at a time; the read row
// is a broadcast vector (every PE row of the MAC array sees the same words).
#pragma once

#include "gen/design.hpp"
#include "gen/regfile/regfile_config.hpp"

namespace cello::gen {

// Appends the register-file module (and the RAM primitive it uses) to the design.
// `block` = false when the register file is part of another block (no manifest entry).
void add_regfile(Design& design, const RegfileConfig& cfg, bool block = true);

}  // namespace cello::gen
