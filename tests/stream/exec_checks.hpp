// Checks shared by the executor tests (each compares with an independent reference).
#pragma once

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>

#include "sw/golden/solvers.hpp"
#include "tests/stream/stream_test_util.hpp"
#include "sw/traffic/from_score.hpp"

namespace cello::test {

// Every tensor the executor computed equals the golden fp32 replay bit for bit.
inline void check_bit_exact(const test::Run& r, const arch::Arch& a) {
  const ir::Program& p = r.prep.schedule.program;
  golden::Fp32Inputs in;
  in.dense = r.problem.dense;
  for (const ir::Tensor& t : p.tensors)
    if (t.format == ir::Format::Csr) in.csr[t.name] = &r.problem.matrix;
  const auto gold = golden::run_fp32(p, in, exec::mac_order(p, r.prep.compiled, a));
  size_t compared = 0;
  for (size_t t = 0; t < p.tensors.size(); ++t) {
    if (p.tensors[t].format == ir::Format::Csr) continue;
    const auto& x = r.result.values[t];
    REQUIRE(x.size() == gold[t].size());
    for (size_t e = 0; e < x.size(); ++e)
      if (std::bit_cast<uint32_t>(x[e]) != std::bit_cast<uint32_t>(gold[t][e])) {
        FAIL(p.tensors[t].name << "[" << e << "]: executor " << x[e] << " golden " << gold[t][e]);
      }
    compared += x.size();
  }
  CHECK(compared > 0);
}

// The executor's traffic per tensor equals the traffic model's CELLO on the same schedule.
inline void check_traffic(const test::Run& r, const arch::Arch& a) {
  const traffic::Workload w = traffic::from_schedule(r.prep.schedule, r.problem.pattern, a.word_bytes);
  traffic::ModelParams mp = arch::model_params_of(a);
  if (!a.has_chord()) mp.sram_bytes = traffic::ModelParams{}.sram_bytes;  // Flexagon-like ignores the SRAM
  const auto m = traffic::run_model(w, a.has_chord() ? traffic::MemorySystem::CELLO : traffic::MemorySystem::Flexagon, mp);
  REQUIRE(m.tensor_read_bytes.size() == r.result.tensor_read_bytes.size());
  for (size_t t = 0; t < m.tensor_read_bytes.size(); ++t) {
    INFO(w.tensors[t].name);
    CHECK(r.result.tensor_read_bytes[t] == m.tensor_read_bytes[t]);
    CHECK(r.result.tensor_write_bytes[t] == m.tensor_write_bytes[t]);
  }
  CHECK(r.result.read_bytes == m.read_bytes);
  CHECK(r.result.write_bytes == m.write_bytes);
  uint64_t per_op = 0;
  for (const auto& o : r.result.ops) per_op += o.read_bytes + o.write_bytes;
  CHECK(per_op + r.result.end_write_bytes == r.result.read_bytes + r.result.write_bytes);
}

// fp32 tracks double: wherever the double residual is above fp32's noise, the two
// agree within a factor of 10.
inline void check_converges_like_double(const test::Run& r, const std::string& method, int n, int iters) {
  const ir::Program& p = r.prep.schedule.program;
  const auto bt = *p.find_tensor("B");
  const auto& b = r.result.values[static_cast<size_t>(bt)];
  const auto hist = exec::residual_history(p, r.result, b);
  REQUIRE(hist.size() == static_cast<size_t>(iters) + 1);
  golden::SolveOptions so;
  so.max_iters = iters;
  so.tol = 0;
  const std::vector<double> bd(b.begin(), b.end());
  const auto d = method == "cg" ? golden::block_cg(r.problem.matrix, bd, n, so) : golden::block_bicgstab(r.problem.matrix, bd, n, so);
  REQUIRE(d.history.size() >= static_cast<size_t>(iters));
  for (int i = 1; i <= iters; ++i) {
    const double want = d.history[static_cast<size_t>(i - 1)];
    if (want < 1e-4) continue;
    INFO("iteration " << i << ": fp32 " << hist[static_cast<size_t>(i)] << " double " << want);
    CHECK(std::fabs(std::log10(hist[static_cast<size_t>(i)] / want)) < 1.0);
  }
  CHECK(hist.back() < hist.front());
}

// Compiles and runs a CG or BiCGStab problem and checks the run against all
// three references: bit-exact with the golden fp32 replay, traffic equal to the
// model, and convergence like the double-precision solver.
inline test::Run check_solver_run(const stream::ProblemSpec& spec, const arch::Arch& a) {
  test::Run r = test::compile_and_run(spec, a);
  check_bit_exact(r, a);
  check_traffic(r, a);
  check_converges_like_double(r, spec.workload, spec.n, spec.iters);
  return r;
}

}  // namespace cello::test
