// `cello disasm FILE` prints a command stream one record per line;
// `cello asm FILE.txt -o FILE.bin` reads that text back (docs/commands.md).
// asm(disasm(x)) == x byte for byte.
#include <fmt/core.h>

#include "sw/cli/commands.hpp"
#include "sw/cli/output_files.hpp"
#include "sw/common/error.hpp"
#include "sw/common/read_file.hpp"
#include "sw/stream/format.hpp"

namespace cello::cli {

namespace {

void add_disasm(CLI::App& app) {
  auto* cmd = app.add_subcommand("disasm", "print a command stream (commands.bin) as text, one record per line");
  auto file = std::make_shared<std::string>();
  cmd->add_option("file", *file, "commands.bin")->required();
  cmd->callback([file] {
    const stream::Stream s = stream::decode(stream::read_bytes(*file), *file);
    fmt::print("{}", stream::disassemble(s));
  });
}

void add_asm(CLI::App& app) {
  auto* cmd = app.add_subcommand("asm", "assemble command-stream text (cello disasm's format) into commands.bin");
  auto in = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("file", *in, "text file")->required();
  cmd->add_option("-o,--out", *out, "binary to write")->required();
  cmd->callback([in, out] {
    check_output_path(*out, "--out");
    const stream::Stream s = stream::assemble(read_file_capped(*in, stream::kMaxAsmTextBytes, "command-stream text"), *in);
    stream::write_bytes(*out, stream::encode(s));
    fmt::print("cello asm: {} records -> {}\n", s.records.size(), *out);
  });
}

}  // namespace

CELLO_COMMAND("disasm", add_disasm);
CELLO_COMMAND("asm", add_asm);

}  // namespace cello::cli
