// Randomised test of the top's command decoder (`<top>_cmd_decoder`) against
// its reference, exec::front_end_scan(): compiled CG / BiCGStab streams, random
// legal streams built from the field table, and each of them damaged in every
// way the decoder must catch (a flipped byte, a bad header field, truncation,
// extra records, a missing or early END). For each stream the records handed on
// must be exactly the reference's, in order, and the stop (status bit, record
// index, header flag) must be the reference's. Random stalls on the command
// port and on the record port. Built once per top config (Vdec).
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <array>
#include <cstring>
#include <vector>

#include "Vdec.h"
#include "sw/exec/front_end.hpp"
#include "sw/exec/prepare.hpp"
#include "tb/harness/checked.hpp"
#include "tb/harness/rng.hpp"
#include "tb/harness/sim.hpp"
#include "tb/harness/stream.hpp"
#include "gen/hw_config.hpp"
#include "sw/stream/problem.hpp"
#include "gen/top/top_config.hpp"

using namespace cello;
using namespace cello::tb;
using stream::StatusBit;

namespace {

const arch::Arch& the_arch() {
  static const arch::Arch a = gen::load_arch(TOP_CONFIG);
  return a;
}

// How many streams ended each way (index: status bit, kStatusBits = clean), so
// a test can check that its streams reached every verdict.
std::array<uint64_t, stream::kStatusBits + 1> g_verdicts{};
uint64_t g_records = 0;

struct Word {
  uint32_t data = 0;
  bool last = false;
};

// Runs one stream of words through the decoder; checks against the reference.
void check_stream(Sim<Vdec>& sim, Rng& rng, const std::vector<uint32_t>& words, const std::string& what) {
  const exec::FrontEndVerdict want = exec::front_end_scan(words, the_arch());
  INFO(what << ": " << words.size() << " words; reference: " << want.records_passed << " records, "
            << (want.error ? stream::to_string(*want.error) : "clean") << " " << want.reason);
  auto& d = sim.dut();
  d.cmd_valid = 0;
  d.rec_ready = 0;
  sim.reset();
  Source<Word> src(rng, random_rate(rng));
  for (size_t i = 0; i < words.size(); ++i) src.push({words[i], i + 1 == words.size()});
  const double ready_rate = random_rate(rng);
  uint64_t passed = 0;
  for (;;) {
    const bool v = src.drive();
    d.cmd_valid = v;
    if (v) {
      d.cmd_data = src.item().data;
      d.cmd_last = src.item().last;
    }
    d.rec_ready = rng.chance(ready_rate);
    sim.settle();
    if (d.rec_valid && d.rec_ready) {
      if (passed >= want.records_passed) throw Failure(fmt::format("record {} handed on; the reference stops before it", passed));
      if (d.rec_index != passed) throw Failure(fmt::format("rec_index {} where {} was expected", d.rec_index, passed));
      const size_t at = 12 + 8 * passed;
      for (size_t k = 0; k < 8; ++k)
        if (d.rec_data[k] != words[at + k])
          throw Failure(fmt::format("record {} word {} = {:08x}, expected {:08x}", passed, k, d.rec_data[k], words[at + k]));
      ++passed;
      sim.note("record", passed);
    }
    if (src.complete(d.cmd_ready)) sim.note("word");
    if (d.done || d.halted) break;
    sim.tick();
  }
  g_records += passed;
  ++g_verdicts[want.error ? static_cast<size_t>(*want.error) : stream::kStatusBits];
  if (passed != want.records_passed)
    throw Failure(fmt::format("{} records handed on, the reference hands on {}", passed, want.records_passed));
  if (d.done && want.error) throw Failure("the decoder finished cleanly; the reference stops at " + want.reason);
  if (d.halted && !want.error) throw Failure(fmt::format("the decoder halted with status {:#x}; the stream is legal", d.status));
  if (want.error) {
    const unsigned bit = 1u << static_cast<unsigned>(*want.error);
    if (d.status != bit)
      throw Failure(fmt::format("status {:#x}, expected {:#x} ({})", d.status, bit, stream::to_string(*want.error)));
    if (d.err_in_header != want.in_header) throw Failure(fmt::format("err_in_header = {}", d.err_in_header));
    if (!want.in_header && d.err_record != want.error_record)
      throw Failure(fmt::format("err_record {} , expected {}", d.err_record, want.error_record));
  } else if (d.status != 0) {
    throw Failure(fmt::format("status {:#x} after a clean stream", d.status));
  }
  // Stopped or done: both ports stay idle.
  for (int c = 0; c < 4; ++c) {
    sim.tick();
    d.cmd_valid = 1;
    sim.settle();
    if (d.cmd_ready || d.rec_valid) throw Failure("a port is active after the stop");
  }
  d.cmd_valid = 0;
}

// A random legal record of a random opcode, fields drawn inside their ranges.
stream::Record random_record(Rng& rng, const stream::OpcodeSpec* spec = nullptr) {
  const auto& table = stream::opcode_table();
  while (!spec || spec->op == stream::Opcode::End) spec = &table[rng.below(table.size())];
  stream::Record r = stream::Record::make(spec->op);
  for (const auto& f : spec->fields) {
    using stream::FieldKind;
    switch (f.kind) {
      case FieldKind::Uint:
      case FieldKind::Hex: r.set(f.offset, f.bytes, rng.range(f.min, f.max)); break;
      case FieldKind::F32: r.set(f.offset, f.bytes, rng.bits(32) & 0xbf7fffffu); break;  // exponent < 0xff
      case FieldKind::Enum: r.set(f.offset, f.bytes, rng.range(f.min, std::min<uint64_t>(f.max, f.names.size() - 1))); break;
      case FieldKind::Flags: r.set(f.offset, f.bytes, rng.bits(static_cast<int>(f.names.size()))); break;
      case FieldKind::Binds: {
        uint64_t v = 0;
        for (int k = 0; k < 4; ++k) v |= rng.below(5) << (4 * k);
        r.set(f.offset, f.bytes, v);
        break;
      }
      case FieldKind::Uses: {
        uint64_t v = 0;
        for (int k = 0; k < 4; ++k) v |= rng.below(3) << (2 * k);
        r.set(f.offset, f.bytes, v);
        break;
      }
      case FieldKind::Text: {
        const uint64_t n = rng.below(f.bytes + 1);
        for (uint64_t i = 0; i < n; ++i) {
          uint8_t c;
          do c = static_cast<uint8_t>(rng.range(0x21, 0x7e));
          while (c == '"' || c == '\\');
          r.bytes[f.offset + i] = c;
        }
        break;
      }
    }
  }
  return r;
}

stream::Stream random_stream(Rng& rng, size_t records) {
  stream::Stream s;
  s.header.granule_bytes = static_cast<uint16_t>(the_arch().granule_bytes);
  s.header.config_hash = the_arch().config_hash;
  s.header.memory_bytes = rng.below(the_arch().memory_bytes + 1);
  for (size_t i = 0; i < records; ++i) s.records.push_back(random_record(rng));
  s.records.push_back(stream::Record::make(stream::Opcode::End));
  return s;
}

// One damage of a legal stream of words; `what` says which.
std::vector<uint32_t> damage(Rng& rng, std::vector<uint32_t> w, std::string& what) {
  const size_t records = (w.size() - 12) / 8;
  switch (rng.below(9)) {
    case 0: {  // one random byte anywhere
      const size_t byte = rng.below(4 * w.size());
      w[byte / 4] ^= static_cast<uint32_t>(rng.range(1, 255)) << (8 * (byte % 4));
      what = fmt::format("byte {} flipped", byte);
      break;
    }
    case 1: {  // one random byte of a record's first word (opcodes and small fields)
      const size_t rec = rng.below(records);
      w[12 + 8 * rec] ^= static_cast<uint32_t>(rng.range(1, 255)) << (8 * rng.below(4));
      what = fmt::format("record {} word 0 damaged", rec);
      break;
    }
    case 2:  // truncated anywhere (an empty file has no word to carry cmd_last: the host never sends one)
      w.resize(1 + rng.below(w.size() - 1));
      what = "truncated";
      break;
    case 3: {  // a record too many (the header still counts the old number)
      for (int k = 0; k < 8; ++k) w.push_back(k == 0 ? 0x30 : 0);
      what = "one record more than the header says";
      break;
    }
    case 4: {  // END early: every later record comes after END
      const size_t rec = rng.below(records);
      w[12 + 8 * rec] = 0x3f;
      for (int k = 1; k < 8; ++k) w[12 + 8 * rec + k] = 0;
      what = fmt::format("END at record {}", rec);
      break;
    }
    case 5:  // no END: the last record becomes a FENCE
      w[12 + 8 * (records - 1)] = 0x30;
      what = "no END";
      break;
    case 6:  // header record count off by one either way
      w[6] += rng.chance(0.5) ? 1 : static_cast<uint32_t>(-1);
      what = "record count changed";
      break;
    case 7: {  // one header field
      const unsigned which = static_cast<unsigned>(rng.below(6));
      const size_t word[] = {0, 2, 3, 4, 8, 10};
      w[word[which]] ^= which == 4 ? 0x80000000u : static_cast<uint32_t>(1u << rng.below(32));
      if (which == 4) w[9] |= 0x40000000u;  // memory far beyond the top's
      what = fmt::format("header word {} changed", word[which]);
      break;
    }
    default:  // only the header
      w.resize(12);
      what = "header only";
      break;
  }
  return w;
}

// Prints the tally and checks that the streams reached every verdict in `need`.
void report_and_check_coverage(std::initializer_list<stream::StatusBit> need) {
  std::string line;
  for (int b = 0; b <= stream::kStatusBits; ++b)
    line += fmt::format(" {}={}", b == stream::kStatusBits ? "clean" : stream::to_string(static_cast<stream::StatusBit>(b)),
                        g_verdicts[static_cast<size_t>(b)]);
  fmt::print("streams by verdict:{}; {} records handed on\n", line, g_records);
  CHECK(g_verdicts[stream::kStatusBits] > 0);
  for (auto b : need) {
    INFO("no stream ended with " << stream::to_string(b));
    CHECK(g_verdicts[static_cast<size_t>(b)] > 0);
  }
  g_verdicts = {};
  g_records = 0;
}

void run(uint64_t seed, int streams) {
  CELLO_SEEDED_RNG(rng, seed);
  Sim<Vdec> sim;
  try {
    for (int i = 0; i < streams; ++i) {
      auto legal = exec::command_words(stream::encode(random_stream(rng, 1 + rng.below(40))));
      if (const auto v = exec::front_end_scan(legal, the_arch()); v.error)
        throw Failure(fmt::format("random stream {} is not legal: {}", i, v.reason));
      check_stream(sim, rng, legal, fmt::format("random stream {}", i));
      std::string what;
      auto bad = damage(rng, legal, what);
      check_stream(sim, rng, bad, fmt::format("random stream {}, {}", i, what));
    }
  } catch (const Failure& f) {
    FAIL(f.what() << " at cycle " << sim.cycle());
  }
  report_and_check_coverage({StatusBit::BadOpcode, StatusBit::BadField, StatusBit::BadAddress, StatusBit::BadOrder});
}

}  // namespace

