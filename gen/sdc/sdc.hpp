// Timing constraints for generated blocks: instantiates the constraints/*.sdc
// templates (embedded at build time). `cello gen` writes one per generated block
// into its output folder; `cello area` hands the same text to OpenSTA.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "gen/design.hpp"

namespace cello::gen {

struct SdcOptions {
  double period_ns = 10.0;
  double io_delay_fraction = 0.2;  // input and output delay, as a fraction of the period
  std::string clock_port = "clk";
  std::string driving_cell = "sky130_fd_sc_hd__buf_1";
  double load_pf = 0.01;  // about four sky130 HD inputs
};

// Text of an embedded template (file stem in constraints/); throws if unknown.
const std::string& sdc_template(const std::string& name);

// constraints/block.sdc filled in for `module`.
std::string block_sdc(const std::string& module, const SdcOptions& o);

// Writes DIR/<module>.sdc for every generated block of the design; returns the files.
std::vector<std::filesystem::path> write_block_sdcs(const Design& design, const SdcOptions& o,
                                                    const std::filesystem::path& out_dir);

}  // namespace cello::gen
