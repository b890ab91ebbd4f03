// `cello bench datapath`: the compute side's figures.
//  1. MAC utilisation per mode (useful MACs per cycle / R*C) on the verilated
//     4x4 array with unstalled streams, results checked bit for bit against the
//     C++ replay; GEMM and Gram use shapes that fill the array (target >= 0.95),
//     SpMM the HPCG 27-point stencil (mtx/hpcg.hpp) with fp32 values;
//  2. Yosys cell counts: the FMA alone, one processing element (FMA + operand
//     muxes + fold register) and the whole array per PE;
//  3. Verilator simulation speed of the array, next to the C++ replay of the
//     same arithmetic measured in the same run.
#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "gen/design.hpp"
#include "sw/fp/fp32.hpp"
#include "sw/mac/mac_reference.hpp"
#include "sw/mac/mac_stream.hpp"
#include "gen/mac_array/mac_array_gen.hpp"
#include "tb/mac_array/mac_sim.hpp"
#include "sw/mtx/hpcg.hpp"
#include "sw/synth/yosys_stat.hpp"

namespace cello::cli {

namespace {

namespace fs = std::filesystem;

struct Synth {
  uint64_t cells = 0;
  double seconds = 0;
};

// Synthesises `top` with generic Yosys `synth` (optionally setting STAGES) and
// reads the cell count of the final netlist.
Synth yosys_cells(const std::vector<fs::path>& files, const std::string& top, const fs::path& log,
                  const std::string& chparam = "") {
  auto st = synth::yosys_synth_stat(files, top, log, {}, "yosys", chparam);
  return {st.total.cells, st.seconds};
}

float value(std::mt19937_64& g) {
  uint32_t e = 110 + static_cast<uint32_t>(g() % 30);
  return fp::float_of(static_cast<uint32_t>((g() & 1) << 31) | (e << 23) | static_cast<uint32_t>(g() & 0x7fffff));
}

mac::Matrix matrix(std::mt19937_64& g, int64_t r, int64_t c) {
  mac::Matrix m(r, c);
  for (auto& x : m.v) x = value(g);
  return m;
}

struct ModeResult {
  std::string mode, shape;
  tb::MacSimRun run;
  double replay_seconds = 0;
};

void run_bench(int64_t m, const std::string& json_path, bool synth) {
  const mac::ArrayShape s = tb::bench_mac_shape();
  const double pes = static_cast<double>(s.rows * s.cols);
  nlohmann::json report = {{"command", "bench datapath"},
                           {"array", {{"rows", s.rows}, {"cols", s.cols}, {"fma_stages", s.lanes}, {"rf_rows", s.rf_rows}}}};
  std::mt19937_64 g(42);
  std::vector<ModeResult> modes;
  auto timed = [](auto&& f) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = f();
    return std::make_pair(std::move(r), seconds_since(t0));
  };
  {
    auto A = matrix(g, m, s.rf_rows), B = matrix(g, s.rf_rows, s.cols), C = matrix(g, m, s.cols);
    auto [z, t] = timed([&] { return mac::gemm_replay(A, B, &C, 1.0f); });
    ModeResult r{"gemm", fmt::format("Z = C + A*B, M={} K={} N={}", m, s.rf_rows, s.cols), {}, t};
    r.run = tb::run_bench_mac(mac::plan_gemm(s, A, B, &C, 1.0f), z);
    modes.push_back(r);
  }
  {
    auto A = matrix(g, m, s.rows), B = matrix(g, m, s.cols);
    auto [z, t] = timed([&] { return mac::gram_replay(A, B, s.lanes); });
    ModeResult r{"gram", fmt::format("Z = A^T B, M={} N1={} N2={}", m, s.rows, s.cols), {}, t};
    r.run = tb::run_bench_mac(mac::plan_gram(s, A, B), z);
    modes.push_back(r);
  }
  {
    int n = 1;
    while (static_cast<int64_t>(n + 1) * (n + 1) * (n + 1) <= m) ++n;
    auto S = mtx::convert_values<float>(mtx::hpcg_stencil(n, n, n));
    auto B = matrix(g, S.cols, s.cols);
    auto [z, t] = timed([&] { return mac::spmm_replay(S, B); });
    ModeResult r{"spmm", fmt::format("27-point stencil {}^3 ({} rows, {} nnz) x N={}", n, S.rows, S.nnz(), s.cols), {}, t};
    r.run = tb::run_bench_mac(mac::plan_spmm(s, S, B), z);
    modes.push_back(r);
  }
  fmt::print("MAC utilisation, {}x{} array, {}-stage FMA, unstalled streams (useful MACs per cycle / {} PEs)\n", s.rows,
             s.cols, s.lanes, s.rows * s.cols);
  nlohmann::json jm = nlohmann::json::array();
  uint64_t sim_cycles = 0;
  double sim_seconds = 0, replay_seconds = 0, macs = 0;
  for (const auto& r : modes) {
    double util = static_cast<double>(r.run.useful_macs) / (static_cast<double>(r.run.cycles) * pes);
    fmt::print("  {:<5} {:<52} {:>8} cycles  utilisation {:.4f}  {}\n", r.mode, r.shape, r.run.cycles, util,
               r.run.bit_exact ? "bit-exact" : "MISMATCH");
    if (!r.run.bit_exact) throw Error("", "bench datapath", r.mode + ": RTL results differ from the replay");
    jm.push_back({{"mode", r.mode},
                  {"shape", r.shape},
                  {"cycles", r.run.cycles},
                  {"useful_macs", r.run.useful_macs},
                  {"utilisation", util},
                  {"bit_exact", r.run.bit_exact}});
    sim_cycles += r.run.total_cycles;
    sim_seconds += r.run.wall_seconds;
    replay_seconds += r.replay_seconds;
    macs += static_cast<double>(r.run.useful_macs);
  }
  {
    const auto& g0 = modes[0].run;
    double ab = static_cast<double>(g0.useful_macs) * s.rf_rows / (s.rf_rows + 1.0);
    fmt::print("  (GEMM counting A*B products only, without the alpha*C multiply: {:.4f})\n",
               ab / (static_cast<double>(g0.cycles) * pes));
  }
  report["utilisation"] = jm;
  fmt::print("Verilator simulation speed (this host): {:.0f} cycles/s, {:.2f} M useful MACs/s; "
             "C++ replay of the same arithmetic: {:.1f} M MACs/s ({:.0f}x faster than the RTL)\n",
             static_cast<double>(sim_cycles) / sim_seconds, macs / sim_seconds / 1e6, macs / replay_seconds / 1e6,
             sim_seconds / replay_seconds);
  report["simulation"] = {{"cycles", sim_cycles},
                          {"seconds", sim_seconds},
                          {"cycles_per_second", static_cast<double>(sim_cycles) / sim_seconds},
                          {"macs_per_second", macs / sim_seconds},
                          {"replay_macs_per_second", macs / replay_seconds}};

