// libFuzzer entry point for the .cello parser (built by tests/score with clang
// -fsanitize=fuzzer; not part of cello_sw). Any input must either parse or be
// rejected with a cello::Error; a parsed program must print and parse back to
// itself, and small ones must compile through SCORE without failing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sw/common/error.hpp"
#include "sw/ir/cello_format.hpp"
#include "sw/score/compile.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  cello::ir::Program p;
  try {
    p = cello::ir::parse_cello(text, "fuzz");
  } catch (const cello::Error&) {
    return 0;
  }
  cello::ir::Program q = cello::ir::parse_cello(cello::ir::print_cello(p), "printed");
  if (!(q == p)) std::abort();
  // Keep each run fast: the passes are linear, but a fuzzed rank count is not bounded.
  if (p.ops.size() <= 64 && p.ranks.size() <= 16) {
    cello::score::Schedule s = cello::score::compile(std::move(p));
    if (s.edges.size() != s.dag.edges.size()) std::abort();
    (void)cello::score::schedule_json(s);
  }
  return 0;
}
