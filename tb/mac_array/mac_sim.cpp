#include "tb/mac_array/mac_sim.hpp"

#include <chrono>

#include "Vbench_mac.h"
#include "bench_mac_params.hpp"
#include "sw/common/clock.hpp"
#include "sw/fp/fp32.hpp"
#include "tb/mac_array/mac_array_driver.hpp"

namespace cello::tb {

namespace {
namespace P = cello::params::bench_mac;  // configs/bench/bench_mac.json, as generated
const mac::ArrayShape kBenchShape{P::rows, P::cols, P::fma_stages, P::rf_rows};
}

mac::ArrayShape bench_mac_shape() { return kBenchShape; }

MacSimRun run_bench_mac(const mac::StreamProgram& p, const mac::Matrix& expect) {
  Sim<Vbench_mac> sim;
  Rng rng(1);
  auto& d = sim.dut();
  d.cmd_valid = 0;
  d.op_valid = 0;
  d.res_ready = 0;
  sim.reset();
  MacArrayDriver<Vbench_mac, true> drv(sim, rng, kBenchShape);
  std::vector<std::vector<uint32_t>> beats;
  auto t0 = std::chrono::steady_clock::now();
  MacRunStats st = drv.run(p, MacRates{}, beats);
  MacSimRun r;
  r.wall_seconds = seconds_since(t0);
  r.cycles = st.cycles;
  r.total_cycles = sim.cycle();
  r.useful_macs = st.useful_macs;
  mac::Matrix z = mac::gather_results(p, beats);
  r.bit_exact = z.rows == expect.rows && z.cols == expect.cols;
  for (size_t i = 0; r.bit_exact && i < z.v.size(); ++i) r.bit_exact = fp::bits_of(z.v[i]) == fp::bits_of(expect.v[i]);
  return r;
}

}  // namespace cello::tb
