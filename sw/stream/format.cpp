#include "sw/stream/format.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <set>
#include <span>
#include <cmath>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "sw/common/error.hpp"
#include "sw/common/output_file.hpp"
#include "sw/common/read_file.hpp"
#include "sw/common/enum_names.hpp"

namespace cello::stream {

namespace {

constexpr uint64_t kU16 = 0xffff, kU32 = 0xffffffffull, kU64 = ~0ull;

// Operand fields shared by the four launch kinds.
std::vector<FieldSpec> launch_fields() {
  return {
      {"flags", 1, 1, FieldKind::Flags, 0, 31, {"relu", "cont", "with_c", "pipe_gram", "pipe_gram_x"}},
      {"out", 2, 2, FieldKind::Uint, 0, kU16},
      {"a", 4, 2, FieldKind::Uint, 0, kU16},
      {"b", 6, 2, FieldKind::Uint, 0, kU16},
      {"c", 8, 2, FieldKind::Uint, 0, kU16},
      {"binds", 10, 2, FieldKind::Binds, 0, kU16},
      {"uses", 12, 1, FieldKind::Uses, 0, 0xff},
      {"order", 13, 1, FieldKind::Enum, 0, 1, {"rows_outer", "reduction_outer"}},
      {"k", 14, 2, FieldKind::Uint, 0, kU16},
      {"tile", 16, 4, FieldKind::Uint, 1, kU32},
      {"alpha", 20, 4, FieldKind::F32},
      {"beta", 24, 4, FieldKind::F32},
      {"k0", 28, 4, FieldKind::Uint, 0, kU32},
  };
}

std::vector<OpcodeSpec> build_table() {
  const FieldSpec id{"id", 2, 2, FieldKind::Uint, 0, kU16};
  return {
      {Opcode::Tensor,
       "TENSOR",
       {{"format", 1, 1, FieldKind::Enum, 0, 1, {"dense", "csr"}},
        id,
        {"flags", 4, 1, FieldKind::Flags, 0, 15, {"input", "output", "chord", "col_major"}},
        {"rows", 8, 4, FieldKind::Uint, 1, kU32},
        {"cols", 12, 4, FieldKind::Uint, 1, kU32},
        {"nnz", 16, 4, FieldKind::Uint, 0, kU32},
        {"base", 24, 8, FieldKind::Hex, 0, kU64}}},
      {Opcode::Name, "NAME", {{"part", 1, 1, FieldKind::Uint, 0, 255}, id, {"text", 4, 28, FieldKind::Text}}},
      {Opcode::ChordReg,
       "CHORD_REG",
       {id, {"distance", 8, 4, FieldKind::Uint, 0, kU32}, {"remaining", 12, 4, FieldKind::Uint, 0, kU32}}},
      {Opcode::ChordUpd,
       "CHORD_UPD",
       {id, {"distance", 8, 4, FieldKind::Uint, 0, kU32}, {"remaining", 12, 4, FieldKind::Uint, 0, kU32}}},
      {Opcode::ChordRel, "CHORD_REL", {id}},
      {Opcode::RfLoad,
       "RF_LOAD",
       {{"from", 1, 1, FieldKind::Enum, 1, 2, {"none", "dram", "chord"}},
        id,
        {"row0", 4, 2, FieldKind::Uint, 0, kU16},
        {"rows", 6, 2, FieldKind::Uint, 1, kU16},
        {"scale", 8, 4, FieldKind::F32}}},
      {Opcode::Gemm, "GEMM", launch_fields()},
      {Opcode::Gram, "GRAM", launch_fields()},
      {Opcode::Spmm, "SPMM", launch_fields()},
      {Opcode::Eltw, "ELTW", launch_fields()},
      {Opcode::Fence, "FENCE", {}},
      {Opcode::Host,
       "HOST",
       {{"fn", 1, 1, FieldKind::Enum, 1, 2, {"none", "solve", "omega"}},
        {"out", 2, 2, FieldKind::Uint, 0, kU16},
        {"a", 4, 2, FieldKind::Uint, 0, kU16},
        {"b", 6, 2, FieldKind::Uint, 0, kU16}}},
      {Opcode::End, "END", {}},
  };
}

constexpr const char* kBindNames[] = {"none", "dram", "chord", "pipe", "rf"};
constexpr const char* kUseNames[] = {"stream", "whole", "gather"};
static_assert(names_cover(kBindNames, Bind::Rf));
static_assert(names_cover(kUseNames, Use::Gather));
constexpr const char* kRoles[] = {"out", "a", "b", "c"};

bool printable_text(char c) { return c > 0x20 && c < 0x7f && c != '"' && c != '\\'; }

// Cuts a '#' comment off an assembler line; a '#' inside a quoted text (a NAME
// may contain one) is part of the text.
void strip_comment(std::string& line) {
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"') quoted = !quoted;
    if (line[i] == '#' && !quoted) {
      line.resize(i);
      return;
    }
  }
}

std::string f32_text(uint32_t bits) {
  const float f = std::bit_cast<float>(bits);
  if (std::isnan(f)) return fmt::format("0x{:08x}", bits);
  return fmt::format("{}", f);
}

// The binds and uses fields: one slot per role (out, a, b, c), `width` bits
// apart, each printed by name ("?" past the table), comma-separated.
std::string role_slots_text(uint64_t v, int width, std::span<const char* const> names) {
  std::string s;
  for (int k = 0; k < 4; ++k) {
    const uint64_t x = v >> (width * k) & ((uint64_t{1} << width) - 1);
    if (k) s += ',';
    s += x < names.size() ? names[x] : "?";
  }
  return s;
}

// Field value -> text (the disassembler).
std::string field_text(const Record& r, const FieldSpec& f) {
  const uint64_t v = f.kind == FieldKind::Text ? 0 : r.get(f.offset, f.bytes);
  switch (f.kind) {
    case FieldKind::Uint: return fmt::format("{}", v);
    case FieldKind::Hex: return fmt::format("0x{:x}", v);
    case FieldKind::F32: return f32_text(static_cast<uint32_t>(v));
    case FieldKind::Enum: return v < f.names.size() ? f.names[v] : fmt::format("{}", v);
    case FieldKind::Flags: {
      if (!v) return "0";
      std::string s;
      for (size_t b = 0; b < f.names.size(); ++b)
        if (v >> b & 1) {
          if (!s.empty()) s += '|';
          s += f.names[b];
        }
      return s;
    }
    case FieldKind::Text: return fmt::format("\"{}\"", r.text());
    case FieldKind::Binds: return role_slots_text(v, 4, kBindNames);
    case FieldKind::Uses: return role_slots_text(v, 2, kUseNames);
  }
  return "?";
}

// Checks one field of a decoded record; returns the reason or "".
std::string field_problem(const Record& r, const FieldSpec& f) {
  if (f.kind == FieldKind::Text) {
    const std::string t = r.text();
    for (char c : t)
      if (!printable_text(c)) return fmt::format("field {}: character 0x{:02x} is not printable", f.name, c & 0xff);
    for (size_t i = t.size(); i < f.bytes; ++i)
      if (r.bytes[f.offset + i] != 0) return fmt::format("field {}: bytes after the terminating NUL must be 0", f.name);
    return "";
  }
  const uint64_t v = r.get(f.offset, f.bytes);
  switch (f.kind) {
    case FieldKind::Uint:
    case FieldKind::Hex:
      if (v < f.min || v > f.max) return fmt::format("field {} = {} is outside {}..{}", f.name, v, f.min, f.max);
      return "";
    case FieldKind::F32: {
      const float x = std::bit_cast<float>(static_cast<uint32_t>(v));
      if (!std::isfinite(x)) return fmt::format("field {} = {} is not a finite number", f.name, f32_text(static_cast<uint32_t>(v)));
      return "";
    }
    case FieldKind::Enum:
      if (v < f.min || v > f.max || v >= f.names.size())
        return fmt::format("field {} = {} is not a valid value", f.name, v);
      return "";
    case FieldKind::Flags:
      if (v >> f.names.size()) return fmt::format("field {} = 0x{:x} sets undefined bits", f.name, v);
      return "";
    case FieldKind::Binds:
      for (int k = 0; k < 4; ++k)
        if ((v >> (4 * k) & 0xf) > 4) return fmt::format("field binds: {} has no binding {}", kRoles[k], v >> (4 * k) & 0xf);
      return "";
    case FieldKind::Uses:
      for (int k = 0; k < 4; ++k)
        if ((v >> (2 * k) & 3) > 2) return fmt::format("field uses: {} has no use 3", kRoles[k]);
      return "";
    case FieldKind::Text: break;
  }
  return "";
}

uint64_t get_le(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = n; i-- > 0;) v = v << 8 | p[i];
  return v;
}
void put_le(uint8_t* p, size_t n, uint64_t v) {
  for (size_t i = 0; i < n; ++i, v >>= 8) p[i] = static_cast<uint8_t>(v & 0xff);
}

}  // namespace

