#include "sw/mtx/matrix_market.hpp"

#include <fmt/core.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iterator>

#include "sw/common/error.hpp"
#include "sw/common/limits.hpp"
#include "sw/common/read_file.hpp"

namespace cello::mtx {

uint64_t max_matrix_text_bytes() { return limits::memory_budget() / 4; }

namespace {

// Inflates gzip members one after another (a .gz may hold several); bytes after
// the last member that are not another member are an error, not ignored.
std::string gunzip(const std::string& raw, const std::string& path, uint64_t max_bytes) {
  std::string out;
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) throw Error(path, "", "cannot start the gzip decoder");
  size_t pos = 0;
  char buf[1 << 16];
  auto fail = [&](const std::string& why) {
    inflateEnd(&z);
    throw Error(path, "", why);
  };
  while (true) {
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data() + pos));
    z.avail_in = static_cast<uInt>(std::min<size_t>(raw.size() - pos, 1u << 30));
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof buf;
      rc = inflate(&z, Z_NO_FLUSH);
      if (rc == Z_NEED_DICT || rc == Z_DATA_ERROR || rc == Z_MEM_ERROR)
        fail(fmt::format("corrupt gzip data ({})", z.msg ? z.msg : "invalid stream"));
      out.append(buf, sizeof buf - z.avail_out);
      if (out.size() > max_bytes)
        fail(fmt::format("unpacks to more than {} (a quarter of the memory budget); refusing a possible gzip bomb",
                         limits::human_bytes(max_bytes)));
      // All input is present, so a stream that wants more is truncated.
      if (rc != Z_STREAM_END && z.avail_in == 0 && z.avail_out != 0) fail("corrupt gzip data (truncated stream)");
    }
    pos = raw.size() - z.avail_in;
    if (pos == raw.size()) break;
    if (raw.size() - pos < 2 || static_cast<unsigned char>(raw[pos]) != 0x1f ||
        static_cast<unsigned char>(raw[pos + 1]) != 0x8b)
      fail(fmt::format("{} bytes of trailing garbage after the gzip stream (at byte {})", raw.size() - pos, pos));
    inflateReset(&z);
  }
  inflateEnd(&z);
  return out;
}

}  // namespace

std::string read_maybe_gzip(const std::string& path) {
  const uint64_t max_bytes = max_matrix_text_bytes();
  std::string raw = read_file_capped(path, max_bytes, "Matrix Market");
  if (raw.size() >= 2 && static_cast<unsigned char>(raw[0]) == 0x1f && static_cast<unsigned char>(raw[1]) == 0x8b)
    return gunzip(raw, path, max_bytes);
  return raw;
}

namespace {

class Lines {
 public:
  explicit Lines(std::string_view s) : s_(s) {}
  // Next line (without the newline); false at end of input.
  bool next(std::string_view& line) {
    if (pos_ >= s_.size()) return false;
    size_t e = s_.find('\n', pos_);
    if (e == std::string_view::npos) e = s_.size();
    line = s_.substr(pos_, e - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = e + 1;
    ++number_;
    return true;
  }
  int64_t number() const { return number_; }

 private:
  std::string_view s_;
  size_t pos_ = 0;
  int64_t number_ = 0;
};

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t b = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > b) out.push_back(line.substr(b, i - b));
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t'; });
}

struct Reader {
  const std::string& file;
  Lines lines;

  [[noreturn]] void fail(const std::string& why) const {
    throw Error(file, fmt::format("line {}", lines.number()), why);
  }
  int64_t integer(std::string_view tok, const char* what) const {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec != std::errc() || p != tok.data() + tok.size())
      fail(fmt::format("{} '{}' is not a whole number", what, tok));
    return v;
  }
  double real(std::string_view tok) const {
    if (!tok.empty() && tok[0] == '+') tok.remove_prefix(1);
    double v = 0;
    auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec != std::errc() || p != tok.data() + tok.size()) fail(fmt::format("value '{}' is not a number", tok));
    if (!std::isfinite(v)) fail(fmt::format("value '{}' is not finite", tok));
    return v;
  }
};

}  // namespace

