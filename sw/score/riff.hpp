// SCORE pass 7: RIFF metadata for CHORD (CELLO Sec. VI-A, GOGETA Sec. 5.3).
//
// Only CHORD-bound tensors get metadata. Their memory reads are the consumers
// that do not take them through a pipeline buffer (inputs: every consumer).
// Distances count ops in schedule order. Around op t SCORE issues:
//   before t   Register  every CHORD tensor t writes, and every input t reads
//                        for the first time: next read, distance, reads to come
//   after t    Update    every CHORD tensor t read that is read again later
//              Release   every CHORD tensor t read for the last time, and t's
//                        own output if nobody reads it from memory (an output:
//                        it has been written through to DRAM)
// riff_at() answers "reuse distance and remaining uses of tensor x right after
// position t" for any point of the schedule.
#pragma once

#include <vector>

#include "sw/ir/dag.hpp"
#include "sw/score/schedule.hpp"

namespace cello::score {

struct RiffMeta {
  std::vector<std::vector<ir::OpId>> mem_reads;  // per tensor, ascending, unique
  std::vector<std::vector<RiffUpdate>> updates;  // per op: Registers first, then Updates/Releases
};

RiffMeta riff_metadata(const ir::Program& p, const ir::Dag& dag, const std::vector<Binding>& tensor_binding,
                       const std::vector<Binding>& edge_binding);

struct ReuseAt {
  int next_use = -1;  // op index of the next memory read after t, -1 = none
  int distance = 0;   // next_use - t (0 when none)
  int remaining = 0;  // memory reads after t
};
ReuseAt riff_at(const std::vector<ir::OpId>& mem_reads, int t);

}  // namespace cello::score
