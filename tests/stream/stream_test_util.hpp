// Shared set-up for the command-stream tests: the embedded default architecture
// (and variants), problems, and compiled + executed runs.
#pragma once

#include <string>

#include "sw/arch/arch.hpp"
#include "sw/exec/prepare.hpp"
#include "gen/hw_config.hpp"

namespace cello::test {

// The embedded default design's architecture, optionally with the JSON patched.
inline arch::Arch arch_from(const nlohmann::json& patch = nlohmann::json::object()) {
  nlohmann::json j = gen::default_hw_config_json();
  j.merge_patch(patch);
  return gen::arch_of(gen::parse_hw_config(j, "<test config>"), "<test config>");
}

struct Run {
  stream::Problem problem;
  exec::Prepared prep;
  exec::Result result;
};

inline Run compile_and_run(const stream::ProblemSpec& spec, const arch::Arch& a) {
  Run r;
  r.problem = stream::make_problem(spec);
  r.prep = exec::prepare(r.problem, a);
  r.result = exec::execute(r.prep.compiled.stream, "<stream>", a, r.prep.image);
  return r;
}

}  // namespace cello::test
