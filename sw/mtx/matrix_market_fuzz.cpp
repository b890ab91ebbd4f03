// libFuzzer entry point for the Matrix Market reader (built by tests/fuzz with
// clang -fsanitize=fuzzer; not part of cello_sw). The input goes through the
// same path as a file: gzip data (detected from its first bytes) is unpacked,
// then parsed. Any input must either be rejected with a cello::Error or give a
// well-formed CSR matrix. The memory budget is kept small so that a header's
// declared size is refused quickly instead of exhausting the fuzzer's memory.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sw/common/error.hpp"
#include "sw/common/limits.hpp"
#include "sw/mtx/matrix_market.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cello::limits::set_memory_budget(uint64_t{64} << 20);
  static std::string path = [] {
    char name[] = "/tmp/cello_mtx_fuzz_XXXXXX";
    int fd = mkstemp(name);
    if (fd < 0) std::abort();
    close(fd);
    return std::string(name);
  }();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  cello::mtx::Csr m;
  try {
    m = cello::mtx::read_matrix_market(path, false);
  } catch (const cello::Error&) {
    return 0;
  }
  if (m.rows < 1 || m.cols < 1 || m.row_ptr.size() != static_cast<size_t>(m.rows) + 1) std::abort();
  if (m.row_ptr.front() != 0 || m.row_ptr.back() != m.nnz() || m.val.size() != m.col.size()) std::abort();
  for (int64_t r = 0; r < m.rows; ++r)
    for (int64_t k = m.row_ptr[r]; k < m.row_ptr[r + 1]; ++k)
      if (m.col[k] < 0 || m.col[k] >= m.cols || (k > m.row_ptr[r] && m.col[k] <= m.col[k - 1])) std::abort();
  return 0;
}
