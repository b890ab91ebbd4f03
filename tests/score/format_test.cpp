// The .cello format: parsing into the IR, printing back, and one-line errors
// with file:line:column for every kind of bad input.
#include <catch2/catch.hpp>
#include <string>

#include "sw/common/error.hpp"
#include "tests/common/error_message.hpp"
#include "sw/ir/cello_format.hpp"
#include "sw/ir/dag.hpp"
#include "sw/workloads/workloads.hpp"

using namespace cello;

namespace {

// The error message of parsing `text` (empty when it parses).
std::string error_of(const std::string& text) {
  return test::error_message([&] { ir::parse_cello(text, "t.cello"); });
}

const char* kHeader =
    "rank m = 100\n"   // line 1
    "rank k = m\n"     // line 2
    "rank n = 4\n"     // line 3
    "rank j = n\n"     // line 4
    "input A[m,k] csr nnz=300\n"  // line 5
    "input P[m,n]\n"              // line 6
    "input L[j,n]\n";             // line 7

}  // namespace

TEST_CASE("a small program parses into the expected IR", "[format]") {
  std::string text = std::string(kHeader) +
                     "op s iter=1 line=1: S[m,n] = A[m,k] * P[k,n]\n"
                     "op x iter=1 line=3: X[m,n] = P[m,n] - 0.5 * S[m,j] * L[j,n]\n"
                     "op e: E[m,n] = relu(2 * X[m,n] + S[m,n])\n"
                     "op h: H[j,n] = host solve(L[j,n], L[j,n])\n"
                     "output X\n";
  ir::Program p = ir::parse_cello(text, "t.cello");
  REQUIRE(p.ranks.size() == 4);
  CHECK(p.ranks[1].size == 100);  // k = m
  REQUIRE(p.tensors.size() == 7);
  CHECK(p.tensors[0].format == ir::Format::Csr);
  CHECK(p.tensors[0].nnz == 300);
  REQUIRE(p.ops.size() == 4);
  const ir::Op& s = p.ops[0];
  CHECK(s.kind == ir::OpKind::Contract);
  CHECK(!s.acc);
  CHECK(s.iter == 1);
  CHECK(s.line == "1");
  CHECK(ir::is_contracted(s, *p.find_rank("k")));
  CHECK_FALSE(ir::is_contracted(s, *p.find_rank("m")));
  const ir::Op& x = p.ops[1];
  CHECK(x.acc);
  CHECK(x.alpha == 1.0);
  CHECK(x.beta == -0.5);
  CHECK(p.tensors[x.in[0].tensor].name == "P");
  const ir::Op& e = p.ops[2];
  CHECK(e.kind == ir::OpKind::Eltwise);
  CHECK(e.fn == "relu");
  CHECK(e.alpha == 2.0);
  CHECK(e.beta == 1.0);
  CHECK(p.ops[3].kind == ir::OpKind::Host);
  CHECK(p.ops[3].fn == "solve");
  CHECK(p.tensors[*p.find_tensor("X")].output);
  // The produced tensor takes its shape from the output subscripts.
  CHECK(p.tensors[*p.find_tensor("H")].dims == std::vector<ir::RankId>{*p.find_rank("j"), *p.find_rank("n")});

  ir::Dag d = ir::build_dag(p);
  // s -> x (S), s -> e (S), x -> e (X); nothing else is produced by an op.
  REQUIRE(d.edges.size() == 3);
  CHECK(d.edges[0].src == 0);
  CHECK(d.edges[0].dst == 1);
}

TEST_CASE("print then parse gives the same program", "[format]") {
  for (const std::string& w : workloads::names()) {
    workloads::Params prm = workloads::default_params(w);
    prm.iters = 3;
    ir::Program p = workloads::make_workload(w, prm);
    ir::Program q = ir::parse_cello(ir::print_cello(p), "printed");
    CHECK(q == p);
    CHECK(ir::print_cello(q) == ir::print_cello(p));
  }
  // Coefficients that need every digit, signs, and both kinds of operands.
  std::string text = std::string(kHeader) +
                     "op a: T[m,n] = -0.1 * P[m,n] - 3.0000000000000004 * P[m,n]\n"
                     "op b: U[m,n] = -1 * T[m,j] * L[j,n]\n"
                     "op c: V[m,n] = 1e-300 * U[m,n] + -0 * T[m,n]\n"
                     "op d: W[m,n] = relu(-2.5 * T[m,n] - U[m,j] * L[j,n])\n";
  ir::Program p = ir::parse_cello(text, "t.cello");
  CHECK(p.ops[0].alpha == -0.1);
  CHECK(p.ops[0].beta == -3.0000000000000004);
  CHECK(p.ops[3].acc);
  CHECK(p.ops[3].alpha == -2.5);
  CHECK(p.ops[3].beta == -1.0);
  CHECK(ir::parse_cello(ir::print_cello(p)) == p);
}