const FieldSpec& field_spec(Opcode op, const char* name) {
  const OpcodeSpec* s = find_opcode(static_cast<uint8_t>(op));
  if (s)
    for (const auto& f : s->fields)
      if (std::strcmp(f.name, name) == 0) return f;
  throw std::logic_error(fmt::format("record kind 0x{:02x} has no field '{}'", static_cast<int>(op), name));
}

const std::vector<OpcodeSpec>& opcode_table() {
  static const std::vector<OpcodeSpec> t = build_table();
  return t;
}

const OpcodeSpec* find_opcode(uint8_t op) {
  for (const auto& s : opcode_table())
    if (static_cast<uint8_t>(s.op) == op) return &s;
  return nullptr;
}

const OpcodeSpec* find_opcode(const std::string& mnemonic) {
  for (const auto& s : opcode_table())
    if (mnemonic == s.name) return &s;
  return nullptr;
}

constexpr const char* kStatusBitNames[] = {"bad_opcode", "bad_field", "bad_tensor", "bad_address", "bad_order",
                                           "chord_error", "protocol"};
static_assert(names_cover(kStatusBitNames, StatusBit::Protocol));
const char* to_string(StatusBit b) { return name_of(b, kStatusBitNames); }

const char* to_string(Bind b) { return name_of(b, kBindNames); }
const char* to_string(Use u) { return name_of(u, kUseNames); }

