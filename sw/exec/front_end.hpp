// What the top's command decoder (`<top>_cmd_decoder`, docs/top.md) does with a
// command stream, as a reference for its testbench. The decoder sees the file
// one 32-bit word at a time, with `last` on the final word, and checks in
// stream order: the header, then every record as it completes. It stops at the
// first problem with one status bit (docs/commands.md, "Status") and passes
// every record before it on. Semantic checks (ids, shapes, addresses, the order
// of reads and writes) come later in the top; the executor's check_stream()
// does all of them before running anything.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sw/arch/arch.hpp"
#include "sw/exec/check.hpp"

namespace cello::exec {

struct FrontEndVerdict {
  uint64_t records_passed = 0;          // records handed on, in order, before any stop
  std::optional<StatusBit> error;       // the bit the decoder raises (none: the stream ended cleanly)
  uint64_t error_record = 0;            // record index of the problem (header problems: 0)
  bool in_header = false;               // the problem is in the header
  std::string reason;                   // for messages
};

// The file as the command port carries it: little-endian 32-bit words, the
// last one padded with zero bytes when the file is not a whole number of words.
std::vector<uint32_t> command_words(const std::vector<uint8_t>& bytes);

// The decoder's verdict on a stream of words for the top of `a` (its config
// hash, granule and memory size).
FrontEndVerdict front_end_scan(const std::vector<uint32_t>& words, const arch::Arch& a);

}  // namespace cello::exec
