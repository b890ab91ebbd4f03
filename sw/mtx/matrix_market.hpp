// Matrix Market reader (coordinate format; real, integer or pattern values;
// general or symmetric), plain text or gzip-compressed (.mtx.gz, via zlib; the
// compression is detected from the content, not the name). Symmetric files store
// the lower triangle; the result holds both triangles. Every malformation is a
// cello::Error "file: line N: reason".
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sw/mtx/csr.hpp"

namespace cello::mtx {

struct MtxInfo {
  std::string field;     // real | integer | pattern
  std::string symmetry;  // general | symmetric
  int64_t stored = 0;    // entries in the file (header count)
};

// What the caller will build from the matrix, checked from the size line
// alone, before the reader allocates anything: returns why a rows x cols
// matrix with `entries` stored entries (a symmetric file's mirrored ones
// included) is refused, or "" to go on. The reader throws "file: line N: why".
using HeaderCheck = std::function<std::string(int64_t rows, int64_t cols, int64_t entries)>;

Csr parse_matrix_market(std::string_view text, const std::string& file, bool require_square = false,
                        MtxInfo* info = nullptr, const HeaderCheck& check = {});
Csr read_matrix_market(const std::string& path, bool require_square = false, MtxInfo* info = nullptr,
                       const HeaderCheck& check = {});

// Whole file contents, gunzipped when it is gzip data. The file and its unpacked
// text are capped at max_matrix_text_bytes() (a gzip bomb is refused), and bytes
// after the last gzip member are an error.
std::string read_maybe_gzip(const std::string& path);
uint64_t max_matrix_text_bytes();

// A dense rows x cols matrix (values row-major) as Matrix Market "array real
// general" text: column-major, every float with enough digits to read back exactly.
std::string matrix_market_array(int64_t rows, int64_t cols, const std::vector<float>& row_major);

}  // namespace cello::mtx
