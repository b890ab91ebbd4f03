// commands.bin: the contract between SCORE and the accelerator (docs/commands.md).
//
//   header   48 bytes: magic "CELLOCMD", format version, record size, granule
//            and word sizes, the hash of the hardware config it was compiled for,
//            the record count and the DRAM image size it addresses
//   records  fixed 32-byte little-endian records, one command each
//
// Every record kind is described by a table of fields (name, byte offset, width,
// legal range, how it prints). The binary codec, the disassembler and the
// assembler all walk that one table, so they cannot disagree; bytes no field
// covers are reserved and must be zero.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cello::stream {

constexpr char kMagic[8] = {'C', 'E', 'L', 'L', 'O', 'C', 'M', 'D'};
constexpr uint16_t kVersion = 1;
constexpr size_t kHeaderBytes = 48;
constexpr size_t kRecordBytes = 32;

enum class Opcode : uint8_t {
  Tensor = 0x01,    // tensor descriptor: id, format, shape, DRAM base, flags
  Name = 0x02,      // part of a tensor's name, for people (disassembly, reports)
  ChordReg = 0x10,  // register a tensor in CHORD with SCORE's reuse metadata
  ChordUpd = 0x11,  // new reuse metadata
  ChordRel = 0x12,  // release: the tensor is dead, its CHORD space is free
  RfLoad = 0x20,    // load rows of a small tensor into the register file (scaled)
  Gemm = 0x21,      // Z = alpha*C + A*B, B in the register file
  Gram = 0x22,      // Z = A^T B (long reduction)
  Spmm = 0x23,      // Z = alpha*C + beta*A*B, A in CSR, rows of B gathered
  Eltw = 0x24,      // Z = alpha*A + beta*B, element by element
  Fence = 0x30,     // wait until every earlier launch has finished and its writes landed
  Host = 0x31,      // stop, raise host_req: the host computes a tiny N x N function
  End = 0x3f,       // end of the stream
};

// Where a launch reads an operand from or writes its result to.
enum class Bind : uint8_t { None = 0, Dram = 1, Chord = 2, Pipe = 3, Rf = 4 };
// How a launch walks an operand (docs/commands.md, "Operand uses").
enum class Use : uint8_t { Stream = 0, Whole = 1, Gather = 2 };
enum class TensorFormat : uint8_t { Dense = 0, Csr = 1 };
enum class HostFn : uint8_t { Solve = 1, Omega = 2 };

// TENSOR flags. col_major: a dense tensor stored column by column (SCORE's layout
// puts its second dimension outermost); values are still indexed [row][col].
constexpr uint8_t kTensorInput = 1, kTensorOutput = 2, kTensorChord = 4, kTensorColMajor = 8;
// Launch flags. pipe_gram: the next launch is a GRAM of this launch's result with
// itself (Z^T Z), taking it through the pipeline buffer; pipe_gram_x: the next
// launch is the GRAM of this SPMM's dense operand X with its result (X^T Z),
// taking the result through the pipeline buffer (docs/commands.md).
constexpr uint8_t kLaunchRelu = 1, kLaunchCont = 2, kLaunchWithC = 4, kLaunchPipeGram = 8, kLaunchPipeGramX = 16;

// Status register bits of the top (docs/commands.md, "Status"): one sticky bit
// per class of illegal command.
enum class StatusBit : uint8_t {
  BadOpcode = 0,    // unknown opcode
  BadField = 1,     // a field out of range, reserved bits set, a bad header
  BadTensor = 2,    // an id never described or described twice, shapes that do not fit the op
  BadAddress = 3,   // a region outside the DRAM image, misaligned, or overlapping a live one
  BadOrder = 4,     // read before written, written twice, RF_LOAD not followed by its GEMM, no END
  ChordError = 5,   // CHORD command for a tensor not bound to CHORD, or on a top without CHORD
  Protocol = 6,     // port protocol error (RTL only)
};
constexpr int kStatusBits = 7;
const char* to_string(StatusBit b);

// How a field prints and parses.
enum class FieldKind {
  Uint,      // decimal
  Hex,       // 0x... (addresses)
  F32,       // fp32 bits, printed as the shortest decimal that round-trips
  Enum,      // one of `names` (index = value)
  Flags,     // names of set bits joined by '|', or 0
  Text,      // NUL-padded printable ASCII
  Binds,     // four 4-bit Bind codes: out, a, b, c
  Uses,      // four 2-bit Use codes: out, a, b, c
};