TEST_CASE("product term first and accumulator second mean the same op", "[format]") {
  std::string a = std::string(kHeader) + "op x: X[m,n] = P[m,n] + 2 * P[m,j] * L[j,n]\n";
  std::string b = std::string(kHeader) + "op x: X[m,n] = 2 * P[m,j] * L[j,n] + P[m,n]\n";
  CHECK(ir::parse_cello(a) == ir::parse_cello(b));
}

TEST_CASE("errors name the file, line, column and reason", "[format]") {
  std::string h = kHeader;
  // unknown rank (in a subscript, in a declaration, in an alias)
  CHECK(error_of(h + "op s: S[m,q] = A[m,k] * P[k,n]\n") == "t.cello: 8:11: unknown rank 'q'");
  CHECK(error_of("rank m = 4\ninput B[m,z]\n") == "t.cello: 2:11: unknown rank 'z'");
  CHECK(error_of("rank m = w\n") == "t.cello: 1:10: unknown rank 'w'");
  // shape mismatch: P is [m,n] but subscripted [n,n]
  CHECK(error_of(h + "op s: S[m,n] = A[m,k] * P[n,n]\n") ==
        "t.cello: 8:25: shape mismatch: dimension 0 of 'P' is m (100) but rank n is 4");
  CHECK(error_of(h + "op s: S[m,n] = A[m,k] * P[k]\n") ==
        "t.cello: 8:25: shape mismatch: 'P' has 2 ranks, subscripted with 1");
  // use before produce: produced later / never produced
  CHECK(error_of(h + "op a: X[m,n] = Y[m,n] + P[m,n]\nop b: Y[m,n] = 2 * P[m,n]\n") ==
        "t.cello: 8:16: tensor 'Y' is used before it is produced (op 'b' at line 9 produces it)");
  CHECK(error_of(h + "op a: X[m,n] = Q[m,n] + P[m,n]\n") ==
        "t.cello: 8:16: tensor 'Q' is used before it is produced (it is neither an input nor the output of any op)");
  // cycle
  CHECK(error_of(h + "op a: X[m,n] = Y[m,n] + P[m,n]\nop b: Y[m,n] = 2 * X[m,n]\n") ==
        "t.cello: 8:4: cycle: op 'b' -> 'a' -> 'b' (each reads the previous one's output)");
  CHECK(error_of(h + "op a: X[m,n] = X[m,n] + P[m,n]\n") ==
        "t.cello: 8:4: cycle: op 'a' -> 'a' (each reads the previous one's output)");
  // duplicate names
  CHECK(error_of("rank m = 4\nrank m = 5\n") == "t.cello: 2:6: duplicate name: rank 'm' already declared at line 1");
  CHECK(error_of(h + "input P[m,n]\n") == "t.cello: 8:7: duplicate name: tensor 'P' already declared");
  CHECK(error_of(h + "op a: X[m,n] = 2 * P[m,n]\nop a: Y[m,n] = 2 * P[m,n]\n") ==
        "t.cello: 9:4: duplicate name: op 'a' already defined at line 8");
  CHECK(error_of(h + "op a: X[m,n] = 2 * P[m,n]\nop b: X[m,n] = 3 * P[m,n]\n") ==
        "t.cello: 9:7: duplicate name: tensor 'X' is already produced by op 'a' at line 8");
  CHECK(error_of(h + "op a: P[m,n] = 2 * P[m,n]\n") ==
        "t.cello: 8:7: duplicate name: tensor 'P' is an input and cannot be produced");
  // syntax
  CHECK(error_of("rank m = 4\nbogus x\n") ==
        "t.cello: 2:1: unknown statement 'bogus' (expected cello, workload, rank, input, op or output)");
  CHECK(error_of("rank m = 4 5\n") == "t.cello: 1:12: expected end of line but found '5'");
  CHECK(error_of("rank m = 4.5\n") == "t.cello: 1:10: expected a rank size (a whole number) but found '4.5'");
  CHECK(error_of("rank m = 0\n") == "t.cello: 1:10: rank size 0 out of range 1..2^40");
  CHECK(error_of("rank m = 99999999999999999999\n") == "t.cello: 1:10: a rank size 99999999999999999999 is out of range");
  CHECK(error_of("rank m = 4\ninput B[m\n") == "t.cello: 2:10: expected ',' but found end of line");
  CHECK(error_of("rank m = 4 $\n") == "t.cello: 1:12: unexpected character '$'");
  CHECK(error_of(std::string("rank m = 4\x01\n")) == "t.cello: 1:11: unexpected character byte 0x01");
  CHECK(error_of("cello 2\n") == "t.cello: 1:7: unsupported format version (this reader knows version 1)");
  CHECK(error_of(h + "op a: X[m,n] = P[m,n] * P[m,n] * P[m,n]\n") ==
        "t.cello: 8:32: expected end of line but found '*'");
  CHECK(error_of(h + "op a: X[m,n] = P[m,j] * L[j,n] + P[m,j] * L[j,n]\n") ==
        "t.cello: 8:34: at most one product term per op");
  CHECK(error_of(h + "op a: X[m,n] = sigmoid(P[m,n])\n") == "t.cello: 8:16: unknown activation 'sigmoid' (known: relu)");
  CHECK(error_of("rank m = 4\nrank n = 4\ninput A[m,n] csr nnz=17\n") == "t.cello: 3:22: nnz 17 out of range 0..rows*cols");
  CHECK(error_of(h + "output Z\n") ==
        "t.cello: 8:8: unknown tensor 'Z' (not an input and not produced by any op)");
  // Semantic checks that come from the shared IR checker still carry a location.
  CHECK(error_of(h + "op a: X[m,n] = P[m,n] + A[m,k]\n") == "t.cello: 8:25: a CSR tensor can only be a product operand");
  CHECK(error_of(h + "op a: X[m,n] = P[m,j] * L[j,q]\n") == "t.cello: 8:29: unknown rank 'q'");
  CHECK(error_of(h + "op a: X[m,k] = P[m,n] * L[j,n]\n") == "t.cello: 8:7: output rank k does not appear in the product");
}

