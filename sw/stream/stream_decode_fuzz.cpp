// libFuzzer entry point for the command-stream decoder (built by tests/stream
// with clang -fsanitize=fuzzer; not part of cello_sw). Any input must decode or
// be refused with a cello::Error; a decoded stream must encode back to the same
// bytes, and its disassembly must assemble back to it.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "sw/common/error.hpp"
#include "sw/stream/format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> bytes(data, data + size);
  cello::stream::Stream s;
  try {
    s = cello::stream::decode(bytes, "fuzz");
  } catch (const cello::Error&) {
    return 0;
  }
  if (cello::stream::encode(s) != bytes) std::abort();
  const cello::stream::Stream back = cello::stream::assemble(cello::stream::disassemble(s), "disassembly");
  if (cello::stream::encode(back) != bytes) std::abort();
  return 0;
}
