// libFuzzer entry point for the command-stream assembler (built by tests/stream
// with clang -fsanitize=fuzzer; not part of cello_sw). Any text must assemble or
// be refused with a cello::Error; an assembled stream must decode, and
// disassemble and assemble again to the same bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sw/common/error.hpp"
#include "sw/stream/format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  cello::stream::Stream s;
  try {
    s = cello::stream::assemble(text, "fuzz");
  } catch (const cello::Error&) {
    return 0;
  }
  const std::vector<uint8_t> bytes = cello::stream::encode(s);
  const cello::stream::Stream d = cello::stream::decode(bytes, "encoded");
  if (cello::stream::encode(cello::stream::assemble(cello::stream::disassemble(d), "again")) != bytes) std::abort();
  return 0;
}
