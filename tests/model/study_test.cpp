// SCORE-driven studies on generated problems (no data needed): CG orderings,
// roofline/energy bookkeeping, reports; plus the real data sets when present.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "sw/bound/from_ir.hpp"
#include "sw/common/error.hpp"
#include "sw/common/skip_test.hpp"
#include "sw/traffic/options.hpp"
#include "sw/traffic/report.hpp"
#include "sw/workloads/workloads.hpp"

using namespace cello::traffic;

namespace {

Problem cg(int grid, int n, int iters) {
  Problem p;
  p.workload = "cg";
  p.dataset = hpcg(grid);
  p.n = n;
  p.iters = iters;
  return p;
}

std::string data_dir() {
  std::string d = CELLO_SHARED_DATA;
  return std::filesystem::exists(d) ? d : "";
}

}  // namespace

TEST_CASE("CG through SCORE at the paper's settings: CELLO <= PRELUDE-only <= Flexagon-like", "[study]") {
  // 4 MB SRAM, N in {1, 16} (CELLO Table V/VII), HPCG stencils from 512 to
  // 27648 rows: from everything fitting to vectors of 1.7 MB that overflow
  // CHORD together. Fig. 16(c) of the paper reports this ordering.
  for (int grid : {8, 16, 30})
    for (int n : {1, 16}) {
      ModelParams mp;
      Workload w = build_workload(cg(grid, n, 3), mp);
      const uint64_t flex = run_model(w, MemorySystem::Flexagon, mp).total_bytes();
      const uint64_t prelude = run_model(w, MemorySystem::PreludeOnly, mp).total_bytes();
      const uint64_t cello = run_model(w, MemorySystem::CELLO, mp).total_bytes();
      const uint64_t ideal = run_model(w, MemorySystem::Ideal, mp).total_bytes();
      INFO("grid " << grid << " N=" << n);
      CHECK(cello <= prelude);
      CHECK(prelude <= flex);
      CHECK(cello >= ideal);
      CHECK(ideal >= algorithmic_minimum_bytes(w, mp));
    }
}

TEST_CASE("CG through SCORE at any SRAM size: every configuration >= Ideal, CHORD never worse than op-by-op",
          "[study]") {
  // Tiny to large SRAMs. RIFF is a heuristic, so CELLO vs PRELUDE-only is not
  // asserted here; both must stay between Ideal and Flexagon-like.
  for (int n : {1, 4, 16})
    for (uint64_t sram : {4ull << 10, 32ull << 10, 256ull << 10}) {
      ModelParams mp;
      mp.sram_bytes = sram;
      Workload w = build_workload(cg(8, n, 3), mp);
      std::map<MemorySystem, uint64_t> t;
      for (auto c : all_systems()) t[c] = run_model(w, c, mp).total_bytes();
      INFO("N=" << n << " SRAM " << sram);
      CHECK(t[MemorySystem::PreludeOnly] <= t[MemorySystem::Flexagon]);
      CHECK(t[MemorySystem::CELLO] <= t[MemorySystem::Flexagon]);
      for (auto c : all_systems()) CHECK(t[c] >= t[MemorySystem::Ideal]);
      CHECK(t[MemorySystem::Ideal] >= algorithmic_minimum_bytes(w, mp));
      // Every CG intermediate has a delayed consumer: FLAT and SET gain nothing (CELLO Sec. VII-C).
      CHECK(t[MemorySystem::FLAT] == t[MemorySystem::Flexagon]);
      CHECK(t[MemorySystem::SET] == t[MemorySystem::Flexagon]);
    }
}

TEST_CASE("CG whose tensors all fit: CELLO reaches the compulsory traffic", "[study]") {
  ModelParams mp;  // 4 MB
  Workload w = build_workload(cg(8, 16, 3), mp);
  CHECK(run_model(w, MemorySystem::CELLO, mp).total_bytes() == algorithmic_minimum_bytes(w, mp));
}

