// libFuzzer entry point for the hardware-config reader (built by tests/fuzz with
// clang -fsanitize=fuzzer; not part of the generator library). Any input must
// either be rejected with a cello::Error or give a config whose canonical JSON
// reads back to the same config and whose design generates and renders.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sw/common/error.hpp"
#include "gen/config_reader.hpp"
#include "gen/hw_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  cello::gen::HwConfig c;
  try {
    c = cello::gen::parse_hw_config(cello::gen::parse_json_text(text, "fuzz"), "fuzz");
  } catch (const cello::Error&) {
    return 0;
  }
  nlohmann::json canonical = c.to_json();
  if (cello::gen::parse_hw_config(canonical, "canonical").to_json() != canonical) std::abort();
  cello::gen::Design d = cello::gen::generate_design(c);
  for (const auto& m : d.modules)
    if (m.render().empty()) std::abort();
  return 0;
}
