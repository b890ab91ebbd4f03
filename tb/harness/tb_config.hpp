// The hardware config a testbench was built for. tb/<block>/CMakeLists.txt
// generates the RTL from a JSON file under configs/tb/<block>/ and passes the
// same file's path as CELLO_TB_CONFIG; the testbench reads it here, once, with
// the generator's own reader, so no parameter is copied into a macro.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "gen/hw_config.hpp"

#ifndef CELLO_TB_CONFIG
#error "CELLO_TB_CONFIG (the path of the testbench's hardware JSON) is not defined"
#endif

namespace cello::tb {

inline const gen::HwConfig& tb_hw_config() {
  static const gen::HwConfig config = gen::load_hw_config(CELLO_TB_CONFIG);
  return config;
}

// The one block of a kind the config holds, e.g. tb_block(tb_hw_config().chords).
template <class Block>
const Block& tb_block(const std::vector<Block>& blocks) {
  if (blocks.size() != 1)
    throw std::runtime_error(std::string(CELLO_TB_CONFIG) + ": a testbench config holds exactly one block, found " +
                             std::to_string(blocks.size()));
  return blocks.front();
}

}  // namespace cello::tb
