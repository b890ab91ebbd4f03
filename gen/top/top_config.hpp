// The `top` section of a hardware config (docs/config.md, "top"): which of the
// config's blocks make up the accelerator that runs command streams, and the
// memory-system figures the compiler, the executor and the testbench use.
// arch_of() turns a config with a top into the one architecture value
// (sw/arch/arch.hpp) that `cello compile`, `cello exec` and `cello model` share.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sw/arch/arch.hpp"
#include "gen/config_reader.hpp"

namespace cello::gen {

struct HwConfig;
struct ChordConfig;

struct TopConfig {
  std::string name;             // module name of the top (default: <config name>_top)
  std::string mac_array;        // a mac_arrays entry
  std::string chord;            // a chord entry, or "" for a CHORD-less top (Flexagon-like)
  std::string pipeline_buffer;  // a pipeline_buffers entry
  int granule_bytes = 16;       // DRAM burst = CHORD line = traffic unit
  int dram_bytes_per_cycle = 16;
  int dram_latency = 100;       // cycles
  int clock_mhz = 1000;
  int host_cycles = 2000;       // cycles one HOST round trip costs (timing model)
  int memory_mb = 1024;         // largest DRAM image a stream may address
  int tensor_table = 1024;      // descriptors the top holds (tensor ids 0 .. tensor_table-1)
  int gather_words = 131072;    // SPMM gather buffer: words of the dense operand staged on chip
  int load_window = 16;         // granules each load unit keeps for reuse within one op
  int store_window = 16;        // granules the store unit keeps open for merging within one op

  // The canonical config section: every field under its own name.
  NLOHMANN_DEFINE_TYPE_INTRUSIVE(TopConfig, name, mac_array, chord, pipeline_buffer, granule_bytes,
                                 dram_bytes_per_cycle, dram_latency, clock_mhz, host_cycles, memory_mb, tensor_table,
                                 gather_words, load_window, store_window)
  nlohmann::json to_json() const { return *this; }
  // Reads the section; cross-references are checked by check_top() once every block is parsed.
  static TopConfig parse(ConfigReader& r, const std::string& config_name);
};

// The reason a DRAM bandwidth above one granule per cycle is refused: the
// top's DRAM port takes one request and returns one response of one granule
// per cycle, so more would be a figure the hardware never moves.
std::string dram_bandwidth_excess(double bytes_per_cycle, int granule_bytes);

// Checks that the blocks `top` names exist and fit together; throws cello::Error
// naming the key ("top.chord" ...) and the reason.
void check_top(const HwConfig& cfg, const std::string& file);

// The CHORD entry a config's top names (nullptr: no top, or a CHORD-less top).
const ChordConfig* top_chord(const HwConfig& cfg);

// Whether the top's CHORD `c` is on its datapath (docs/top.md, "CHORD on the
// datapath"): its word is the top's granule and it has claim, clean, flush and
// byte enables, so CHORD-bound granules go to it and its counters can equal the
// executor's. A top with another CHORD runs every tensor from DRAM.
bool chord_on_datapath(const ChordConfig& c, int granule_bytes);

// The architecture of a config with a `top` section (throws cello::Error without one).
arch::Arch arch_of(const HwConfig& cfg, const std::string& file);
// The architecture of a hardware JSON file ("" = the embedded default design).
arch::Arch load_arch(const std::string& config_path);

}  // namespace cello::gen
