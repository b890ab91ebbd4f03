// The command-stream executor: runs commands.bin on a DRAM image the way the
// generated top does, and is the golden result the RTL must equal bit for bit.
//
//   numerics  every launch in the MAC array's accumulation order (sw/mac, sw/fp),
//             HOST solves with golden::solve32 / omega32 (docs/commands.md)
//   traffic   the op-by-op access walk through sw/chord's CHORD model, with the
//             same code as `cello model`'s CELLO (traffic::run_model), rebuilt
//             from the stream alone; on a top without CHORD every operand moves
//             to and from DRAM (Flexagon-like)
//   image     the final DRAM image: inputs, plus every granule the run writes to
//             DRAM (bypass writes, spills, evictions, write-backs of outputs)
//   timing    a documented estimate of cycles per op (docs/commands.md, "Timing")
//
// Everything is checked before anything runs (exec/check.hpp); a bad stream or
// image is one cello::Error and nothing is half-run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sw/arch/arch.hpp"
#include "sw/exec/check.hpp"
#include "sw/mtx/csr.hpp"
#include "sw/stream/encode.hpp"
#include "sw/stream/format.hpp"
#include "sw/traffic/models.hpp"

namespace cello::exec {

struct OpStats {
  std::string label;    // e.g. "SPMM -> S.3"
  std::string mode;     // GEMM, GRAM, SPMM, ELTW, HOST
  uint64_t macs = 0;
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t compute_cycles = 0, dram_cycles = 0, chord_cycles = 0, cycles = 0;
};

struct Result {
  ExecProgram program;
  std::vector<std::vector<float>> values;  // per tensor id: final value (dense, row-major)
  std::vector<uint8_t> image;              // final DRAM image
  std::vector<uint64_t> tensor_read_bytes, tensor_write_bytes;
  uint64_t read_bytes = 0, write_bytes = 0;
  traffic::ChordCounts chord;  // the CHORD model's counts (zero without a CHORD)
  // What this top moves (docs/commands.md, "DRAM traffic"). The fields above
  // are CELLO's walk (equal to `cello model`'s CELLO on the same schedule),
  // where every pipelined edge stays on chip and tensors not flagged chord
  // never leave it. The top keeps on chip only the operands of the GRAMs it
  // fuses (pipelined_grams): it reads every other CHORD-flagged operand
  // through CHORD and moves every tensor not flagged chord through DRAM, as
  // the CHORD-less top does. Equal to the fields above on a CHORD-less top;
  // a top whose CHORD is off its datapath moves every tensor as that one.
  struct TopTraffic {
    std::vector<uint64_t> tensor_read_bytes, tensor_write_bytes;
    uint64_t read_bytes = 0, write_bytes = 0;
    traffic::ChordCounts chord;
    // The accounting is the engine's to the granule: every dense tensor's
    // rows (a column-major one's columns) fill whole granules, the load and
    // store units' windows hold a granule per column the engine walks at
    // once (twice X's columns where an SPMM computes X^T Z), no SPMM gathers
    // its dense operand word by word (not one column fits the gather
    // buffer), and no op names one tensor in two roles (C = X: two units
    // read it). (The walk follows a GEMM's passes and column
    // blocks, a GRAM's 8 x 8 blocks and an SPMM's column blocks as the engine
    // runs them.) Then the RTL's bytes and CHORD counters equal these (the
    // top testbench checks it on every such run).
    bool exact = true;
  } top;
  std::vector<OpStats> ops;
  uint64_t end_write_bytes = 0;  // outputs written back when the run ends
  uint64_t macs = 0;
  uint64_t cycles = 0;           // timing-model estimate
  uint64_t roofline_cycles = 0;  // max(MACs / (R*C), DRAM bytes / bandwidth)
  double seconds = 0;            // wall time of the run
};

// The CHORD model's counts under the names of the CHORD block's counters
// (`cnt_<name>`, gen/chord/chord_gen.cpp kCounters), as `cello sim` and the top
// testbench compare them; `error` is the RTL's alone (illegal accesses).
inline std::vector<std::pair<std::string, uint64_t>> chord_counter_values(const traffic::ChordCounts& c) {
  return {{"rd_hit", c.read_hits}, {"rd_miss", c.read_misses}, {"wr_hit", c.write_hits},
          {"wr_spill", c.spills},  {"evict", c.evicted_words}};
}

// `observe` (optional): its trace and op_starts receive the traffic walk's
// CHORD operations (traffic::ChordHooks), for testbenches of the RTL that
// must issue the same commands.
Result execute(const stream::Stream& s, const std::string& file, const arch::Arch& a, std::vector<uint8_t> image,
               const std::string& image_file = "image", const traffic::ChordHooks* observe = nullptr);

// The initial DRAM image of a compiled program: the CSR matrix (row pointers and
// column indices as 32-bit words, values as fp32) and every dense input.
std::vector<uint8_t> initial_image(const ir::Program& p, const stream::Compiled& c, const mtx::Csr& a,
                                   const std::map<std::string, std::vector<float>>& dense, unsigned granule_bytes);

// fp32 values of a dense tensor as stored in an image (row-major values).
std::vector<float> read_dense(const std::vector<uint8_t>& image, const TensorDesc& t);
// Stores row-major values `v` into the tensor's region (its storage order; the
// padding bytes up to the region's end become 0).
void write_dense(std::vector<uint8_t>& image, const TensorDesc& t, const std::vector<float>& v);

// The HOST functions in their documented fp32 order (docs/commands.md):
// solve(D, G) = D^-1 G, omega(Ts, Tt) = (tr Ts / tr Tt) I. The executor and the
// testbench host loop both call this.
std::vector<float> host_value(stream::HostFn fn, const std::vector<float>& a, const TensorDesc& ad,
                              const std::vector<float>& b, const TensorDesc& bd);

}  // namespace cello::exec