  if (synth) {
    fs::path dir = fs::temp_directory_path() / fmt::format("cello_bench_datapath_{}", ::getpid());
    fs::create_directories(dir);
    gen::MacArrayConfig mc;
    mc.name = "bench_mac";
    mc.rows = s.rows;
    mc.cols = s.cols;
    mc.fma_stages = s.lanes;
    mc.rf_rows = s.rf_rows;
    gen::Design d;
    gen::add_mac_array(d, mc);
    auto files = gen::write_design(d, mc.to_json(), dir);
    fmt::print("Yosys 0.23 generic synthesis (cells after `synth`)\n");
    auto fma = yosys_cells(files, "fp32_fma", dir / "fma.log", fmt::format("chparam -set STAGES {} fp32_fma", s.lanes));
    auto pe = yosys_cells(files, mc.pe_name(), dir / "pe.log");
    auto arr = yosys_cells(files, mc.name, dir / "array.log");
    fmt::print("  fp32 FMA ({} stages): {} cells\n", s.lanes, fma.cells);
    fmt::print("  processing element (FMA + operand muxes + fold register): {} cells ({} beyond the FMA)\n", pe.cells,
               static_cast<int64_t>(pe.cells) - static_cast<int64_t>(fma.cells));
    fmt::print("  whole {}x{} array: {} cells = {:.0f} per PE (command processor and register file included)\n",
               s.rows, s.cols, arr.cells, static_cast<double>(arr.cells) / pes);
    report["synthesis"] = {{"fma_cells", fma.cells},
                           {"pe_cells", pe.cells},
                           {"array_cells", arr.cells},
                           {"array_cells_per_pe", static_cast<double>(arr.cells) / pes}};
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  write_json_report(json_path, report);
}

void add_datapath(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("datapath", "MAC utilisation per mode, Yosys cells of the FMA and a PE, sim speed");
  auto m = std::make_shared<int64_t>(10000);
  auto json = std::make_shared<std::string>();
  auto no_synth = std::make_shared<bool>(false);
  cmd->add_option("--rows", *m, "M: long dimension of the GEMM/Gram/SpMM problems")->capture_default_str()->check(
      CLI::Range(int64_t{64}, int64_t{1000000}));
  cmd->add_flag("--no-synth", *no_synth, "skip the Yosys cell counts");
  add_json_option(cmd, *json);
  cmd->callback([=] { run_bench(*m, *json, !*no_synth); });
}

}  // namespace

CELLO_BENCH("datapath", add_datapath);

}  // namespace cello::cli
