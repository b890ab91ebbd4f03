#include "sw/exec/front_end.hpp"

#include <fmt/format.h>

#include <cstring>

namespace cello::exec {

namespace {

constexpr size_t kHeaderWords = stream::kHeaderBytes / 4, kRecordWords = stream::kRecordBytes / 4;

uint64_t word_pair(const std::vector<uint32_t>& w, size_t at) { return w[at] | uint64_t{w[at + 1]} << 32; }

}  // namespace

std::vector<uint32_t> command_words(const std::vector<uint8_t>& bytes) {
  std::vector<uint32_t> words((bytes.size() + 3) / 4, 0);
  for (size_t i = 0; i < bytes.size(); ++i) words[i / 4] |= uint32_t{bytes[i]} << (8 * (i % 4));
  return words;
}

FrontEndVerdict front_end_scan(const std::vector<uint32_t>& w, const arch::Arch& a) {
  FrontEndVerdict v;
  auto stop = [&](StatusBit b, uint64_t record, bool header, std::string why) {
    v.error = b;
    v.error_record = record;
    v.in_header = header;
    v.reason = std::move(why);
    return v;
  };
  if (w.size() < kHeaderWords) return stop(StatusBit::BadField, 0, true, "the stream ends inside the header");
  // Header: every field problem is bad_field, except a stream larger than the top's memory.
  uint8_t header[stream::kHeaderBytes];
  std::memcpy(header, w.data(), stream::kHeaderBytes);
  const uint64_t records = word_pair(w, 6), memory = word_pair(w, 8);
  if (std::string why = stream::header_problem(header); !why.empty()) return stop(StatusBit::BadField, 0, true, why);
  if ((w[3] & 0xffff) != a.granule_bytes) return stop(StatusBit::BadField, 0, true, "granule differs from the top's");
  if (word_pair(w, 4) != a.config_hash) return stop(StatusBit::BadField, 0, true, "compiled for another config");
  if (memory > a.memory_bytes) return stop(StatusBit::BadAddress, 0, true, "the stream is larger than the top's memory");
  if (records == 0) return stop(StatusBit::BadOrder, 0, false, "the stream has no END");
  if (w.size() == kHeaderWords) return stop(StatusBit::BadField, 0, false, "the stream ends before its records");

  bool ended = false;
  for (uint64_t i = 0;; ++i) {
    const size_t at = kHeaderWords + i * kRecordWords;
    // The port's `last` comes before the record's final word: truncated.
    if (w.size() < at + kRecordWords) return stop(StatusBit::BadField, i, false, "the stream ends inside a record");
    const bool last = w.size() == at + kRecordWords;
    stream::Record r;
    std::memcpy(r.bytes.data(), &w[at], stream::kRecordBytes);
    if (std::string why = stream::record_problem(r); !why.empty())
      return stop(stream::find_opcode(r.bytes[0]) ? StatusBit::BadField : StatusBit::BadOpcode, i, false, why);
    if (ended) return stop(StatusBit::BadOrder, i, false, "record after END");
    const bool is_end = r.op() == stream::Opcode::End;
    if (i + 1 == records && !is_end) return stop(StatusBit::BadOrder, i, false, "the stream has no END");
    if (last && i + 1 < records) return stop(StatusBit::BadField, i, false, "the stream ends before its last record");
    if (!last && i + 1 == records) return stop(StatusBit::BadField, i, false, "the stream is longer than its header says");
    ++v.records_passed;
    ended = ended || is_end;
    if (last) return v;
  }
}

}  // namespace cello::exec
