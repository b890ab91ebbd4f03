// The generated parameter header of a design, DIR/<design>_params.hpp, which
// write_design() lays out beside the RTL (docs/config.md, "Generated files").
// It is built from the manifest block entries (block_entry(): kind, module,
// params, ports), so it follows every block kind without knowing any: for each
// generated block it holds, in namespace cello::params::<module>,
//   - every scalar parameter as a constexpr value (int, std::int64_t, bool,
//     double or std::string_view), and every other scalar field of the entry
//     (e.g. a MAC array's pe_module, a CHORD's entry_bits);
//   - ports::<port>, the width of each port;
// and, for testbenches that select ports at compile time, one macro per port,
// CELLO_<module>_HAS_<port>, tested with CELLO_HAS_PORT(module, port) in #if.
// A testbench includes it instead of receiving sizes as -D macros.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace cello::gen {

// The header's file name for a design: "<design>_params.hpp".
std::string params_header_name(const std::string& design_name);

// The header's text for the manifest block entries `blocks` (a JSON array of
// block_entry() objects); `config_hash` is recorded in its top comment.
std::string params_header(const std::string& design_name, const std::string& config_hash,
                          const nlohmann::json& blocks);

}  // namespace cello::gen