TEST_CASE("Flexagon-like CG traffic, hand-computed from the algorithm", "[study]") {
  // One CG iteration on a 4^3 stencil (64 rows, 1000 nnz) with N = 4, 4-byte
  // words and 16-byte bursts. Per Algorithm 1 each op reads its operands once
  // and writes its output once; vectors are 64x4 words = 64 bursts, N x N
  // tensors 4 bursts, A = ceil(65/4) + 2 ceil(1000/4) = 17 + 500 = 517 bursts.
  //   set-up  r0: B, A, X.0 -> R.0        64+517+64 + 64
  //           g0: R.0 -> Gamma.0          64 + 4
  //   line 1  S = A P                     517+64 + 64
  //   line 2  Delta = P^T S               64+64 + 4;  host solve: 4+4 + 4
  //   line 3  X += P Lambda               64+64+4 + 64
  //   line 4  R -= S Lambda               64+64+4 + 64
  //   line 5  Gamma = R^T R               64 + 4;     host solve: 4+4 + 4
  //   line 7  P = R + P Phi               64+64+4 + 64
  // total = 709+68+645+132+12+196+196+68+12+196 = 2234 bursts.
  ModelParams mp;
  Workload w = build_workload(cg(4, 4, 1), mp);
  CHECK(run_model(w, MemorySystem::Flexagon, mp).total_bytes() == 2234 * 16);
  // Ideal: A, B, X.0 read once, X.1 written once: 517 + 64 + 64 + 64.
  CHECK(run_model(w, MemorySystem::Ideal, mp).total_bytes() == 709 * 16);
}

