// `cello bench policy`: CHORD's replacement policy against the offline
// reference OPT (Belady MIN with bypass) on the generated problem family, and
// the policy targets of docs/chord.md on the family and on the --paper set:
// CELLO <= PRELUDE-only, <= Flex+LRU, <= Flex+BRRIP; geomean CELLO / OPT <= 1.25.
#include <fmt/core.h>

#include <chrono>

#include "sw/cli/commands.hpp"
#include "sw/cli/options.hpp"
#include "sw/common/clock.hpp"
#include "sw/common/error.hpp"
#include "sw/traffic/family.hpp"
#include "sw/traffic/options.hpp"
#include "sw/traffic/report.hpp"

namespace cello::cli {

namespace {

void add_bench_policy(CLI::App& bench) {
  auto* cmd = bench.add_subcommand("policy", "CHORD policy vs OPT on the problem family, and the --paper orderings");
  auto o = std::make_shared<StudyBenchOptions>();
  auto iters = std::make_shared<int>(5);
  auto no_paper = std::make_shared<bool>(false);
  auto chord = std::make_shared<traffic::ModelOptions>();
  add_study_bench_options(cmd, *o);
  add_chord_policy_options(cmd, *chord);
  cmd->add_option("--iters", *iters, "CG iterations of the family")->capture_default_str()->check(CLI::Range(1, 100));
  cmd->add_flag("--no-paper", *no_paper, "skip the --paper orderings");
  add_json_option(cmd, o->json);
  cmd->callback([=] {
    auto progress = [](size_t done, size_t total, const std::string&) {
      if (done % 10 == 0 || done == total) fmt::print(stderr, "  {}/{} runs done\n", done, total);
    };
    nlohmann::json j;
    j["command"] = "bench policy";
    traffic::Study f;
    traffic::apply_chord_options(*chord, f.params);
    f.problems = traffic::family_problems(false, *iters);
    f.configs = traffic::family_systems();
    f.threads = o->threads;
    f.bandwidths_gbs = {1000};
    fmt::print("cello bench policy: family of {} problems, CG {} iterations, {} thread(s); CELLO's CHORD: {}\n",
               f.problems.size(), *iters, f.threads, f.params.chord_policy());
    std::fflush(stdout);
    auto t0 = std::chrono::steady_clock::now();
    auto fr = traffic::run_study(f, progress);
    const double fam_s = seconds_since(t0);
    auto ps = traffic::summarize_policy(fr);
    fmt::print("{}", traffic::policy_table_text(ps));
    fmt::print("  family modelled in {:.1f} s\n", fam_s);
    j["family"] = traffic::policy_json(ps);
    j["family_seconds"] = fam_s;
    if (!*no_paper) {
      traffic::Study p;
      const std::string dir = o->data.empty() ? traffic::find_data_dir() : o->data;
      p.problems = traffic::paper_problems(dir);
      p.configs = {traffic::MemorySystem::Flexagon, traffic::MemorySystem::FlexLRU, traffic::MemorySystem::FlexBRRIP,
                   traffic::MemorySystem::PreludeOnly, traffic::MemorySystem::CELLO};
      p.threads = o->threads;
      p.params = f.params;
      auto t1 = std::chrono::steady_clock::now();
      auto pr = traffic::run_study(p, progress);
      const double paper_s = seconds_since(t1);
      auto pp = traffic::summarize_policy(pr);
      fmt::print("\n--paper orderings (no OPT here: its traces of the largest problems need gigabytes)\n");
      fmt::print("{:<36} {:>10} {:>9} {:>9} {:>9}  {}\n", "problem", "CELLO MB", "PRE/CELLO", "LRU/CELLO",
                 "BRRIP/CELLO", "CELLO <= PRE LRU BRRIP");
      for (const auto& r : pp.rows) {
        auto rel = [&](uint64_t x) { return r.cello_bytes ? double(x) / double(r.cello_bytes) : 0.0; };
        fmt::print("{:<36} {:>10.3f} {:>9.3f} {:>9.3f} {:>9.3f}  {:>3} {:>3} {:>3}\n", r.label, r.cello_bytes / 1e6,
                   rel(r.prelude_bytes), rel(r.lru_bytes), rel(r.brrip_bytes), r.le_prelude ? "yes" : "NO",
                   r.le_lru ? "yes" : "NO", r.le_brrip ? "yes" : "NO");
      }
      const int n = static_cast<int>(pp.rows.size());
      fmt::print("CELLO <= PRELUDE-only on {}/{}, <= Flex+LRU on {}/{}, <= Flex+BRRIP on {}/{}; modelled in {:.1f} s\n",
                 pp.le_prelude, n, pp.le_lru, n, pp.le_brrip, n, paper_s);
      j["paper"] = traffic::policy_json(pp);
      j["paper_seconds"] = paper_s;
    }
    if (!o->json.empty()) write_json_report(o->json, j);
  });
}

}  // namespace

CELLO_BENCH("policy", add_bench_policy);

}  // namespace cello::cli
