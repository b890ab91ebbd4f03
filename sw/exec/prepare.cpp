#include "sw/exec/prepare.hpp"

#include <fmt/core.h>

#include <cmath>

#include "sw/score/compile.hpp"

namespace cello::exec {

Prepared prepare(const stream::Problem& pr, const arch::Arch& a) {
  Prepared out;
  out.schedule = score::compile(pr.program, arch::target_of(a));
  out.compiled = stream::encode_schedule(out.schedule, a, pr.pattern);
  out.image = initial_image(out.schedule.program, out.compiled, pr.matrix, pr.dense, a.granule_bytes);
  return out;
}

golden::Fp32Order mac_order(const ir::Program& p, const stream::Compiled& c, const arch::Arch& a) {
  golden::Fp32Order o;
  o.lanes = 1;
  o.acc_first = true;
  o.c_plus_zero = true;
  for (size_t i = 0; i < p.ops.size(); ++i) {
    if (c.plans[i].mode == stream::Mode::Gram) o.op_lanes[p.ops[i].name] = a.fma_stages;
    if (c.k_chunk[i] > 0) o.op_k_chunk[p.ops[i].name] = c.k_chunk[i];
  }
  return o;
}

std::vector<double> residual_history(const ir::Program& p, const Result& r, const std::vector<float>& b) {
  std::vector<double> h;
  for (int i = 0;; ++i) {
    auto t = p.find_tensor(fmt::format("R.{}", i));
    if (!t) break;
    const TensorDesc& d = r.program.tensors[static_cast<size_t>(*t)];
    const std::vector<float>& v = r.values[static_cast<size_t>(*t)];
    if (b.size() != v.size() || v.empty()) break;
    h.push_back(worst_column_ratio(v, b, d.rows, d.cols));
  }
  return h;
}

}  // namespace cello::exec