Csr parse_matrix_market(std::string_view text, const std::string& file, bool require_square, MtxInfo* info,
                        const HeaderCheck& check) {
  Reader r{file, Lines(text)};
  std::string_view line;
  if (!r.lines.next(line)) r.fail("empty file (expected a %%MatrixMarket header)");
  auto head = split(line);
  if (head.empty() || lower(head[0]) != "%%matrixmarket")
    r.fail("malformed header: the first line must start with %%MatrixMarket");
  if (head.size() != 5) r.fail("malformed header: expected '%%MatrixMarket matrix coordinate <field> <symmetry>'");
  const std::string object = lower(head[1]), format = lower(head[2]), field = lower(head[3]), sym = lower(head[4]);
  if (object != "matrix") r.fail("unsupported object '" + object + "' (only 'matrix')");
  if (format != "coordinate")
    r.fail("unsupported format '" + format + "' (only 'coordinate'; dense 'array' files are not sparse matrices)");
  if (field != "real" && field != "integer" && field != "pattern")
    r.fail("unsupported field '" + field + "' (real, integer or pattern)");
  if (sym != "general" && sym != "symmetric")
    r.fail("unsupported symmetry '" + sym + "' (general or symmetric)");

  // Size line: first line that is neither a comment nor blank.
  std::vector<std::string_view> tok;
  while (true) {
    if (!r.lines.next(line)) r.fail("missing size line 'rows cols entries'");
    if (blank(line) || line[0] == '%') continue;
    tok = split(line);
    break;
  }
  if (tok.size() != 3) r.fail("malformed size line: expected 'rows cols entries'");
  const int64_t rows = r.integer(tok[0], "row count");
  const int64_t cols = r.integer(tok[1], "column count");
  const int64_t count = r.integer(tok[2], "entry count");
  if (rows < 1 || cols < 1 || rows >= (int64_t{1} << 31) || cols >= (int64_t{1} << 31))
    r.fail("matrix dimensions must be between 1 and 2^31-1");
  if (sym == "symmetric" && rows != cols) r.fail(fmt::format("a symmetric matrix must be square, not {} x {}", rows, cols));
  if (require_square && rows != cols) r.fail(fmt::format("the matrix must be square, not {} x {}", rows, cols));
  if (count < 0 || static_cast<double>(count) > static_cast<double>(rows) * static_cast<double>(cols))
    r.fail(fmt::format("entry count {} out of range 0..rows*cols", count));

  // The header's sizes are checked against the memory budget before anything
  // is allocated; the reservation is bounded by what the text can hold (an
  // entry line has at least 4 bytes), so a lying header costs nothing.
  const uint64_t stored = static_cast<uint64_t>(sym == "symmetric" ? 2 * count : count);
  limits::check_memory(limits::add_sat(limits::mul_sat(static_cast<uint64_t>(rows) + 1, sizeof(int64_t)),
                                       limits::mul_sat(stored, sizeof(Triplet) + sizeof(int32_t) + sizeof(double))),
                       file, "line " + std::to_string(r.lines.number()),
                       fmt::format("a {} x {} matrix with {} entries", rows, cols, count));
  if (check)
    if (std::string why = check(rows, cols, static_cast<int64_t>(stored)); !why.empty()) r.fail(why);
  const size_t want = field == "pattern" ? 2 : 3;
  std::vector<Triplet> e;
  e.reserve(static_cast<size_t>(std::min<uint64_t>(stored, text.size() / 4 * (sym == "symmetric" ? 2 : 1))));
  int64_t seen = 0;
  while (r.lines.next(line)) {
    if (blank(line) || line[0] == '%') continue;
    if (seen == count) r.fail(fmt::format("more entries than the {} the size line announces", count));
    tok = split(line);
    if (tok.size() != want)
      r.fail(fmt::format("expected {} fields ('row col{}') but found {}", want, want == 3 ? " value" : "", tok.size()));
    const int64_t i = r.integer(tok[0], "row index");
    const int64_t j = r.integer(tok[1], "column index");
    if (i < 1 || i > rows) r.fail(fmt::format("row index {} out of range 1..{}", i, rows));
    if (j < 1 || j > cols) r.fail(fmt::format("column index {} out of range 1..{}", j, cols));
    double v = 1.0;
    if (field == "integer")
      v = static_cast<double>(r.integer(tok[2], "integer value"));
    else if (field == "real")
      v = r.real(tok[2]);
    if (sym == "symmetric" && j > i)
      r.fail(fmt::format("entry ({}, {}) lies above the diagonal; a symmetric file stores the lower triangle", i, j));
    e.push_back({i - 1, j - 1, v});
    if (sym == "symmetric" && i != j) e.push_back({j - 1, i - 1, v});
    ++seen;
  }
  if (seen != count) r.fail(fmt::format("file ends after {} of the {} entries the size line announces", seen, count));
  if (info) *info = {field, sym, count};
  return csr_from_triplets(rows, cols, std::move(e));
}

Csr read_matrix_market(const std::string& path, bool require_square, MtxInfo* info, const HeaderCheck& check) {
  return parse_matrix_market(read_maybe_gzip(path), path, require_square, info, check);
}

std::string matrix_market_array(int64_t rows, int64_t cols, const std::vector<float>& row_major) {
  if (rows < 0 || cols < 0 || static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols) != row_major.size())
    throw Error("", "matrix_market_array", fmt::format("{} values for a {} x {} matrix", row_major.size(), rows, cols));
  std::string out = fmt::format("%%MatrixMarket matrix array real general\n{} {}\n", rows, cols);
  for (int64_t c = 0; c < cols; ++c)
    for (int64_t r = 0; r < rows; ++r) fmt::format_to(std::back_inserter(out), "{:.9g}\n", row_major[static_cast<size_t>(r * cols + c)]);
  return out;
}

}  // namespace cello::mtx