TEST_CASE("study bookkeeping: Flexagon is the 1x reference; speedup and energy follow the roofline", "[study]") {
  Study s;
  s.problems = {cg(6, 4, 2)};
  s.threads = 2;
  auto r = run_study(s);
  REQUIRE(r.problems.size() == 1);
  const auto& pr = r.problems[0];
  const ConfigResult* flex = pr.find("Flexagon-like");
  const ConfigResult* cello = pr.find("CELLO");
  REQUIRE(flex);
  REQUIRE(cello);
  for (size_t b = 0; b < s.bandwidths_gbs.size(); ++b) {
    CHECK(flex->speedup[b] == Approx(1.0));
    const double bw = s.bandwidths_gbs[b] * 1e9;
    const double t_flex = std::max(pr.macs / 16384e9, flex->traffic.total_bytes() / bw);
    const double t_cello = std::max(pr.macs / 16384e9, cello->traffic.total_bytes() / bw);
    CHECK(cello->speedup[b] == Approx(t_flex / t_cello));
  }
  CHECK(cello->energy_rel == Approx(double(cello->traffic.total_bytes()) / double(flex->traffic.total_bytes())));
  CHECK(r.geomean_speedup == Approx(std::sqrt(cello->speedup[0] * cello->speedup[1])));
  // Reports carry every configuration.
  auto j = to_json(s, r);
  CHECK(j["problems"][0]["configs"].size() == all_systems().size());
  auto csv = to_csv(r);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 1 + static_cast<long>(all_systems().size() * 2));
  auto svg = to_svg(r, "t");
  CHECK(svg.rfind("<svg", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(table_text(r).find("CELLO") != std::string::npos);
  // Per-tensor bytes: every configuration's tensors add up to its totals, in
  // model.json and in the --tensors table (whose rows name the tensors).
  for (const auto& c : j["problems"][0]["configs"]) {
    INFO(c["config"]);
    uint64_t rd = 0, wr = 0;
    for (const auto& [name, t] : c["tensors"].items()) {
      rd += t["read_bytes"].get<uint64_t>();
      wr += t["write_bytes"].get<uint64_t>();
    }
    CHECK(rd == c["read_bytes"].get<uint64_t>());
    CHECK(wr == c["write_bytes"].get<uint64_t>());
  }
  CHECK(j["problems"][0]["configs"][0]["tensors"].contains("A"));
  const std::string tt = tensor_table_text(r);
  CHECK(tt.find("DRAM kB per tensor") != std::string::npos);
  CHECK(tt.find("\n   A ") != std::string::npos);
}

TEST_CASE("proxy matrices have exactly the published rows and nonzeros, mesh-like and reproducible", "[datasets]") {
  auto d = proxy_matrix("shallow_water1", 81920, 327680, 11);
  CHECK(d.proxy);
  CHECK(d.name.find("proxy") != std::string::npos);
  const auto& p = *d.pattern;
  CHECK(p.rows == 81920);
  CHECK(p.nnz() == 327680);
  int64_t near = 0, W = 286;  // floor(sqrt(81920))
  for (int64_t r = 0; r < p.rows; ++r)
    for (int64_t j = p.row_ptr[r]; j < p.row_ptr[r + 1]; ++j) {
      if (j > p.row_ptr[r]) REQUIRE(p.col[j] > p.col[j - 1]);  // sorted, unique
      int64_t c = p.col[j];
      if ((c > r ? c - r : r - c) <= 2 * W + 1) ++near;
    }
  CHECK(near > p.nnz() * 9 / 10);
  auto again = proxy_matrix("shallow_water1", 81920, 327680, 11);
  CHECK(again.pattern->col == p.col);
  CHECK(proxy_matrix("G2_circuit", 150102, 726674, 12).pattern->nnz() == 726674);
  CHECK_THROWS_AS(proxy_matrix("x", 10, 5), cello::Error);
}

TEST_CASE("real data sets load with the expected shapes (skipped without ../shared/data)", "[datasets]") {
  const std::string d = data_dir();
  if (d.empty()) {
    cello::skip_test(std::string(CELLO_SHARED_DATA) + " not found; real-matrix checks not run");
  }
  auto fv1 = load_matrix_market(d + "/suitesparse/fv1.mtx");
  CHECK(fv1.pattern->rows == 9604);
  CHECK(fv1.pattern->nnz() == 85264);  // Table VI
  auto nasa = load_matrix_market(d + "/suitesparse/nasa4704.mtx.gz");
  CHECK(nasa.pattern->nnz() == 104756);
  auto cora = load_cora(d + "/graphs/cora");
  CHECK(cora.pattern->rows == 2708);
  CHECK(cora.pattern->nnz() == 10556);  // 5278 undirected citations, both directions
  auto prot = load_tu_graphs(d + "/graphs/PROTEINS", "PROTEINS", 64);
  CHECK(prot.pattern->rows == 3786);  // Table VI: protein M=3786, nnz=14456
  CHECK(prot.pattern->nnz() == 14456);
}

TEST_CASE("paper study on real fv1: CELLO beats every baseline (skipped without data)", "[datasets]") {
  const std::string d = data_dir();
  if (d.empty()) {
    cello::skip_test(std::string(CELLO_SHARED_DATA) + " not found; the fv1 study is not run");
  }
  Problem p;
  p.workload = "cg";
  p.dataset = load_matrix_market(d + "/suitesparse/fv1.mtx");
  p.n = 16;
  p.iters = 2;
  ModelParams mp;
  Workload w = build_workload(p, mp);
  const uint64_t cello = run_model(w, MemorySystem::CELLO, mp).total_bytes();
  for (auto c : {MemorySystem::Flexagon, MemorySystem::FlexLRU, MemorySystem::FlexBRRIP, MemorySystem::FLAT, MemorySystem::SET, MemorySystem::PreludeOnly})
    CHECK(cello <= run_model(w, c, mp).total_bytes());
}

TEST_CASE("options: sizes, names and bad input", "[options]") {
  CHECK(parse_bytes("4MB", "x") == 4ull << 20);
  CHECK(parse_bytes("512kb", "x") == 512ull << 10);
  CHECK(parse_bytes("4096", "x") == 4096);
  CHECK_THROWS_AS(parse_bytes("4XB", "x"), cello::Error);
  CHECK_THROWS_AS(parse_bytes("MB", "x"), cello::Error);
  ModelOptions o;
  o.dataset = "hpcg:5";
  CHECK(problem_from_options(o).dataset.pattern->rows == 125);
  CHECK(problem_from_options(o).n == 16);
  o.dataset = "nonsense";
  CHECK_THROWS_AS(problem_from_options(o), cello::Error);
  o.dataset = "hpcg:4";
  o.workload = "lu";
  CHECK_THROWS_AS(problem_from_options(o), cello::Error);
  o.workload = "cg";
  o.sram = "100";
  CHECK_THROWS_AS(study_from_options(o), cello::Error);
  o.sram = "4MB";
  o.configs = {"cello", "bogus"};
  CHECK_THROWS_AS(study_from_options(o), cello::Error);
}

TEST_CASE("dense einsums of CG give ski slopes that reach their algorithmic minimum", "[bound]") {
  cello::workloads::Params wp = cello::workloads::default_params("cg");
  wp.m = 512;
  wp.nnz = 10648;
  wp.n = 8;
  auto es = cello::bound::dense_einsums(cello::workloads::make_workload("cg", wp));
  REQUIRE(es.size() >= 2);  // Gram (P^T S) and skewed GEMM with accumulate (X + P Lambda)
  for (const auto& e : es) {
    auto f = cello::bound::ski_slope(e);
    INFO(e.to_string());
    CHECK(f.back().accesses == e.algorithmic_minimum());
  }
}
