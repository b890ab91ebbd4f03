// commands.bin codec, disassembler and assembler: round trips on every compiled
// workload, and every malformed header or record refused with one line naming
// the record and the reason.
#include <catch2/catch.hpp>
#include <fmt/core.h>

#include "sw/common/error.hpp"
#include "tests/common/error_message.hpp"
#include "tests/stream/stream_test_util.hpp"

using namespace cello;
using stream::Opcode;

namespace {

stream::Stream compiled(const std::string& workload, int iters, int n = 4, const std::string& dataset = "") {
  stream::ProblemSpec spec;
  spec.workload = workload;
  spec.grid = workload == "gcn" ? 14 : 10;
  spec.n = n;
  spec.o = 3;
  spec.iters = iters;
  spec.dataset = dataset;
  return exec::prepare(stream::make_problem(spec), test::arch_from()).compiled.stream;
}

// A NAME record giving tensor `id` the name `text`.
stream::Record name_record(uint64_t id, const std::string& text) {
  stream::Record nm = stream::Record::make(Opcode::Name);
  nm.set_field("id", id);
  nm.set_text(text);
  return nm;
}

// A stream of `records` and END over a 1 MB memory.
stream::Stream stream_of(std::vector<stream::Record> records) {
  stream::Stream s;
  s.header.memory_bytes = 1u << 20;
  s.records = std::move(records);
  s.records.push_back(stream::Record::make(Opcode::End));
  return s;
}

std::string decode_error(const std::vector<uint8_t>& bytes, std::optional<uint64_t> hash = std::nullopt) {
  return test::error_message([&] { stream::decode(bytes, "s.bin", hash); });
}

std::string asm_error(const std::string& text) {
  return test::error_message([&] { stream::assemble(text, "s.txt"); });
}

}  // namespace

TEST_CASE("encode/decode and asm/disasm round-trip every compiled workload byte for byte", "[stream]") {
  for (auto [w, n] : {std::pair{"cg", 4}, std::pair{"bicgstab", 4}, std::pair{"gcn", 17}}) {
    INFO(w);
    const stream::Stream s = compiled(w, 2, n);
    const std::vector<uint8_t> bin = stream::encode(s);
    REQUIRE(bin.size() == stream::kHeaderBytes + stream::kRecordBytes * s.records.size());
    const stream::Stream back = stream::decode(bin, "s.bin", s.header.config_hash);
    CHECK(stream::encode(back) == bin);
    const std::string text = stream::disassemble(s);
    CHECK(stream::encode(stream::assemble(text, "s.txt")) == bin);
    // One line per record plus the header line.
    CHECK(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) == s.records.size() + 1);
    CHECK(s.records.back().op() == Opcode::End);
  }
}

TEST_CASE("every field value prints and parses back, including edge values", "[stream]") {
  stream::Record t = stream::Record::make(Opcode::Tensor);
  t.set_field("id", 65535);
  t.set_field("rows", 0xffffffffu);
  t.set_field("cols", 1);
  t.set_field("flags", 7);
  t.set_field("base", 0xfffffffffffffff0ull);
  stream::Record g = stream::Record::make(Opcode::Gemm);
  g.set_field("tile", 1);
  g.set_f32("alpha", -0.0f);
  g.set_f32("beta", 1.17549435e-38f);  // smallest normal
  g.set_field("binds", 0x4321);
  g.set_field("uses", 0b10011001);
  g.set_field("flags", 7);
  stream::Stream s = stream_of({t, g, name_record(3, "R.10_x-y")});
  s.header.config_hash = 0xfedcba9876543210ull;
  const auto bin = stream::encode(s);
  CHECK(stream::encode(stream::decode(bin, "s.bin")) == bin);
  CHECK(stream::encode(stream::assemble(stream::disassemble(s), "s.txt")) == bin);
  CHECK(stream::disassemble(s).find("text=\"R.10_x-y\"") != std::string::npos);
  CHECK(stream::disassemble(s).find("alpha=-0 ") != std::string::npos);
}

// Found by the decoder fuzzer: a NAME text may hold '#', which the assembler
// took for the start of a comment. A comment after the record still works.
TEST_CASE("a name containing '#' survives disassembly and assembly", "[stream]") {
  const stream::Stream s = stream_of({name_record(7, "5#type#")});
  const auto bin = stream::encode(s);
  const std::string dis = stream::disassemble(s);
  REQUIRE(dis.find("text=\"5#type#\"") != std::string::npos);
  CHECK(stream::encode(stream::assemble(dis, "s.txt")) == bin);
  std::string commented = dis;
  commented.insert(commented.find("text=\"5#type#\"") + 14, "  # a comment with \"quotes\"");
  CHECK(stream::encode(stream::assemble(commented, "s.txt")) == bin);
}

