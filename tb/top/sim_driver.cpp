// cello-sim-top: the simulator `cello sim` runs. One Verilated top (Vtop, any
// config) driven by run_top (tb/harness/top_runner.hpp) through one command
// stream on one DRAM image. It prints progress, then writes the final DRAM image
// and a JSON result (status, cycles, the register port, DRAM bytes per tensor
// region). `cello sim` builds it per generated RTL (docs/sim.md) and checks its
// output against the executor; it is not meant to be run by hand.
//
// Exit 0: the top reached END or halted (the JSON says which). Exit 1: the run
// failed (watchdog, --max-cycles, a DRAM protocol error); the JSON holds the
// message. Exit 2: bad arguments or unreadable files.
#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "Vtop.h"
#include "tb/harness/top_runner.hpp"
#include "sw/common/clock.hpp"
#include "sw/stream/format.hpp"

using namespace cello;
using namespace cello::tb;

namespace {

struct Args {
  std::string stream, image, out_image, result, trace;
  uint64_t seed = 1, latency_min = 100, latency_max = 100, host_latency = 1, max_cycles = 100000000;
  uint64_t registers = 2, progress_every = 1u << 16, sample_every = 0;
  double bytes_per_cycle = 16;
  bool out_of_order = false;
};

int run(const Args& a) {
  const std::vector<uint8_t> bytes = stream::read_bytes(a.stream);
  const stream::Stream s = stream::decode(bytes, a.stream);
  std::vector<uint8_t> image = stream::read_bytes(a.image, s.header.memory_bytes);
  if (!a.trace.empty()) ::setenv("CELLO_TRACE", a.trace.c_str(), 1);
  Sim<Vtop> sim;
  sim.set_watchdog(std::max<uint64_t>(sim.watchdog(), 4 * a.host_latency + 4 * a.latency_max));
  Rng rng(a.seed);
  TopRunOptions o;
  o.dram.granule_bytes = s.header.granule_bytes;
  o.dram.bytes_per_cycle = a.bytes_per_cycle;
  o.dram.latency_min = a.latency_min;
  o.dram.latency_max = a.latency_max;
  o.dram.in_order = !a.out_of_order;
  o.host_latency = a.host_latency;
  o.max_cycles = a.max_cycles;
  o.progress_every = a.progress_every;
  o.sample_every = a.sample_every;
  const auto t0 = std::chrono::steady_clock::now();
  double shown = 0;  // wall time of the last progress line (one every 2 s at most)
  o.progress = [&](uint64_t cycles, uint64_t record) {
    const double now = seconds_since(t0);
    if (cycles == 0 || now < shown + 2) return;
    shown = now;
    fmt::print("  sim: record {:>6} of {}, {:>12} cycles, {:.0f} kHz\n", record, s.records.size(), cycles,
               static_cast<double>(cycles) / std::max(now, 1e-9) / 1e3);
    std::fflush(stdout);
  };
  nlohmann::json j;
  int rc = 0;
  try {
    const TopRunResult r = run_top(sim, bytes, s, image, o, rng, a.registers);
    nlohmann::json regions = nlohmann::json::array();
    for (const auto& g : r.regions)
      regions.push_back({{"name", g.name}, {"base", g.base}, {"read", g.read}, {"written", g.written},
                         {"host_read", g.host_read}, {"host_written", g.host_written}});
    j = {{"done", r.done},         {"halted", r.halted},       {"status", r.status},
         {"err_record", r.err_record}, {"cycles", r.cycles},   {"registers", r.registers},
         {"dram_read_bytes", r.dram_read_bytes}, {"dram_write_bytes", r.dram_write_bytes},
         {"host_read_bytes", r.host_read_bytes}, {"host_write_bytes", r.host_write_bytes},
         {"hosts", r.hosts},       {"regions", regions}, {"record_cycles", r.record_cycles},
         {"record_registers", r.record_registers}};
    for (const auto& [name, v] : r.chord) j["chord"][name] = v;
    if (!r.samples.empty()) j["samples"] = r.samples;
  } catch (const Failure& f) {
    j = {{"failure", fmt::format("{} (cycle {})", f.what(), sim.cycle())}, {"cycles", sim.cycle()}};
    rc = 1;
  }
  j["seconds"] = seconds_since(t0);
  // Test hook (tests/top/sim_cli.sh): CELLO_SIM_FLIP=1 flips the low bit of the
  // first word of the last output tensor, so the checker's mismatch path is tested.
  if (const char* flip = std::getenv("CELLO_SIM_FLIP"); flip && std::string(flip) == "1") {
    const auto tensors = stream_tensors(s);
    for (size_t id = tensors.size(); id-- > 0;)
      if (tensors[id].described && tensors[id].output() && tensors[id].base < image.size()) {
        image[tensors[id].base] ^= 1;
        break;
      }
  }
  stream::write_bytes(a.out_image, image);
  std::ofstream(a.result) << j.dump(1) << "\n";
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cello-sim-top: run a command stream on the verilated top (driven by cello sim)"};
  Args a;
  app.add_option("--stream", a.stream, "commands.bin")->required();
  app.add_option("--image", a.image, "initial DRAM image")->required();
  app.add_option("--out-image", a.out_image, "final DRAM image")->required();
  app.add_option("--result", a.result, "JSON result")->required();
  app.add_option("--seed", a.seed, "DRAM timing seed");
  app.add_option("--latency-min", a.latency_min, "DRAM latency, cycles")->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  app.add_option("--latency-max", a.latency_max, "DRAM latency, cycles")->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  app.add_option("--bytes-per-cycle", a.bytes_per_cycle, "DRAM bandwidth")->check(CLI::Range(1e-3, 1e6));
  app.add_flag("--out-of-order", a.out_of_order, "DRAM responses leave as their latency passes");
  app.add_option("--host-latency", a.host_latency, "cycles per HOST")->check(CLI::Range(uint64_t{1}, uint64_t{1} << 30));
  app.add_option("--max-cycles", a.max_cycles, "fail past this many cycles");
  app.add_option("--registers", a.registers, "register-port words to read after the run");
  app.add_option("--progress-every", a.progress_every, "cycles between looks at the clock for a progress line")->check(CLI::Range(uint64_t{1}, UINT64_MAX));
  app.add_option("--trace", a.trace, "FST waveform of the whole run");
  app.add_option("--sample-every", a.sample_every, "read the register port every this many cycles (0: never)");
  try {
    app.parse(argc, argv);
    if (a.latency_max < a.latency_min) throw CLI::ValidationError("--latency-max", "is below --latency-min");
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    return run(a);
  } catch (const std::exception& e) {
    fmt::print(stderr, "cello-sim-top: {}\n", e.what());
    return 2;
  }
}
