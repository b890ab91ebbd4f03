#include "sw/workloads/random_dag.hpp"

#include <fmt/core.h>

#include <random>
#include <vector>

namespace cello::workloads {

namespace {

// Tensor families: MN skinny [m,n], NN small [n,n], AB balanced [a,b].
enum Fam { MN, NN, AB };

struct Gen {
  std::mt19937_64 rng;
  double far;
  std::vector<std::string> pool[3];
  std::string text;

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  double real() { return std::uniform_real_distribution<double>(0, 1)(rng); }

  // Mostly recent tensors, sometimes any.
  const std::string& pick(Fam f) {
    auto& v = pool[f];
    const int n = static_cast<int>(v.size());
    if (real() < far) return v[uniform(0, n - 1)];
    int back = std::min(n - 1, static_cast<int>(std::geometric_distribution<int>(0.5)(rng)));
    return v[n - 1 - back];
  }

  std::string coef() {
    switch (uniform(0, 5)) {
      case 0: return "";
      case 1: return "0.5 * ";
      case 2: return fmt::format("{} * ", -real());
      case 3: return "2e-3 * ";
      default: return "";
    }
  }
};

}  // namespace

std::string random_dag_text(const RandomDagParams& rp) {
  Gen g{std::mt19937_64(rp.seed), rp.far_read, {}, {}};
  const int64_t m = g.real() < 0.2 ? g.uniform(1, 900) : g.uniform(1000, 60000);
  const int n = g.uniform(1, 16);
  const int a = g.uniform(40, 600), b = g.uniform(40, 600);
  const int64_t nnz = std::uniform_int_distribution<int64_t>(0, m * std::min<int64_t>(m, 30))(g.rng);
  std::string& s = g.text;
  s += fmt::format("# random DAG seed={} ops={}\nworkload random\n", rp.seed, rp.ops);
  s += fmt::format("rank m = {}\nrank k = m\nrank n = {}\nrank n2 = n\nrank j = n\n", m, n);
  s += fmt::format("rank a = {}\nrank b = {}\nrank c = b\n", a, b);
  s += fmt::format("input A[m,k] csr nnz={}\n", nnz);
  for (int i = 0; i < 3; ++i) {
    s += fmt::format("input X{}[m,n]\n", i);
    g.pool[MN].push_back(fmt::format("X{}", i));
  }
  s += "input G0[n2,n]\ninput U0[a,b]\ninput W0[c,b]\n";
  g.pool[NN].push_back("G0");
  g.pool[AB].push_back("U0");

  for (int i = 0; i < rp.ops; ++i) {
    const std::string t = fmt::format("t{}", i);
    std::string head = fmt::format("op o{}", i);
    if (g.real() < 0.5) head += fmt::format(" iter={}", i / 7);
    if (g.real() < 0.3) head += fmt::format(" line={}", g.uniform(0, 9));
    head += ": ";
    Fam out = MN;
    std::string body;
    switch (g.uniform(0, 9)) {
      case 0:  // SpMM
        body = fmt::format("{}[m,n] = A[m,k] * {}[k,n]", t, g.pick(MN));
        break;
      case 1:
      case 2:  // skinny GEMM with accumulate
        body = fmt::format("{}[m,n] = {}{}[m,n] {} {}[m,j] * {}[j,n]", t, g.coef(), g.pick(MN),
                           g.real() < 0.5 ? "+" : "-", g.pick(MN), g.pick(NN));
        break;
      case 3:  // skinny GEMM
        body = fmt::format("{}[m,n] = {}{}[m,j] * {}[j,n]", t, g.coef(), g.pick(MN), g.pick(NN));
        break;
      case 4:
      case 5:  // Gram
        out = NN;
        body = fmt::format("{}[n2,n] = {}[k,n2] * {}[k,n]", t, g.pick(MN), g.pick(MN));
        break;
      case 6: {  // host op on small tensors
        out = NN;
        const int args = 2;  // solve(D, G) and omega(Ts, Tt) both take two operands
        body = fmt::format("{}[n2,n] = host {}(", t, g.real() < 0.7 ? "solve" : "omega");
        for (int k = 0; k < args; ++k) body += fmt::format("{}{}[n2,n]", k ? ", " : "", g.pick(NN));
        body += ")";
        break;
      }
      case 7:  // element-wise
        if (g.real() < 0.5)
          body = fmt::format("{}[m,n] = {}{}[m,n] + {}[m,n]", t, g.coef(), g.pick(MN), g.pick(MN));
        else
          body = fmt::format("{}[m,n] = relu({}{}[m,n])", t, g.coef(), g.pick(MN));
        break;
      default:  // balanced GEMM
        out = AB;
        body = fmt::format("{}[a,b] = {}[a,c] * W0[c,b]", t, g.pick(AB));
        break;
    }
    s += head + body + "\n";
    g.pool[out].push_back(t);
  }
  if (!g.pool[MN].empty()) s += fmt::format("output {}\n", g.pool[MN].back());
  return s;
}

}  // namespace cello::workloads