uint64_t Record::get(uint8_t offset, uint8_t n) const { return get_le(bytes.data() + offset, std::min<size_t>(n, 8)); }
void Record::set(uint8_t offset, uint8_t n, uint64_t v) { put_le(bytes.data() + offset, n, v); }

uint64_t Record::field(const char* name) const {
  const FieldSpec& f = field_spec(op(), name);
  return get(f.offset, f.bytes);
}
void Record::set_field(const char* name, uint64_t v) {
  const FieldSpec& f = field_spec(op(), name);
  set(f.offset, f.bytes, v);
}
float Record::f32(const char* name) const { return std::bit_cast<float>(static_cast<uint32_t>(field(name))); }
void Record::set_f32(const char* name, float v) { set_field(name, std::bit_cast<uint32_t>(v)); }

std::string Record::text() const {
  const FieldSpec& f = field_spec(Opcode::Name, "text");
  std::string s;
  for (size_t i = 0; i < f.bytes && bytes[f.offset + i]; ++i) s += static_cast<char>(bytes[f.offset + i]);
  return s;
}

void Record::set_text(const std::string& t) {
  const FieldSpec& f = field_spec(Opcode::Name, "text");
  if (t.size() > f.bytes) throw std::logic_error("NAME text longer than its field");
  for (size_t i = 0; i < f.bytes; ++i) bytes[f.offset + i] = i < t.size() ? static_cast<uint8_t>(t[i]) : 0;
}

Record Record::make(Opcode op) {
  Record r;
  r.bytes[0] = static_cast<uint8_t>(op);
  return r;
}

std::vector<uint8_t> encode(const Stream& s) {
  std::vector<uint8_t> out(kHeaderBytes + kRecordBytes * s.records.size(), 0);
  std::memcpy(out.data(), kMagic, 8);
  put_le(&out[8], 2, s.header.version);
  put_le(&out[10], 2, kRecordBytes);
  put_le(&out[12], 2, s.header.granule_bytes);
  put_le(&out[14], 2, s.header.word_bytes);
  put_le(&out[16], 8, s.header.config_hash);
  put_le(&out[24], 8, s.records.size());
  put_le(&out[32], 8, s.header.memory_bytes);
  for (size_t i = 0; i < s.records.size(); ++i)
    std::memcpy(&out[kHeaderBytes + kRecordBytes * i], s.records[i].bytes.data(), kRecordBytes);
  return out;
}

