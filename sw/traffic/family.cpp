#include "sw/traffic/family.hpp"

#include <fmt/core.h>

#include <cmath>

#include "sw/plot/svg.hpp"

namespace cello::traffic {

namespace {

constexpr uint64_t MB = 1ull << 20;

Problem cg(Dataset d, int n, uint64_t sram_mb, int iters) {
  Problem p;
  p.workload = "cg";
  p.dataset = std::move(d);
  p.n = n;
  p.iters = iters;
  p.sram_bytes = sram_mb * MB;
  return p;
}

Dataset mesh(uint64_t rows, uint64_t seed) {
  Dataset d = proxy_matrix("mesh", rows, rows * 5, seed);
  d.name = fmt::format("mesh-{}k", rows / 1000);
  d.proxy = false;  // a generated family member, not a stand-in for a named matrix
  return d;
}

double ratio(uint64_t a, uint64_t b) { return b ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

}  // namespace

std::vector<Problem> family_problems(bool smallest, int iters) {
  std::vector<Problem> v;
  // Smallest first: these run in CTest.
  v.push_back(cg(stencil(128, 128, 1), 4, 1, iters));
  v.push_back(cg(stencil(24, 24, 24), 8, 1, iters));
  v.push_back(cg(banded(20000, 32, 3, 11), 16, 1, iters));
  v.push_back(cg(mesh(16000, 12), 1, 1, iters));
  if (smallest) return v;
  v.push_back(cg(stencil(128, 128, 1), 16, 1, iters));
  v.push_back(cg(stencil(256, 256, 1), 1, 1, iters));
  v.push_back(cg(stencil(256, 256, 1), 8, 4, iters));
  v.push_back(cg(stencil(256, 256, 1), 16, 16, iters));
  v.push_back(cg(stencil(512, 512, 1), 4, 4, iters));
  v.push_back(cg(stencil(32, 32, 32), 1, 1, iters));
  v.push_back(cg(stencil(32, 32, 32), 8, 1, iters));
  v.push_back(cg(stencil(48, 48, 48), 4, 4, iters));
  v.push_back(cg(stencil(48, 48, 48), 16, 4, iters));
  v.push_back(cg(stencil(64, 64, 64), 8, 16, iters));
  v.push_back(cg(stencil(64, 64, 64), 16, 16, iters));
  v.push_back(cg(hpcg(24), 16, 1, iters));
  v.push_back(cg(banded(50000, 32, 3, 21), 1, 1, iters));
  v.push_back(cg(banded(50000, 32, 3, 22), 8, 4, iters));
  v.push_back(cg(banded(100000, 200, 4, 23), 16, 4, iters));
  v.push_back(cg(banded(200000, 64, 2, 24), 4, 16, iters));
  v.push_back(cg(mesh(40000, 31), 8, 1, iters));
  v.push_back(cg(mesh(80000, 32), 1, 1, iters));
  v.push_back(cg(mesh(80000, 33), 16, 4, iters));
  v.push_back(cg(mesh(150000, 34), 4, 4, iters));
  v.push_back(cg(mesh(150000, 35), 16, 16, iters));
  return v;
}

std::vector<MemorySystem> family_systems() {
  return {MemorySystem::Flexagon, MemorySystem::FlexLRU, MemorySystem::FlexBRRIP, MemorySystem::PreludeOnly,
          MemorySystem::CELLO,    MemorySystem::Ideal,   MemorySystem::OPT};
}

PolicySummary summarize_policy(const StudyResult& r) {
  PolicySummary s;
  double logsum = 0;
  int n = 0;
  for (const auto& pr : r.problems) {
    auto bytes = [&](MemorySystem c) {
      const ConfigResult* x = pr.find(to_string(c));
      return x ? x->traffic.total_bytes() : 0;
    };
    PolicyRow row;
    row.label = pr.problem.label();
    row.opt_bytes = bytes(MemorySystem::OPT);
    row.cello_bytes = bytes(MemorySystem::CELLO);
    row.prelude_bytes = bytes(MemorySystem::PreludeOnly);
    row.lru_bytes = bytes(MemorySystem::FlexLRU);
    row.brrip_bytes = bytes(MemorySystem::FlexBRRIP);
    row.ideal_bytes = bytes(MemorySystem::Ideal);
    row.bound_bytes = pr.bound_bytes;
    row.cello_opt = ratio(row.cello_bytes, row.opt_bytes);
    row.prelude_opt = ratio(row.prelude_bytes, row.opt_bytes);
    row.lru_opt = ratio(row.lru_bytes, row.opt_bytes);
    row.brrip_opt = ratio(row.brrip_bytes, row.opt_bytes);
    row.le_prelude = row.cello_bytes <= row.prelude_bytes;
    row.le_lru = row.cello_bytes <= row.lru_bytes;
    row.le_brrip = row.cello_bytes <= row.brrip_bytes;
    s.le_prelude += row.le_prelude;
    s.le_lru += row.le_lru;
    s.le_brrip += row.le_brrip;
    if (row.opt_bytes) {
      logsum += std::log(row.cello_opt);
      ++n;
      if (row.cello_opt > s.worst_cello_opt) {
        s.worst_cello_opt = row.cello_opt;
        s.worst = row.label;
      }
    }
    s.rows.push_back(row);
  }
  s.geomean_cello_opt = n ? std::exp(logsum / n) : 0;
  return s;
}

std::string policy_table_text(const PolicySummary& s) {
  std::string t = fmt::format("\n{:<36} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9}  {}\n", "problem", "OPT MB", "CELLO/OPT",
                              "PRE/OPT", "LRU/OPT", "BRRIP/OPT", "Ideal/OPT", "CELLO <= PRE LRU BRRIP");
  auto mark = [](bool b) { return b ? "yes" : "NO"; };
  for (const auto& r : s.rows)
    t += fmt::format("{:<36} {:>10.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f}  {:>3} {:>3} {:>3}\n", r.label,
                     static_cast<double>(r.opt_bytes) / 1e6, r.cello_opt, r.prelude_opt, r.lru_opt, r.brrip_opt,
                     ratio(r.ideal_bytes, r.opt_bytes), mark(r.le_prelude), mark(r.le_lru), mark(r.le_brrip));
  const int n = static_cast<int>(s.rows.size());
  t += fmt::format("\ngeomean CELLO/OPT {:.3f} (target <= 1.25: {}); worst {} at {:.3f}\n", s.geomean_cello_opt,
                   s.geomean_cello_opt <= 1.25 ? "met" : "MISSED", s.worst, s.worst_cello_opt);
  t += fmt::format("CELLO <= PRELUDE-only on {}/{}, <= Flex+LRU on {}/{}, <= Flex+BRRIP on {}/{}\n", s.le_prelude, n,
                   s.le_lru, n, s.le_brrip, n);
  return t;
}

std::string policy_svg(const PolicySummary& s, const std::string& title) {
  plot::BarPanel p;
  p.title = "DRAM traffic relative to OPT (Belady MIN with bypass; lower is better)";
  p.y_label = "traffic / OPT";
  p.log_y = true;
  p.reference = 1;
  p.series = {"CELLO", "PRELUDE-only", "Flex+BRRIP"};
  for (const auto& r : s.rows) {
    p.groups.push_back(r.label);
    p.values.push_back({r.cello_opt, r.prelude_opt, r.brrip_opt});
  }
  return plot::bar_chart_svg(title, {p});
}

nlohmann::json policy_json(const PolicySummary& s) {
  nlohmann::json j;
  j["geomean_cello_over_opt"] = s.geomean_cello_opt;
  j["worst"] = {{"problem", s.worst}, {"cello_over_opt", s.worst_cello_opt}};
  j["cello_le_prelude"] = s.le_prelude;
  j["cello_le_lru"] = s.le_lru;
  j["cello_le_brrip"] = s.le_brrip;
  for (const auto& r : s.rows)
    j["problems"].push_back({{"problem", r.label},
                             {"opt_bytes", r.opt_bytes},
                             {"cello_bytes", r.cello_bytes},
                             {"prelude_bytes", r.prelude_bytes},
                             {"lru_bytes", r.lru_bytes},
                             {"brrip_bytes", r.brrip_bytes},
                             {"ideal_bytes", r.ideal_bytes},
                             {"bound_bytes", r.bound_bytes},
                             {"cello_over_opt", r.cello_opt}});
  return j;
}

}  // namespace cello::traffic