TEST_CASE("windows: valid and zero-padded shapes are accepted, others are not", "[format]") {
  std::string h = "rank h = 8\nrank r = 3\nrank c = 2\nrank k = c\nrank hv = 10\nrank hx = 9\n"
                  "input I[h,c]\ninput V[hv,c]\ninput X[hx,c]\ninput W[r,c,k]\n";
  CHECK_NOTHROW(ir::parse_cello(h + "op a: Y[h,k] = I[h+r,c] * W[r,c,k]\n"));  // same padding
  CHECK_NOTHROW(ir::parse_cello(h + "op a: Y[h,k] = V[h+r,c] * W[r,c,k]\n"));  // valid
  CHECK(error_of(h + "op a: Y[h,k] = X[h+r,c] * W[r,c,k]\n") ==
        "t.cello: 11:16: shape mismatch: window h+r spans 10 (or 8 zero-padded) but dimension 0 of 'X' is 9");
  CHECK(error_of(h + "op a: Y[h+r,k] = I[h,c] * W[r,c,k]\n") == "t.cello: 11:9: an output cannot be subscripted with a window");
}

TEST_CASE("programs built in code are checked like parsed ones", "[format]") {
  ir::Program p;
  ir::RankId m = p.add_rank("m", 10);
  p.add_input("A", {m});
  ir::Op op;
  op.name = "x";
  op.kind = ir::OpKind::Eltwise;
  op.in.push_back({0, {{m, -1}}});
  op.out = {0, {{m, -1}}};
  p.ops.push_back(op);
  CHECK_THROWS_WITH(ir::check_program(p, "code"), "code: op 'x': tensor 'A' is an input and cannot be produced");
}
