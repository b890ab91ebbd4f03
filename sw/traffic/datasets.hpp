// Sparse matrices the models run on: real Matrix Market files, graph data sets
// turned into adjacency matrices, the generated HPCG stencil, and generated
// proxies for matrices the project does not have (labelled as proxies
// everywhere they appear).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sw/mtx/matrix_market.hpp"

#include "sw/traffic/workload.hpp"

namespace cello::traffic {

struct Dataset {
  std::string name;      // "fv1", "G2_circuit (proxy)", ...
  std::string source;    // file path or "generated: ..."
  bool proxy = false;    // generated stand-in for an unavailable matrix
  std::shared_ptr<const mtx::CsrPattern> pattern;
};

// Matrix Market file (.mtx or .mtx.gz); symmetric files are expanded.
Dataset load_matrix_market(const std::string& path, const mtx::HeaderCheck& check = {});

// Cora citation graph (LINQS layout: cora.cites + cora.content[.gz] in dir):
// symmetric adjacency over the papers in cora.content order, no self loops.
Dataset load_cora(const std::string& dir);

// TU-Dortmund graph set (PROTEINS layout): the disjoint union of the first
// `graphs` graphs (the batch GOGETA/OMEGA classify), adjacency as listed.
Dataset load_tu_graphs(const std::string& dir, const std::string& prefix, int graphs);

// HPCG 27-point stencil on an n x n x n grid (the embedded default problem).
Dataset hpcg(int n);

// Star stencil on an nx x ny x nz grid: 5 points in 2D (nz == 1), 7 in 3D.
Dataset stencil(int nx, int ny, int nz);

// Random banded SPD-like pattern (symmetric, diagonal present): each row
// couples to `per_side` random columns within `half_band` on each side.
Dataset banded(uint64_t rows, uint64_t half_band, int per_side, uint64_t seed = 1);

// Deterministic stand-in with exactly `rows` rows and `nnz` nonzeros: a 2D
// mesh-like pattern (diagonal, then neighbours at +-1 and +-W with W ~ sqrt(rows),
// a few percent of long-range entries), the structure of PDE and circuit
// matrices such as shallow_water1 and G2_circuit. Rows are sorted and unique.
Dataset proxy_matrix(const std::string& name, uint64_t rows, uint64_t nnz, uint64_t seed = 1);

}  // namespace cello::traffic