Stream decode(const std::vector<uint8_t>& b, const std::string& file, std::optional<uint64_t> expect_hash) {
  auto bad = [&](const std::string& why) { throw Error(file, "header", why); };
  if (b.size() < kHeaderBytes) bad(fmt::format("file is {} bytes, shorter than the {}-byte header", b.size(), kHeaderBytes));
  if (std::string why = header_problem(b.data()); !why.empty()) bad(why);
  Stream s;
  s.header.version = static_cast<uint16_t>(get_le(&b[8], 2));
  s.header.granule_bytes = static_cast<uint16_t>(get_le(&b[12], 2));
  s.header.word_bytes = static_cast<uint16_t>(get_le(&b[14], 2));
  s.header.config_hash = get_le(&b[16], 8);
  const uint64_t count = get_le(&b[24], 8);
  s.header.memory_bytes = get_le(&b[32], 8);
  if (expect_hash && *expect_hash != s.header.config_hash)
    bad(fmt::format("compiled for hardware config {} but the config is {}", config_hash_hex(s.header.config_hash),
                    config_hash_hex(*expect_hash)));
  const uint64_t body = b.size() - kHeaderBytes;
  if (body % kRecordBytes != 0 || body / kRecordBytes != count)
    bad(fmt::format("header says {} records but the file holds {} bytes of records ({} records{})", count, body,
                    body / kRecordBytes, body % kRecordBytes ? " and a truncated one" : ""));
  s.records.resize(count);
  for (uint64_t i = 0; i < count; ++i) {
    Record& r = s.records[i];
    std::memcpy(r.bytes.data(), &b[kHeaderBytes + kRecordBytes * i], kRecordBytes);
    if (std::string why = record_problem(r); !why.empty()) throw Error(file, fmt::format("record {}", i), why);
  }
  return s;
}

std::string header_problem(const uint8_t* h) {
  if (std::memcmp(h, kMagic, 8) != 0) return "wrong magic (not a CELLO command stream)";
  const uint64_t version = get_le(h + 8, 2), record = get_le(h + 10, 2), granule = get_le(h + 12, 2), word = get_le(h + 14, 2);
  if (version != kVersion) return fmt::format("format version {} is not supported (this build reads {})", version, kVersion);
  if (record != kRecordBytes) return fmt::format("record size {} (version 1 records are {} bytes)", record, kRecordBytes);
  if (word != 4) return fmt::format("word size {} (only 4-byte words are defined)", word);
  if (granule < 4 || !std::has_single_bit(granule))
    return fmt::format("granule size {} must be a power of two of at least 4 bytes", granule);
  if (get_le(h + 40, 8) != 0) return "reserved header bytes 40..47 must be 0";
  return "";
}

std::array<bool, kRecordBytes> covered_bytes(const OpcodeSpec& spec) {
  std::array<bool, kRecordBytes> covered{};
  covered[0] = true;  // the opcode
  for (const auto& f : spec.fields)
    for (size_t k = 0; k < f.bytes; ++k) covered[f.offset + k] = true;
  return covered;
}

std::string record_problem(const Record& r) {
  const OpcodeSpec* spec = find_opcode(r.bytes[0]);
  if (!spec) return fmt::format("unknown opcode 0x{:02x}", r.bytes[0]);
  for (const auto& f : spec->fields) {
    std::string why = field_problem(r, f);
    if (!why.empty()) return std::string(spec->name) + " " + why;
  }
  const auto covered = covered_bytes(*spec);
  for (size_t k = 0; k < kRecordBytes; ++k)
    if (!covered[k] && r.bytes[k])
      return fmt::format("{}: reserved byte {} is 0x{:02x}, must be 0", spec->name, k, r.bytes[k]);
  return "";
}

std::string disassemble(const Record& r) {
  const OpcodeSpec* spec = find_opcode(r.bytes[0]);
  if (!spec) return fmt::format("UNKNOWN opcode=0x{:02x}", r.bytes[0]);
  std::string s = spec->name;
  for (const auto& f : spec->fields) s += fmt::format(" {}={}", f.name, field_text(r, f));
  return s;
}

std::string disassemble(const Stream& s) {
  std::string out = fmt::format("CELLOCMD version={} granule={} word={} config={} memory=0x{:x} records={}\n",
                                s.header.version, s.header.granule_bytes, s.header.word_bytes,
                                config_hash_hex(s.header.config_hash), s.header.memory_bytes, s.records.size());
  for (size_t i = 0; i < s.records.size(); ++i) out += fmt::format("{:>6}: {}\n", i, disassemble(s.records[i]));
  return out;
}