TEST_CASE("cmd decoder: random legal streams and each damaged once", "[top][cmd_decoder]") { run(1, 400); }

// Every bit of every record kind, flipped one at a time in a random legal record
// (twice per bit, from two different records): the field checks, bit for bit.
TEST_CASE("cmd decoder: every bit of every record kind", "[top][cmd_decoder]") {
  CELLO_SEEDED_RNG(rng, 3);
  Sim<Vdec> sim;
  try {
    for (const auto& spec : stream::opcode_table())
      for (int round = 0; round < 2; ++round)
        for (unsigned bit = 0; bit < 8 * stream::kRecordBytes; ++bit) {
          stream::Stream st = random_stream(rng, 0);
          st.records.insert(st.records.begin(), spec.op == stream::Opcode::End ? stream::Record::make(stream::Opcode::Fence)
                                                                                 : random_record(rng, &spec));
          if (spec.op == stream::Opcode::End) st.records.back() = stream::Record::make(stream::Opcode::End);
          auto w = exec::command_words(stream::encode(st));
          const size_t target = spec.op == stream::Opcode::End ? 1 : 0;
          w[12 + 8 * target + bit / 32] ^= 1u << (bit % 32);
          check_stream(sim, rng, w, fmt::format("{} bit {} flipped", spec.name, bit));
        }
  } catch (const Failure& f) {
    FAIL(f.what() << " at cycle " << sim.cycle());
  }
  report_and_check_coverage({StatusBit::BadOpcode, StatusBit::BadField});
}

TEST_CASE("cmd decoder: compiled CG and BiCGStab streams, whole and damaged", "[top][cmd_decoder]") {
  CELLO_SEEDED_RNG(rng, 2);
  Sim<Vdec> sim;
  for (const char* wl : {"cg", "bicgstab"}) {
    stream::ProblemSpec spec;
    spec.workload = wl;
    spec.grid = 4;
    spec.n = 4;
    spec.iters = 2;
    const auto prep = exec::prepare(stream::make_problem(spec), the_arch());
    const auto words = exec::command_words(stream::encode(prep.compiled.stream));
    try {
      check_stream(sim, rng, words, wl);
      for (int i = 0; i < 100; ++i) {
        std::string what;
        auto bad = damage(rng, words, what);
        check_stream(sim, rng, bad, std::string(wl) + ", " + what);
      }
    } catch (const Failure& f) {
      FAIL(f.what() << " at cycle " << sim.cycle());
    }
  }
  // (bad_opcode and bad_address are rarer here; the tests above require them)
  report_and_check_coverage({StatusBit::BadField, StatusBit::BadOrder});
}
