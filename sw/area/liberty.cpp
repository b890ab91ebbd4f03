#include "sw/area/liberty.hpp"

#include <unistd.h>
#include <fmt/format.h>
#include <zlib.h>

#include <cstdlib>
#include <vector>

#include "sw/common/error.hpp"
#include "sw/common/limits.hpp"
#include "sw/common/output_file.hpp"
#include "sw/common/read_file.hpp"

namespace cello::area {

namespace fs = std::filesystem;

namespace {
fs::path liberty_in(const fs::path& dir) {
  std::error_code ec;
  for (const char* suffix : {".gz", ""}) {
    fs::path p = dir / (std::string(kLibertyName) + suffix);
    if (fs::is_regular_file(p, ec)) return p;
  }
  return {};
}
}  // namespace

fs::path find_liberty(const std::string& given) {
  std::error_code ec;
  if (!given.empty()) {
    if (!fs::exists(given, ec)) throw Error(given, "", "liberty file not found");
    stat_input_file(given, "liberty");  // Yosys would wait on a FIFO for ever
    return given;
  }
  if (const char* env = std::getenv("CELLO_DATA"); env && *env) {
    if (auto p = liberty_in(fs::path(env) / "liberty"); !p.empty()) return p;
    throw Error(std::string(env) + "/liberty", "", std::string(kLibertyName) + "[.gz] not found (CELLO_DATA is set)");
  }
  std::vector<fs::path> roots{fs::current_path(ec)};
  auto exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) roots.push_back(exe.parent_path());
  for (auto r : roots)
    for (int up = 0; up < 8 && !r.empty(); ++up) {
      for (const fs::path& cand : {r / "shared" / "data" / "liberty", r / ".." / "shared" / "data" / "liberty"})
        if (auto p = liberty_in(cand); !p.empty()) return fs::weakly_canonical(p, ec);
      if (r == r.parent_path()) break;
      r = r.parent_path();
    }
  throw Error("../shared/data/liberty", "",
              std::string(kLibertyName) + ".gz not found (pass --liberty FILE or set CELLO_DATA)");
}

fs::path unpacked_liberty(const fs::path& lib, const fs::path& cache_dir, uint64_t max_bytes) {
  if (lib.extension() != ".gz") return lib;
  fs::create_directories(cache_dir);
  fs::path out = cache_dir / lib.stem();  // name without .gz
  std::error_code ec;
  if (fs::exists(out, ec) && fs::last_write_time(out, ec) >= fs::last_write_time(lib, ec)) return out;
  gzFile in = gzopen(lib.c_str(), "rb");
  if (!in) throw Error(lib.string(), "", "cannot open the compressed liberty");
  struct Closer {
    gzFile f;
    ~Closer() { gzclose(f); }
  } closer{in};
  OutputFile o(out.string());
  std::vector<char> buf(1 << 16);
  int n = 0;
  uint64_t total = 0;
  while ((n = gzread(in, buf.data(), unsigned(buf.size()))) > 0) {
    total += static_cast<uint64_t>(n);
    if (total > max_bytes)
      throw Error(lib.string(), "",
                  fmt::format("unpacks to more than {}, the limit for a liberty file", limits::human_bytes(max_bytes)));
    o.write(buf.data(), static_cast<size_t>(n));
  }
  if (n < 0) throw Error(lib.string(), "", "corrupt gzip data");
  o.commit();
  return out;
}

}  // namespace cello::area