namespace {

// Assembler helpers: every error names the line and the token.
struct Asm {
  const std::string& file;
  int line = 0;
  [[noreturn]] void fail(const std::string& why) const { throw Error(file, fmt::format("line {}", line), why); }

  uint64_t number(const std::string& key, const std::string& v) const {
    if (v.empty()) fail(key + ": empty value");
    size_t used = 0;
    uint64_t x = 0;
    try {
      if (v[0] == '-' || v[0] == '+') throw std::invalid_argument("sign");
      x = std::stoull(v, &used, 0);
    } catch (const std::exception&) {
      fail(fmt::format("{}: '{}' is not an unsigned number", key, v));
    }
    if (used != v.size()) fail(fmt::format("{}: '{}' is not an unsigned number", key, v));
    return x;
  }

  uint32_t f32_bits(const std::string& key, const std::string& v) const {
    if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
      const uint64_t x = number(key, v);
      if (x > kU32) fail(fmt::format("{}: '{}' is wider than 32 bits", key, v));
      return static_cast<uint32_t>(x);
    }
    char* end = nullptr;
    errno = 0;
    const float f = std::strtof(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size()) fail(fmt::format("{}: '{}' is not a number", key, v));
    return std::bit_cast<uint32_t>(f);
  }

  uint64_t pick(const std::string& key, const std::string& v, const std::vector<const char*>& names) const {
    for (size_t i = 0; i < names.size(); ++i)
      if (v == names[i]) return i;
    std::string all;
    for (const char* n : names) {
      if (!all.empty()) all += ", ";
      all += n;
    }
    fail(fmt::format("{}: '{}' is not one of {}", key, v, all));
  }

