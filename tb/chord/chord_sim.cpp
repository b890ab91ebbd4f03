#include "tb/chord/chord_sim.hpp"

#include "Vbench_chord.h"
#include "tb/chord/chord_bench.hpp"
#include "gen/hw_config.hpp"

namespace cello::tb {

namespace {
// configs/bench/bench_chord.json, embedded by tb/chord/cello_models.cmake.
constexpr const char* kConfigText =
#include "bench_chord_config.inc"
    ;

}  // namespace

const gen::ChordConfig& chord_bench_config() {
  static const gen::ChordConfig c =
      gen::parse_hw_config(nlohmann::json::parse(kConfigText), "configs/bench/bench_chord.json").chords.at(0);
  return c;
}

ChordThroughput chord_hit_throughput(uint64_t words) {
  const gen::ChordConfig& cfg = chord_bench_config();
  ChordBench<Vbench_chord> bench(cfg.geometry(), static_cast<unsigned>(cfg.counter_width), 1);
  const uint64_t b_base = 1ull << 24;
  const HitThroughputTraces traces = hit_throughput_traces(words, b_base);
  std::vector<chord::TraceOp> reads;
  for (uint64_t i = 0; i < 2 * words; ++i)
    reads.push_back(access_op(chord::OpKind::Read, i % 2 ? 2 : 1, (i % 2 ? b_base : 0) + i / 2));
  bench.run(traces.setup, ChordRates{});
  ChordRunStats a = bench.run(traces.mixed, ChordRates{});
  ChordRunStats b = bench.run(reads, ChordRates{});
  if (a.hits != a.reads + a.writes || b.hits != b.reads) throw Failure("throughput run: not every access hit");
  ChordThroughput t;
  t.words = words;
  t.mixed_accesses = a.reads + a.writes;
  t.mixed_cycles = a.cycles;
  t.read_accesses = b.reads;
  t.read_cycles = b.cycles;
  return t;
}

}  // namespace cello::tb