struct FieldSpec {
  const char* name;
  uint8_t offset, bytes;
  FieldKind kind;
  uint64_t min = 0, max = 0;                  // Uint / Hex
  std::vector<const char*> names = {};        // Enum (by value) / Flags (by bit)
};

struct OpcodeSpec {
  Opcode op;
  const char* name;  // mnemonic, e.g. "GEMM"
  std::vector<FieldSpec> fields;
};

const std::vector<OpcodeSpec>& opcode_table();
const OpcodeSpec* find_opcode(uint8_t op);
const OpcodeSpec* find_opcode(const std::string& mnemonic);
// The field `name` of record kind `op` (throws std::logic_error when it has none).
const FieldSpec& field_spec(Opcode op, const char* name);

// One decoded command: its opcode and the raw 32 bytes.
struct Record {
  std::array<uint8_t, kRecordBytes> bytes{};

  Opcode op() const { return static_cast<Opcode>(bytes[0]); }
  uint64_t get(uint8_t offset, uint8_t n) const;
  void set(uint8_t offset, uint8_t n, uint64_t v);
  // Typed access by field name (throws std::logic_error for a name the opcode lacks).
  uint64_t field(const char* name) const;
  void set_field(const char* name, uint64_t v);
  float f32(const char* name) const;
  void set_f32(const char* name, float v);
  std::string text() const;  // NAME's text part
  // Writes NAME's text part (at most 28 characters; throws std::logic_error beyond).
  void set_text(const std::string& t);

  static Record make(Opcode op);
};

struct Header {
  uint16_t version = kVersion;
  uint16_t granule_bytes = 16;
  uint16_t word_bytes = 4;
  uint64_t config_hash = 0;
  uint64_t memory_bytes = 0;  // DRAM image size the stream may address
};

struct Stream {
  Header header;
  std::vector<Record> records;
};

// The first problem of one record against the field table, "" when there is
// none: an unknown opcode, a field out of range, a reserved byte that is not 0.
// decode() reports exactly these; the top's command decoder checks the same.
std::string record_problem(const Record& r);
// Bytes of a record kind that its fields (or the opcode) cover; the others are reserved.
std::array<bool, kRecordBytes> covered_bytes(const OpcodeSpec& spec);
// The first problem of a 48-byte header on its own, "" when there is none: magic,
// version, record size, word size, a granule that is not a power of two >= 4,
// reserved bytes. The config hash, the record count and the image size are the
// reader's to check against what it expects.
std::string header_problem(const uint8_t* header);

// Binary form. encode() writes exactly what decode() reads.
std::vector<uint8_t> encode(const Stream& s);
// Checks the header and every record against the field table (opcode known,
// every field in range, reserved bytes zero) and throws cello::Error
// "file: record N: reason" (or "file: header: reason") for the first problem.
// Semantic checks (ids described, shapes, addresses, ordering) are the
// executor's (sw/exec/check.hpp). `expect_hash`, when given, must match.
Stream decode(const std::vector<uint8_t>& bytes, const std::string& file,
              std::optional<uint64_t> expect_hash = std::nullopt);

// Text form, one line per record after a header line; asm(disasm(x)) == x byte for byte.
std::string disassemble(const Stream& s);
std::string disassemble(const Record& r);  // one record, no index
Stream assemble(const std::string& text, const std::string& file);

// Size caps of the readers below (docs/hardening.md, "Limits on inputs").
inline constexpr uint64_t kMaxStreamBytes = uint64_t{1} << 32;   // commands.bin
inline constexpr uint64_t kMaxAsmTextBytes = uint64_t{1} << 28;  // cello asm's text

// Reads / writes files, with one-line errors: a regular file of at most
// max_bytes (sw/common/read_file.hpp), written through the one writer
// (sw/common/output_file.hpp). `what` names the input in messages.
std::vector<uint8_t> read_bytes(const std::string& path, uint64_t max_bytes = kMaxStreamBytes,
                                const std::string& what = "command stream");
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);

// "0123456789abcdef" (manifest.json's config_hash) <-> value.
uint64_t parse_config_hash(const std::string& hex);
std::string config_hash_hex(uint64_t h);

const char* to_string(Bind b);
const char* to_string(Use u);

}  // namespace cello::stream
