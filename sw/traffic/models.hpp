// DRAM traffic of one scheduled workload under each schedule/buffer
// configuration of CELLO Table IV, plus Ideal. All models count the same unit:
// DRAM bursts of one cache line (16 B by default) per tensor array, so every
// configuration is compared on identical footprints.
//
//   Flexagon   best op-by-op (oracle): every op reads each operand once from
//              DRAM and writes its output once to DRAM.
//   Flex+LRU   the same op-by-op execution, but every access of the real
//   Flex+BRRIP address trace (gathers follow the CSR column indices) goes
//              through a set-associative write-back cache of the SRAM's size.
//   FLAT       a produced tensor stays on chip only if every consumer edge is
//              pipelineable (no delayed consumer); otherwise as Flexagon.
//   SET        a produced tensor stays on chip if every consumer edge is
//              pipelineable, delayed-hold or parallel multicast.
//   PRELUDE    op-by-op; every produced tensor is written through the CHORD
//              model with RIFF off (PRELUDE only) and read through it.
//   CELLO      pipelineable / delayed-hold / multicast consumers read from the
//              pipeline buffers; tensors with a sequential or delayed-writeback
//              consumer (or that are final outputs) go through CHORD with RIFF.
//   Ideal      infinite buffer: application inputs read once, final outputs
//              written once.
//   OPT        CELLO's schedule and CHORD trace, with Belady's MIN (with
//              bypass) at the same capacity in place of CHORD's decisions: the
//              offline reference for the replacement policy (traffic/opt.hpp).
// Application inputs (the matrix, right-hand sides) are read from DRAM by every
// op that uses them in all configurations but Ideal and the caches (CHORD
// holds produced tensors; inputs come through the input buffer).
//
// CHORD-backed configurations drive sw/chord's ChordModel (the RTL's spec) with
// one CHORD word per granule; SCORE-style reuse metadata (distance in ops to the
// next CHORD read, CHORD reads left) is refreshed before every op, dead tensors
// are released after their last read, and final outputs still resident at the
// end are written back.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sw/cache/set_assoc_cache.hpp"
#include "sw/chord/chord_model.hpp"
#include "sw/chord/chord_trace.hpp"
#include "sw/traffic/workload.hpp"

namespace cello::traffic {

// The on-chip memory organisations the study compares (CELLO Table IV: the
// baselines, PRELUDE-only and CELLO), plus the Ideal and OPT references.
enum class MemorySystem { Flexagon, FlexLRU, FlexBRRIP, FLAT, SET, PreludeOnly, CELLO, Ideal, OPT };
const char* to_string(MemorySystem c);  // the label used in tables ("Flexagon-like", ...)
const char* key(MemorySystem c);        // short machine name ("flexagon", "flex_lru", ...)
std::vector<MemorySystem> all_systems();  // CELLO Table IV + Ideal (OPT is asked for by name)
bool parse_system(const std::string& s, MemorySystem& out);

struct ModelParams {
  uint64_t sram_bytes = 4ull << 20;
  unsigned line_bytes = 16;  // DRAM burst / cache line / CHORD word
  unsigned ways = 8;
  uint32_t chord_entries = 64;
  uint32_t chord_extents = 4;
  bool chord_riff = true;  // false: CHORD built PRELUDE-only (CELLO's plan, no eviction)
  // CHORD's policy options for CELLO (PRELUDE-only stays the paper's PRELUDE);
  // the defaults are the CHORD defaults (docs/chord.md, "Policy options").
  chord::Victim chord_victim = chord::Geometry{}.victim;
  bool chord_refill = chord::Geometry{}.refill;
  bool chord_clean = chord::Geometry{}.clean;
  bool chord_reserve = chord::Geometry{}.reserve;
  bool chord_inplace = chord::Geometry{}.inplace;
  bool chord_claim = chord::Geometry{}.claim;
  // Throws cello::Error; `caches`: also the set-associative geometry (ways x
  // line dividing sram_bytes), which only the cache baselines need.
  void validate(unsigned word_bytes, bool caches = true) const;
  // CELLO's CHORD policy in words: "victim distance, refill off, clean off, reserve on, inplace on, claim off".
  std::string chord_policy() const;
};

// What CHORD (or OPT in its place) did in one run.
struct ChordCounts {
  uint64_t accesses = 0;  // reads and writes that reached CHORD
  uint64_t read_hits = 0, read_misses = 0, write_hits = 0, spills = 0;
  uint64_t evicted_words = 0;   // written back by RIFF (OPT: dirty victims written back)
  uint64_t bypass_tensors = 0;  // tensors that found the RIFF table full
};

struct Traffic {
  MemorySystem config = MemorySystem::Flexagon;
  uint64_t sram_bytes = 0;
  uint64_t read_bytes = 0, write_bytes = 0;
  std::vector<uint64_t> tensor_read_bytes, tensor_write_bytes;  // per tensor (caches: reads = fills)
  // Simulation detail.
  uint64_t cache_accesses = 0, cache_hits = 0;
  ChordCounts chord;
  // CHORD-backed configurations, when run with ChordHooks: DRAM bytes per op in
  // schedule order, plus one last entry for the write-backs at the end of the run.
  std::vector<uint64_t> op_read_bytes, op_write_bytes;
  double seconds = 0;      // wall time of the run
  double cpu_seconds = 0;  // CPU time of the thread that ran it
  uint64_t total_bytes() const { return read_bytes + write_bytes; }
};

// Observers of a CHORD-backed run (PRELUDE-only, CELLO). The command-stream
// executor (sw/exec) uses them to build the final DRAM image and per-op figures.
struct ChordHooks {
  // Granules [lo, hi) of produced tensor t (relative to its first granule) that
  // reach DRAM (bypass writes, spills, evictions, write-backs), in issue order.
  std::function<void(int t, uint64_t lo, uint64_t hi)> dram_write;
  // Every operation the walk applies to its CHORD model, in order,
  // as a CHORD trace (chord::apply replays it; the CHORD testbench runs it on
  // the RTL): registrations (a tensor that finds the table full leaves only
  // the registrations of its parts that succeeded and their releases), updates,
  // in-place rewrites, claims, commits, fills, reads and writes (a write's data
  // seed is its address), and a flush of each output's resident words where
  // the walk counts their write-back (at its release and at the end; a replay
  // needs a geometry with `flush`). Addresses are granules; a tensor's CHORD ids are
  // 4t + 1 (dense) or 4t + 1..3 (a CSR tensor's row pointers, indices, values).
  std::vector<chord::TraceOp>* trace = nullptr;
  // With trace: per op, the trace's length when the op's accesses begin
  // (after its registrations and claims).
  std::vector<size_t>* op_starts = nullptr;
};

// The CHORD geometry the walk runs for a CHORD-backed system (riff: CELLO,
// else PRELUDE-only) on an image of `granules` granules.
chord::Geometry walk_geometry(const ModelParams& p, bool riff, uint64_t granules);

Traffic run_model(const Workload& w, MemorySystem c, const ModelParams& p, const ChordHooks* hooks = nullptr);

// Compulsory traffic of the DAG (the large-buffer limit of any fused bound):
// every application input read once, every final output written once.
uint64_t algorithmic_minimum_bytes(const Workload& w, const ModelParams& p);

}  // namespace cello::traffic