  std::vector<std::string> split(const std::string& v, char sep) const {
    std::vector<std::string> out;
    std::string cur;
    for (char c : v) {
      if (c == sep) {
        out.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    out.push_back(cur);
    return out;
  }

  void set(Record& r, const FieldSpec& f, const std::string& v) const {
    const std::string key = f.name;
    switch (f.kind) {
      case FieldKind::Uint:
      case FieldKind::Hex: {
        const uint64_t x = number(key, v);
        if (x < f.min || x > f.max) fail(fmt::format("{} = {} is outside {}..{}", key, x, f.min, f.max));
        r.set(f.offset, f.bytes, x);
        return;
      }
      case FieldKind::F32: r.set(f.offset, f.bytes, f32_bits(key, v)); return;
      case FieldKind::Enum: {
        const uint64_t x = pick(key, v, f.names);
        if (x < f.min || x > f.max) fail(fmt::format("{}: '{}' is not allowed here", key, v));
        r.set(f.offset, f.bytes, x);
        return;
      }
      case FieldKind::Flags: {
        uint64_t x = 0;
        if (v != "0")
          for (const std::string& n : split(v, '|')) x |= uint64_t{1} << pick(key, n, f.names);
        r.set(f.offset, f.bytes, x);
        return;
      }
      case FieldKind::Text: {
        if (v.size() < 2 || v.front() != '"' || v.back() != '"') fail(key + ": text must be in double quotes");
        const std::string t = v.substr(1, v.size() - 2);
        if (t.size() > f.bytes) fail(fmt::format("{}: {} characters, at most {} fit", key, t.size(), f.bytes));
        for (char c : t)
          if (!printable_text(c)) fail(key + ": only printable characters without spaces, quotes or backslashes");
        r.set_text(t);
        return;
      }
      case FieldKind::Binds:
      case FieldKind::Uses: {
        const auto parts = split(v, ',');
        if (parts.size() != 4) fail(key + ": give four values (out,a,b,c)");
        const bool binds = f.kind == FieldKind::Binds;
        uint64_t x = 0;
        for (int k = 0; k < 4; ++k) {
          const uint64_t c = binds ? pick(key, parts[static_cast<size_t>(k)], {kBindNames, kBindNames + 5})
                                   : pick(key, parts[static_cast<size_t>(k)], {kUseNames, kUseNames + 3});
          x |= c << (binds ? 4 * k : 2 * k);
        }
        r.set(f.offset, f.bytes, x);
        return;
      }
    }
  }
};

std::vector<std::string> tokens(const std::string& line) {
  std::vector<std::string> t;
  std::istringstream in(line);
  std::string w;
  while (in >> w) t.push_back(w);
  return t;
}

std::pair<std::string, std::string> key_value(const Asm& a, const std::string& tok) {
  const size_t eq = tok.find('=');
  if (eq == std::string::npos || eq == 0) a.fail(fmt::format("expected key=value, found '{}'", tok));
  return {tok.substr(0, eq), tok.substr(eq + 1)};
}

}  // namespace

Stream assemble(const std::string& text, const std::string& file) {
  Asm a{file};
  Stream s;
  bool have_header = false;
  uint64_t declared = 0;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    ++a.line;
    strip_comment(line);
    auto tok = tokens(line);
    if (tok.empty()) continue;
    size_t at = 0;
    if (!have_header) {
      if (tok[0] != "CELLOCMD") a.fail("the first line must be the header: CELLOCMD version=1 granule=16 word=4 config=... memory=... records=...");
      std::set<std::string> seen;
      for (at = 1; at < tok.size(); ++at) {
        auto [k, v] = key_value(a, tok[at]);
        if (!seen.insert(k).second) a.fail("header: " + k + " given twice");
        if (k == "version") {
          if (a.number(k, v) != kVersion) a.fail(fmt::format("version {} is not supported (this build writes {})", v, kVersion));
        } else if (k == "granule") {
          const uint64_t g = a.number(k, v);
          if (g < 4 || g > 0x8000 || !std::has_single_bit(g)) a.fail("granule must be a power of two from 4 to 32768");
          s.header.granule_bytes = static_cast<uint16_t>(g);
        } else if (k == "word") {
          if (a.number(k, v) != 4) a.fail("word must be 4");
        } else if (k == "config") {
          try {
            s.header.config_hash = parse_config_hash(v);
          } catch (const Error& e) {
            a.fail(e.what());
          }
        } else if (k == "memory") {
          s.header.memory_bytes = a.number(k, v);
        } else if (k == "records") {
          declared = a.number(k, v);
        } else {
          a.fail("header: unknown key '" + k + "' (version, granule, word, config, memory, records)");
        }
      }
      for (const char* k : {"config", "memory", "records"})
        if (!seen.count(k)) a.fail(std::string("header: missing ") + k + "=");
      have_header = true;
      continue;
    }
    // Optional "N:" record index, checked when present.
    if (tok[0].back() == ':') {
      const uint64_t idx = a.number("index", tok[0].substr(0, tok[0].size() - 1));
      if (idx != s.records.size()) a.fail(fmt::format("record index {} where {} was expected", idx, s.records.size()));
      at = 1;
    }
    if (at >= tok.size()) a.fail("a record index with no command");
    const OpcodeSpec* spec = find_opcode(tok[at]);
    if (!spec) a.fail("unknown command '" + tok[at] + "'");
    Record r = Record::make(spec->op);
    std::set<std::string> seen;
    for (++at; at < tok.size(); ++at) {
      auto [k, v] = key_value(a, tok[at]);
      const FieldSpec* f = nullptr;
      for (const auto& x : spec->fields)
        if (k == x.name) f = &x;
      if (!f) a.fail(fmt::format("{} has no field '{}'", spec->name, k));
      if (!seen.insert(k).second) a.fail(fmt::format("field {} given twice", k));
      a.set(r, *f, v);
    }
    for (const auto& f : spec->fields)
      if (!seen.count(f.name) && f.kind != FieldKind::Text && f.min > 0)
        a.fail(fmt::format("{} needs {}= (at least {})", spec->name, f.name, f.min));
    s.records.push_back(r);
  }
  if (!have_header) throw Error(file, "", "empty: no CELLOCMD header line");
  if (declared != s.records.size())
    throw Error(file, "header", fmt::format("records={} but the text has {} records", declared, s.records.size()));
  // The same checks as the binary decoder, so the assembler never writes a stream decode() refuses.
  decode(encode(s), file);
  return s;
}

std::vector<uint8_t> read_bytes(const std::string& path, uint64_t max_bytes, const std::string& what) {
  return read_bytes_capped(path, max_bytes, what);
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  write_output(path, std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

uint64_t parse_config_hash(const std::string& hex) {
  if (hex.empty() || hex.size() > 16 || !std::all_of(hex.begin(), hex.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
    throw Error("", "config", fmt::format("'{}' is not a config hash (up to 16 hex digits)", hex));
  return std::stoull(hex, nullptr, 16);
}

std::string config_hash_hex(uint64_t h) { return fmt::format("{:016x}", h); }

}  // namespace cello::stream
