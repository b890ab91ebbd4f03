// The one output writer and the run's file checks (sw/common/output_file.hpp,
// sw/common/run_files.hpp), and the input reader's refusal of files that are
// not regular (sw/common/read_file.hpp).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sw/common/output_file.hpp"
#include "sw/common/read_file.hpp"
#include "sw/common/run_files.hpp"
#include "sw/mtx/matrix_market.hpp"
#include "tests/common/error_message.hpp"

namespace fs = std::filesystem;
using namespace cello;
using cello::test::error_message;

namespace {
fs::path fresh_dir(const char* name) {
  fs::path d = fs::temp_directory_path() / fmt::format("cello_output_test_{}_{}", name, ::getpid());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}
std::string slurp(const fs::path& p) { return read_file_capped(p.string(), 1 << 20, "test"); }
bool has_temporary(const fs::path& d) {
  for (const auto& e : fs::directory_iterator(d))
    if (e.path().filename().string().find(".tmp.") != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("the writer replaces a file only once every byte is written", "[output_file]") {
  run_files::forget_all();
  const fs::path d = fresh_dir("replace");
  const std::string f = (d / "r.json").string();
  write_output(f, "old\n");
  CHECK(slurp(f) == "old\n");
  {
    OutputFile out(f);
    out.write("new, half");
    // Not committed: the destructor removes the temporary file.
  }
  CHECK(slurp(f) == "old\n");
  CHECK_FALSE(has_temporary(d));
  write_output(f, "new\n");
  CHECK(slurp(f) == "new\n");
  CHECK_FALSE(has_temporary(d));
  // Through a symlink the file is replaced and the link stays.
  fs::create_symlink("r.json", d / "link.json");
  write_output((d / "link.json").string(), "linked\n");
  CHECK(fs::is_symlink(d / "link.json"));
  CHECK(slurp(f) == "linked\n");
}

TEST_CASE("the writer refuses write errors, directories and FIFOs without a reader", "[output_file]") {
  run_files::forget_all();
  const fs::path d = fresh_dir("errors");
  CHECK(error_message([] { write_output("/dev/full", "x"); }) == "/dev/full: write failed (No space left on device)");
  CHECK_NOTHROW(write_output("/dev/null", "x"));
  CHECK(error_message([&] { write_output(d.string(), "x"); }) == d.string() + ": is a directory, not a file");
  REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
  CHECK(error_message([&] { write_output((d / "fifo").string(), "x"); }) == (d / "fifo").string() + ": is a FIFO that no process reads");
  std::ofstream(d / "plain") << "x";
  CHECK_THAT(error_message([&] { write_output((d / "plain" / "x.json").string(), "x"); }),
             Catch::StartsWith((d / "plain" / "x.json").string() + ": cannot create its folder " + (d / "plain").string() + " ("));
}

TEST_CASE("an output may not be an input or another output", "[run_files]") {
  run_files::forget_all();
  const fs::path d = fresh_dir("alias");
  const std::string in = (d / "in.mtx").string();
  std::ofstream(in) << "data";
  fs::create_symlink("in.mtx", d / "link");
  fs::create_hard_link(in, d / "hard");
  fs::create_directories(d / "sub");
  run_files::note_input(in, "--matrix");
  for (const std::string& out : {in, (d / "link").string(), (d / "sub" / ".." / "in.mtx").string(), (d / "hard").string()})
    CHECK(error_message([&] { run_files::claim_output(out, "--json"); }) ==
          out + ": --json: is the same file as the input --matrix (" + in + "); an output never replaces an input");
  CHECK(error_message([&] { write_output(in, "x"); }) ==
        in + ": is the same file as the input --matrix (" + in + "); an output never replaces an input");
  CHECK(slurp(in) == "data");
  const std::string a = (d / "a.json").string();
  run_files::claim_output(a, "--json");
  CHECK_NOTHROW(run_files::claim_output(a, "--json"));  // the same option again
  CHECK(error_message([&] { run_files::claim_output((d / "sub" / ".." / "a.json").string(), "--csv"); }) ==
        (d / "sub" / ".." / "a.json").string() + ": --csv: is the same file as --json (" + a + "); two outputs may not name one file");
  // A claimed output is written once; a second write is another output naming the same file.
  write_output(a, "1");
  CHECK_THAT(error_message([&] { write_output(a, "2"); }), Catch::Contains("--json: another output of this command has written this file"));
  CHECK(slurp(a) == "1");
  // An input noted after the output was claimed is refused as well.
  const std::string b = (d / "b.json").string();
  run_files::claim_output(b, "--svg");
  std::ofstream(b) << "{}";
  CHECK_THAT(error_message([&] { run_files::note_input(b, "--target"); }), Catch::Contains("--svg: is the same file as the input --target"));
  // Character devices are written in place and never compared.
  CHECK_NOTHROW(run_files::claim_output("/dev/null", "--json"));
  CHECK_NOTHROW(run_files::claim_output("/dev/null", "--csv"));
  run_files::forget_all();
}

TEST_CASE("inputs that are not regular files are refused before they are opened", "[read_file]") {
  const fs::path d = fresh_dir("inputs");
  REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
  // A FIFO without a writer would block open(): the stat before it refuses it.
  CHECK(error_message([&] { read_file_capped((d / "fifo").string(), 100, "JSON"); }) ==
        (d / "fifo").string() + ": is a FIFO, not a regular JSON file");
  CHECK(error_message([] { read_bytes_capped("/dev/zero", 100, "DRAM image"); }) ==
        "/dev/zero: is a character device, not a regular DRAM image file");
  // A regular file over the cap is refused from its size alone (a sparse file: nothing is written).
  const fs::path big = d / "big.bin";
  std::ofstream(big).close();
  fs::resize_file(big, uint64_t{1} << 34);
  CHECK(error_message([&] { read_bytes_capped(big.string(), 1000, "command stream"); }) ==
        big.string() + ": longer than 1000 B, the limit for a command stream file");
  // Under the cap but over the memory budget: refused from the size as well.
  const uint64_t budget = limits::memory_budget();
  limits::set_memory_budget(uint64_t{1} << 20);
  CHECK_THAT(error_message([&] { read_bytes_capped(big.string(), uint64_t{1} << 40, "DRAM image"); }),
             Catch::StartsWith(big.string() + ": reading this DRAM image file needs 16 GB of memory, more than the 1 MB budget"));
  limits::set_memory_budget(budget);
  std::ofstream(d / "ten") << "0123456789";
  CHECK(read_file_capped((d / "ten").string(), 10, "text") == "0123456789");
  CHECK(error_message([&] { read_file_capped((d / "ten").string(), 9, "text"); }) ==
        (d / "ten").string() + ": longer than 9 B, the limit for a text file");
  fs::remove_all(d);
}

TEST_CASE("a Matrix Market size line is checked before anything is allocated", "[mtx]") {
  const std::string text = "%%MatrixMarket matrix coordinate real general\n% c\n1048576 1048576 1\n1 1 1\n";
  int64_t seen_rows = 0;
  auto refuse = [&](int64_t rows, int64_t, int64_t entries) {
    seen_rows = rows;
    return entries == 1 ? std::string("too many rows for this test") : std::string();
  };
  CHECK(error_message([&] { mtx::parse_matrix_market(text, "h.mtx", false, nullptr, refuse); }) ==
        "h.mtx: line 3: too many rows for this test");
  CHECK(seen_rows == 1048576);
}