TEST_CASE("the decoder refuses every malformed header with one line", "[stream]") {
  const stream::Stream s = compiled("cg", 1);
  const std::vector<uint8_t> good = stream::encode(s);
  auto with = [&](size_t at, uint8_t v) {
    auto b = good;
    b[at] = v;
    return b;
  };
  CHECK_THAT(decode_error({good.begin(), good.begin() + 20}), Catch::Matches("s\\.bin: header: file is 20 bytes, shorter than.*"));
  CHECK_THAT(decode_error(with(0, 'X')), Catch::Matches("s\\.bin: header: wrong magic.*"));
  CHECK_THAT(decode_error(with(8, 2)), Catch::Matches("s\\.bin: header: format version 2 is not supported.*"));
  CHECK_THAT(decode_error(good, s.header.config_hash ^ 1), Catch::Matches("s\\.bin: header: compiled for hardware config .* but the config is .*"));
  CHECK_THAT(decode_error({good.begin(), good.end() - 5}), Catch::Matches("s\\.bin: header: header says \\d+ records but .* truncated one\\)"));
  CHECK_THAT(decode_error(with(40, 1)), Catch::Matches("s\\.bin: header: reserved header bytes.*"));
  for (const std::string& e : {decode_error(with(0, 'X')), decode_error({good.begin(), good.end() - 5})})
    CHECK(e.find('\n') == std::string::npos);
}

TEST_CASE("the decoder names the record and the reason for bad records", "[stream]") {
  const stream::Stream s = compiled("cg", 1);
  const std::vector<uint8_t> good = stream::encode(s);
  auto rec = [&](size_t i) { return stream::kHeaderBytes + stream::kRecordBytes * i; };
  // Find a GEMM and a TENSOR record.
  size_t gemm = 0, tensor = 0;
  for (size_t i = 0; i < s.records.size(); ++i) {
    if (s.records[i].op() == Opcode::Gemm && !gemm) gemm = i;
    if (s.records[i].op() == Opcode::Tensor && !tensor) tensor = i;
  }
  REQUIRE(gemm > 0);
  auto b = good;
  b[rec(3)] = 0x7e;
  CHECK_THAT(decode_error(b), Catch::Matches("s\\.bin: record 3: unknown opcode 0x7e"));
  b = good;
  b[rec(gemm) + 16] = 0;  // tile = 0
  b[rec(gemm) + 17] = 0;
  b[rec(gemm) + 18] = 0;
  b[rec(gemm) + 19] = 0;
  CHECK_THAT(decode_error(b), Catch::Matches(fmt::format("s\\.bin: record {}: GEMM field tile = 0 is outside 1\\.\\.4294967295", gemm)));
  b = good;
  b[rec(tensor) + 6] = 1;  // reserved byte of TENSOR
  CHECK_THAT(decode_error(b), Catch::Matches(fmt::format("s\\.bin: record {}: TENSOR: reserved byte 6 is 0x01, must be 0", tensor)));
  b = good;
  b[rec(gemm) + 1] = 0x80;  // undefined flag
  CHECK_THAT(decode_error(b), Catch::Matches(fmt::format("s\\.bin: record {}: GEMM field flags = 0x80 sets undefined bits", gemm)));
  b = good;
  b[rec(gemm) + 20] = 0; b[rec(gemm) + 21] = 0; b[rec(gemm) + 22] = 0x80; b[rec(gemm) + 23] = 0x7f;  // alpha = inf
  CHECK_THAT(decode_error(b), Catch::Matches(fmt::format("s\\.bin: record {}: GEMM field alpha = inf is not a finite number", gemm)));
}

TEST_CASE("the assembler refuses bad text with the line and the reason", "[stream]") {
  const std::string head = "CELLOCMD version=1 granule=16 word=4 config=0000000000000001 memory=4096 records=1\n";
  CHECK(asm_error(head + "END\n").empty());
  CHECK_THAT(asm_error("END\n"), Catch::Matches("s\\.txt: line 1: the first line must be the header.*"));
  CHECK_THAT(asm_error(head + "FROB id=1\n"), Catch::Matches("s\\.txt: line 2: unknown command 'FROB'"));
  CHECK_THAT(asm_error(head + "CHORD_REL id=70000\n"), Catch::Matches("s\\.txt: line 2: id = 70000 is outside 0\\.\\.65535"));
  CHECK_THAT(asm_error(head + "CHORD_REL idx=1\n"), Catch::Matches("s\\.txt: line 2: CHORD_REL has no field 'idx'"));
  CHECK_THAT(asm_error(head + "CHORD_REL id=1 id=2\n"), Catch::Matches("s\\.txt: line 2: field id given twice"));
  CHECK_THAT(asm_error(head + "CHORD_REL id=-1\n"), Catch::Matches("s\\.txt: line 2: id: '-1' is not an unsigned number"));
  CHECK_THAT(asm_error(head + "GEMM tile=1 binds=dram,rf\n"), Catch::Matches("s\\.txt: line 2: binds: give four values.*"));
  CHECK_THAT(asm_error(head + "GEMM tile=1 alpha=inf\n"), Catch::Matches("s\\.txt: record 0: GEMM field alpha = inf is not a finite number"));
  CHECK_THAT(asm_error(head + "ELTW\n"), Catch::Matches("s\\.txt: line 2: ELTW needs tile= \\(at least 1\\)"));
  CHECK_THAT(asm_error(head + "END\nEND\n"), Catch::Matches("s\\.txt: header: records=1 but the text has 2 records"));
  CHECK_THAT(asm_error(head + "5: END\n"), Catch::Matches("s\\.txt: line 2: record index 5 where 0 was expected"));
}
