#include <unistd.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sw/common/error.hpp"
#include "sw/common/limits.hpp"
#include "sw/common/read_file.hpp"
#include "sw/common/run_process.hpp"
#include "sw/mtx/matrix_market.hpp"

namespace fs = std::filesystem;
using namespace cello;

namespace {
fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("cello_common_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}
std::string gzip_bytes(const std::string& text) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(compressBound(static_cast<uLong>(text.size())) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}
void write(const fs::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary);
  f << bytes;
}
}  // namespace

TEST_CASE("sizes parse with units and refuse overflow", "[limits]") {
  uint64_t v = 0;
  CHECK((limits::parse_size("4MB", v) && v == 4u << 20));
  CHECK((limits::parse_size("512k", v) && v == 512u << 10));
  CHECK((limits::parse_size("2GiB", v) && v == uint64_t{2} << 30));
  CHECK((limits::parse_size("17", v) && v == 17));
  CHECK_FALSE(limits::parse_size("17592186044420MB", v));  // wraps 2^64
  CHECK_FALSE(limits::parse_size("99999999999999999999", v));
  CHECK_FALSE(limits::parse_size("4 MB", v));
  CHECK_FALSE(limits::parse_size("MB", v));
  CHECK_FALSE(limits::parse_size("4XB", v));
}

TEST_CASE("the memory budget refuses a size before allocation, naming it", "[limits]") {
  const uint64_t old = limits::memory_budget();
  limits::set_memory_budget(uint64_t{1} << 30);
  CHECK_NOTHROW(limits::check_memory(uint64_t{1} << 30, "f", "p", "x"));
  try {
    limits::check_memory(uint64_t{3} << 30, "f.mtx", "line 2", "a matrix");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).rfind("f.mtx: line 2: a matrix needs 3 GB of memory, more than the 1 GB budget", 0) == 0);
  }
  CHECK_THROWS_AS(limits::check_memory(UINT64_MAX, "", "", "x"), Error);
  limits::set_memory_budget(old);
  CHECK(limits::mul_sat(uint64_t{1} << 40, uint64_t{1} << 40) == UINT64_MAX);
}

TEST_CASE("error lines are printable and short", "[error]") {
  CHECK(std::string(Error("a.json", "k", std::string("x\0y\nz", 5)).what()) == "a.json: k: x\\x00y\\nz");
  std::string huge(1000000, 'q');
  std::string line = Error("f", "1:1", huge).what();
  CHECK(line.size() < 450);
  CHECK(line.find("more bytes)") != std::string::npos);
}

TEST_CASE("capped reads refuse directories and endless files", "[read_file]") {
  fs::path d = temp_dir();
  CHECK_THROWS_WITH(read_file_capped(d.string(), 100, "JSON"), Catch::Contains("is a directory"));
  CHECK_THROWS_WITH(read_file_capped("/dev/zero", 1000, "JSON"), Catch::Contains("is a character device, not a regular JSON file"));
  write(d / "small.txt", "hello");
  CHECK(read_file_capped((d / "small.txt").string(), 5, "text") == "hello");
  CHECK_THROWS_AS(read_file_capped((d / "small.txt").string(), 4, "text"), Error);
  CHECK_THROWS_WITH(read_file_capped((d / "missing").string(), 4, "text"), Catch::Contains("cannot open file"));
}

TEST_CASE("tools run from an argument vector, never through a shell", "[run_process]") {
  fs::path d = temp_dir();
  const std::string odd = (d / "a b;touch INJECTED;").string();
  const std::string log = (d / "out.log").string();
  CHECK(run_process({"touch", odd}, log).exit_code == 0);
  CHECK(fs::exists(odd));
  CHECK_FALSE(fs::exists(fs::current_path() / "INJECTED"));
  CHECK(run_process({"sh", "-c", "exit 3"}, log).exit_code == 3);
  CHECK_THROWS_AS(run_process({"/nonexistent/tool"}, log), Error);
  CHECK(run_process({"echo", "$HOME;x"}, log).exit_code == 0);
  CHECK(read_file_capped(log, 100, "log") == "$HOME;x\n");
  CHECK(yosys_quote("/a b;c/x.sv") == "\"/a b;c/x.sv\"");
  CHECK_THROWS_AS(yosys_quote("a\"b"), Error);
}

TEST_CASE("gzip: several members are read, trailing garbage and truncation are errors", "[mtx][gzip]") {
  fs::path d = temp_dir();
  const std::string head = "%%MatrixMarket matrix coordinate real general\n2 2 2\n";
  write(d / "two.mtx.gz", gzip_bytes(head + "1 1 1\n") + gzip_bytes("2 2 2\n"));
  CHECK(mtx::read_matrix_market((d / "two.mtx.gz").string()).nnz() == 2);
  write(d / "garbage.mtx.gz", gzip_bytes(head + "1 1 1\n2 2 2\n") + "junk");
  CHECK_THROWS_WITH(mtx::read_matrix_market((d / "garbage.mtx.gz").string()),
                    Catch::Contains("4 bytes of trailing garbage after the gzip stream"));
  std::string gz = gzip_bytes(head + "1 1 1\n2 2 2\n");
  write(d / "cut.mtx.gz", gz.substr(0, gz.size() - 6));
  CHECK_THROWS_WITH(mtx::read_matrix_market((d / "cut.mtx.gz").string()), Catch::Contains("truncated"));
}
