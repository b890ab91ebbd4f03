#include "tb/buffet/buffet_sim_runs.hpp"

#include <chrono>

#include "bench_buffet256_params.hpp"
#include "cello_default_params.hpp"
#include "Vbench_buffet256.h"
#include "Vdemo_buffet.h"
#include "tb/buffet/buffet_bench.hpp"
#include "sw/common/clock.hpp"

namespace cello::tb {

namespace {
// The embedded default design's buffet and configs/bench/bench_buffet256.json, as generated.
constexpr BuffetFeatures kDefault = CELLO_BUFFET_FEATURES(cello::params::buffet_default);
constexpr BuffetFeatures kBench = CELLO_BUFFET_FEATURES(cello::params::bench_buffet256);

template <class Bench>
BuffetStreamFigures timed_run(Bench& bench, std::vector<BuffetOp> ops, const BuffetRates& rates) {
  auto t0 = std::chrono::steady_clock::now();
  auto st = bench.run(std::move(ops), rates);
  BuffetStreamFigures f;
  f.seconds = seconds_since(t0);
  f.cycles = st.cycles;
  f.fills = st.fills;
  f.reads = st.reads;
  f.updates = st.updates;
  return f;
}
}  // namespace

std::string default_design_hash() { return CELLO_DEFAULT_CONFIG_HASH; }

std::vector<BuffetMixReport> check_default_buffet(uint64_t seed, size_t ops_per_mix) {
  std::vector<BuffetMixReport> out;
  for (auto mix : {BuffetMix::Streaming, BuffetMix::SlidingWindow, BuffetMix::UpdateRaw, BuffetMix::FullEmpty,
                   BuffetMix::Random}) {
    BuffetMixReport r;
    r.mix = to_string(mix);
    BuffetBench<Vdemo_buffet, kDefault> bench(seed + out.size());
    try {
      BuffetProgram prog(bench.size(), kDefault.width, true, true, true, bench.rng());
      append_mix(prog, mix, ops_per_mix, bench.rng());
      r.ops = prog.length();
      auto st = bench.run(prog.take(), BuffetRates{0.8, 0.8, 0.8, 0.8, 0.6, 0.5});
      bench.drain_credits(st);
      r.cycles = st.cycles;
      r.responses = st.responses;
      r.passed = bench.status() == 0;
      if (!r.passed) r.failure = "status_err raised under legal traffic";
    } catch (const Failure& f) {
      r.failure = f.what();
    }
    out.push_back(r);
  }
  return out;
}

BuffetStreamFigures bench_buffet_streaming(uint64_t elements) {
  BuffetBench<Vbench_buffet256, kBench> bench(1);
  BuffetProgram prog(bench.size(), kBench.width, false, true, true, bench.rng());
  for (uint64_t i = 0; i < elements; ++i) {
    prog.read(0);
    prog.shrink(1);
  }
  return timed_run(bench, prog.take(), BuffetRates{});
}

BuffetStreamFigures bench_buffet_update_stream(uint64_t elements) {
  BuffetBench<Vbench_buffet256, kBench> bench(2);
  BuffetProgram prog(bench.size(), kBench.width, true, true, true, bench.rng());
  const uint32_t tile = 128;
  for (uint64_t done = 0; done < elements; done += tile) {
    for (uint32_t i = 0; i < tile; ++i) {
      prog.read(i, true);
      prog.update(i);
    }
    prog.shrink(tile);
  }
  return timed_run(bench, prog.take(), BuffetRates{});
}

BuffetStreamFigures bench_buffet_random(uint64_t ops, uint64_t seed) {
  BuffetBench<Vbench_buffet256, kBench> bench(seed);
  BuffetProgram prog(bench.size(), kBench.width, true, true, true, bench.rng());
  append_mix(prog, BuffetMix::Random, ops, bench.rng());
  return timed_run(bench, prog.take(), BuffetRates{0.7, 0.7, 0.7, 0.7, 0.7, 0.7});
}

}  // namespace cello::tb
