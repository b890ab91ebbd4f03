// The `.cello` text form of a Program (docs/cello-format.md): one statement per
// line, `#` comments. parse_cello(print_cello(p)) == p for every checked program.
//
//   cello 1
//   workload cg
//   rank m = 9604
//   rank n = 8
//   input A[m,k] csr nnz=85264
//   op l1.1 iter=1 line=1: S.1[m,n] = A[m,k] * P.0[k,n]
//   op l2h.1 iter=1 line=2: L.1[n2,n] = host solve(D.1[n2,j], G.0[j,n])
//   output X.10
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sw/ir/program.hpp"

namespace cello::ir {

// Throws cello::Error(file, "line:column", reason) on any syntax or semantic error
// (unknown rank, shape mismatch, use before produce, cycle, duplicate name...).
Program parse_cello(std::string_view text, const std::string& file = "<input>");
// Reads at most kMaxCelloBytes (a directory or an endless file is refused).
constexpr uint64_t kMaxCelloBytes = uint64_t{64} << 20;
Program load_cello(const std::string& path);

std::string print_cello(const Program& p);

// The subscripted einsum of one op, e.g. "S.1[m,n] = A[m,k] * P.0[k,n]".
std::string print_einsum(const Program& p, const Op& op);

}  // namespace cello::ir
