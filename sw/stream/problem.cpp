#include "sw/stream/problem.hpp"

#include <fmt/core.h>

#include <random>

#include "sw/common/error.hpp"
#include "sw/common/limits.hpp"
#include "sw/mtx/hpcg.hpp"
#include "sw/mtx/matrix_market.hpp"
#include "sw/traffic/datasets.hpp"
#include "sw/workloads/workloads.hpp"

namespace cello::stream {

namespace {

uint64_t name_seed(const std::string& name, uint64_t seed) {
  uint64_t h = 1469598103934665603ULL ^ seed;
  for (unsigned char ch : name) h = (h ^ ch) * 1099511628211ULL;
  return h;
}

workloads::Params workload_params(const ProblemSpec& s, int64_t rows, int64_t nnz) {
  workloads::Params prm = workloads::default_params(s.workload);
  prm.m = rows;
  prm.nnz = nnz;
  if (s.workload != "gcn") prm.n = 8;
  if (s.n) prm.n = s.n;
  if (s.o) prm.o = s.o;
  prm.iters = s.iters;
  return prm;
}

// The size line's check for make_problem (mtx::HeaderCheck): the program is
// built from the header's sizes (no per-row data) to know its dense inputs.
std::string problem_size_refusal(const ProblemSpec& s, int64_t rows, int64_t entries) {
  const uint64_t dense = dense_input_bytes(workloads::make_workload(s.workload, workload_params(s, rows, entries)));
  const std::string what = fmt::format("holding the dense inputs of {} for a {}-row matrix", s.workload, rows);
  if (std::string why = limits::memory_refusal(dense, what); !why.empty()) return why;
  // The image holds at least A's row pointers, column indices and values (4 B each) and the dense inputs.
  const uint64_t csr = limits::add_sat(limits::mul_sat(static_cast<uint64_t>(rows) + 1, 4),
                                       limits::mul_sat(static_cast<uint64_t>(entries), 8));
  const uint64_t image = limits::add_sat(csr, dense);
  if (s.max_image_bytes && image > s.max_image_bytes)
    return fmt::format("the DRAM image of {} on this matrix needs at least {} bytes (A's CSR arrays and the dense "
                       "inputs); the top addresses {} (top.memory_mb)",
                       s.workload, image, s.max_image_bytes);
  return "";
}

}  // namespace

uint64_t dense_input_bytes(const ir::Program& p) {
  uint64_t total = 0;
  for (const ir::Tensor& t : p.tensors) {
    if (!t.input || t.format != ir::Format::Dense) continue;
    uint64_t n = sizeof(float);
    for (ir::RankId r : t.dims) n = limits::mul_sat(n, static_cast<uint64_t>(p.ranks[static_cast<size_t>(r)].size));
    total = limits::add_sat(total, n);
  }
  return total;
}

std::map<std::string, std::vector<float>> make_dense_inputs(const ir::Program& p, uint64_t seed) {
  limits::check_memory(dense_input_bytes(p), "", p.name.empty() ? "dense inputs" : p.name, "the dense inputs");
  std::map<std::string, std::vector<float>> out;
  for (const ir::Tensor& t : p.tensors) {
    if (!t.input || t.format != ir::Format::Dense) continue;
    size_t n = 1;
    for (ir::RankId r : t.dims) n *= static_cast<size_t>(p.ranks[static_cast<size_t>(r)].size);
    std::vector<float> v(n, 0.0f);
    const bool guess = t.name.rfind("X.", 0) == 0 && p.name != "gcn";  // initial guess of a solver
    if (!guess) {
      std::mt19937_64 rng(name_seed(t.name, seed));
      const bool features = p.name == "gcn" && t.name.rfind("X.", 0) == 0;
      std::uniform_real_distribution<float> u(features ? 0.0f : -1.0f, 1.0f);
      for (float& x : v) x = u(rng);
    }
    out[t.name] = std::move(v);
  }
  return out;
}

Problem make_problem(const ProblemSpec& s) {
  Problem pr;
  pr.workload = s.workload;
  if (s.workload == "resnet")
    throw Error("", "--workload", "resnet cannot run on the command set (cg, bicgstab, gcn): its convolutions are not "
                                  "lowered to GEMM");
  if (s.workload != "cg" && s.workload != "bicgstab" && s.workload != "gcn")
    throw Error("", "--workload", fmt::format("unknown workload '{}' (cg, bicgstab or gcn)", s.workload));
  if (!s.matrix.empty() && !s.dataset.empty()) throw Error("", "--dataset", "give --matrix or --dataset, not both");
  if (!s.dataset.empty()) {
    if (s.workload != "gcn") throw Error("", "--dataset", "graph data sets are for the gcn workload");
    const auto colon = s.dataset.find(':');
    const std::string kind = s.dataset.substr(0, colon);
    const std::string dir = colon == std::string::npos ? "" : s.dataset.substr(colon + 1);
    if (dir.empty()) throw Error("", "--dataset", "expected cora:DIR or proteins:DIR");
    traffic::Dataset d;
    if (kind == "cora")
      d = traffic::load_cora(dir);
    else if (kind == "proteins")
      d = traffic::load_tu_graphs(dir, "PROTEINS", 64);
    else
      throw Error("", "--dataset", fmt::format("unknown data set kind '{}' (cora, proteins)", kind));
    pr.matrix = mtx::Csr{*d.pattern, std::vector<double>(static_cast<size_t>(d.pattern->nnz()), 1.0)};
    pr.source = d.name.empty() ? s.dataset : d.name;
  } else if (!s.matrix.empty()) {
    pr.matrix = mtx::read_matrix_market(s.matrix, true, nullptr, [&s](int64_t rows, int64_t, int64_t entries) {
      return problem_size_refusal(s, rows, entries);
    });
    pr.source = s.matrix;
  } else {
    if (s.grid < 2 || s.grid > 128) throw Error("", "--grid", "must be between 2 and 128");
    pr.matrix = mtx::hpcg_stencil(s.grid, s.grid, s.grid);
    pr.source = fmt::format("hpcg {}^3", s.grid);
  }
  pr.pattern = std::make_shared<const mtx::CsrPattern>(pr.matrix);
  pr.program = workloads::make_workload(s.workload, workload_params(s, pr.matrix.rows, pr.matrix.nnz()));
  pr.dense = make_dense_inputs(pr.program, s.seed);
  return pr;
}

}  // namespace cello::stream
