// `<top>_cmd_decoder`: the front end of the accelerator top. It takes the words
// of commands.bin from the command port, checks the header against the top it
// was generated for (config hash, granule, memory size) and every record
// against the command-stream field table (sw/stream/format.cpp: the checks are
// generated from that one table), and hands legal records on one at a time. At
// the first problem it stops with one sticky status bit and the record index,
// and never waits on a stream that ended early (the port's `last` flag).
// exec::front_end_scan() is its reference (docs/top.md).
#pragma once

#include <string>

#include "sw/arch/arch.hpp"
#include "gen/design.hpp"

namespace cello::gen {

void add_cmd_decoder(Design& design, const std::string& module, const arch::Arch& a);

}  // namespace cello::gen
