// Readers of yosys and OpenSTA output on text in the tools' formats, and the
// runner's error when yosys is missing, and the liberty unpacker's cap.
#include <unistd.h>
#include <zlib.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "sw/area/liberty.hpp"
#include "sw/common/error.hpp"
#include "sw/synth/synth_flow.hpp"
#include "sw/synth/yosys_run.hpp"
#include "sw/synth/yosys_stat.hpp"

using namespace cello::synth;

TEST_CASE("yosys stat -liberty: per-module and hierarchy areas, flop RAMs split off", "[area][parse]") {
  const std::string log = R"(
3. Printing statistics.
=== early ===
   Number of cells:                999
   Chip area for module '\early': 1.0
8. Printing statistics.

=== $paramod$abc\ram_flop ===

   Number of cells:                 20
     sky130_fd_sc_hd__dfxtp_1       16
     sky130_fd_sc_hd__mux2_1         4
   Chip area for module '$paramod$abc\ram_flop': 400.000000

=== top ===

   Number of cells:                 11
     $paramod$abc\ram_flop           1
     sky130_fd_sc_hd__dfrtp_1        3
     sky130_fd_sc_hd__nand2_1        7
   Chip area for module '\top': 100.500000

=== design hierarchy ===

   top                               1
     $paramod$abc\ram_flop           2

   Number of cells:                 50
     sky130_fd_sc_hd__dfrtp_1        3
     sky130_fd_sc_hd__dfxtp_1       32
     sky130_fd_sc_hd__nand2_1        7
     sky130_fd_sc_hd__mux2_1         8
   Chip area for top module '\top': 900.500000
)";
  FlowReport r;
  parse_yosys_stat(log, "top", r);
  REQUIRE(r.modules.count("top"));
  CHECK_FALSE(r.modules.count("early"));
  CHECK(r.modules["top"].cells == 11);
  CHECK(r.modules["top"].flops == 3);
  CHECK(r.modules["top"].area_um2 == Approx(100.5));
  CHECK(r.total.cells == 50);
  CHECK(r.total.flops == 35);
  CHECK(r.total.area_um2 == Approx(900.5));
  // Two instances of the flop RAM come off the control logic.
  CHECK(r.control.area_um2 == Approx(100.5));
  CHECK(r.control.flops == 3);
}

TEST_CASE("RAM instances and their parameters from a yosys dump", "[area][parse]") {
  const std::string dump = R"(
  attribute \src "x.sv:3"
  cell \ram_sram \u_ram
    parameter signed \NWR 2
    parameter signed \AW 10
    parameter signed \WIDTH 32
    parameter signed \DEPTH 1024
    connect \clk \clk
  end
  cell \ram_flop \u_sram
    parameter \DEPTH 64
    parameter \WIDTH 8
  end
)";
  FlowReport r;
  parse_netlist_rams(dump, r);
  REQUIRE(r.rams.size() == 2);
  CHECK(r.rams[0].primitive == "ram_sram");
  CHECK(r.rams[0].depth == 1024);
  CHECK(r.rams[0].width == 32);
  CHECK(r.rams[0].write_ports == 2);
  CHECK(r.rams[1].primitive == "ram_flop");
  CHECK(r.rams[1].depth == 64);
  CHECK(r.rams[1].write_ports == 1);
}

TEST_CASE("OpenSTA report_checks: slack, path and Fmax", "[area][parse]") {
  const std::string rep = R"(Startpoint: _144_ (rising edge-triggered flip-flop clocked by clk)
Endpoint: q[0] (output port clocked by clk)
                              2.331   data arrival time
---------------------------------------------------------------------------
                              7.669   slack (MET)
)";
  auto t = parse_sta_report(rep, 10.0);
  CHECK(t.constrained);
  CHECK(t.startpoint == "_144_");
  CHECK(t.endpoint == "q[0]");
  CHECK(t.worst_slack_ns == Approx(7.669));
  CHECK(t.critical_path_ns == Approx(2.331));
  CHECK(t.fmax_mhz == Approx(1000 / 2.331));
  auto v = parse_sta_report("   -1.250   slack (VIOLATED)\n", 5.0);
  CHECK(v.worst_slack_ns == Approx(-1.25));
  CHECK(v.critical_path_ns == Approx(6.25));
  CHECK_FALSE(parse_sta_report("No paths found.\n", 5.0).constrained);
}

TEST_CASE("yosys stat after generic synth: the last pass, generic flops, hierarchy total", "[area][parse]") {
  const std::string log = R"(
5.40. Printing statistics.

=== top ===

   Number of cells:                999

9. Printing statistics.

=== sub ===

   Number of wires:                 12
   Number of cells:                  6
     $_DFFE_PP_                      2
     $_SDFF_PN0_                     1
     $_AND_                          3

=== top ===

   Number of cells:                  5
     $_DFF_P_                        1
     $_OR_                           2
     sub                             2

=== design hierarchy ===

   top                               1
     sub                             2

   Number of cells:                 15
     $_AND_                          6
     $_DFFE_PP_                      4
     $_DFF_P_                        1
     $_OR_                           2
     $_SDFF_PN0_                     2
)";
  SynthStat st = parse_stat_log(log, "top", "t.yosys.log");
  CHECK(st.modules["top"].cells == 5);
  CHECK(st.modules["top"].flops == 1);
  CHECK(st.modules["sub"].flops == 3);
  CHECK(st.total.cells == 15);
  CHECK(st.total.flops == 7);
  CHECK(st.instances["sub"] == 2);
  CHECK(st.total.area_um2 == 0);

  // A flat design prints no hierarchy block: the top's own counts are the total.
  SynthStat flat = parse_stat_log("Printing statistics.\n=== top ===\n   Number of cells:   4\n     $_DFF_P_   1\n", "top");
  CHECK(flat.total.cells == 4);
  CHECK(flat.total.flops == 1);

  CHECK_THROWS_WITH(parse_stat_log(log, "other", "t.yosys.log"),
                    "t.yosys.log: other: no statistics for the top module in the yosys log");
  CHECK_THROWS_WITH(parse_stat_log("no stat here", "top", "t.yosys.log"), "t.yosys.log: top: no statistics in the yosys log");
}

TEST_CASE("flop cells: generic and sky130, not other cells", "[area][parse]") {
  CHECK(is_flop_cell("$_DFF_P_"));
  CHECK(is_flop_cell("$_SDFFCE_PN0P_"));
  CHECK(is_flop_cell("$_DFFSRE_PPPP_"));
  CHECK(is_flop_cell("sky130_fd_sc_hd__dfrtp_1"));
  CHECK(is_flop_cell("sky130_fd_sc_hd__edfxtp_1"));
  CHECK_FALSE(is_flop_cell("$_AND_"));
  CHECK_FALSE(is_flop_cell("sky130_fd_sc_hd__nand2_1"));
  CHECK_FALSE(is_flop_cell("sub_DFF"));  // a module instance, not a cell
}

TEST_CASE("a missing yosys is a one-line error with the install hint", "[area][yosys]") {
  YosysJob job;
  job.script = "stat\n";
  job.script_file = "unused.ys";
  job.log = "unused.yosys.log";
  job.yosys = "cello-no-such-yosys";
  CHECK_THROWS_WITH(run_yosys(job), "cello-no-such-yosys: not found on PATH (apt-get install yosys)");
  CHECK_THROWS_WITH(require_yosys("cello-no-such-yosys"), "cello-no-such-yosys: not found on PATH (apt-get install yosys)");
}

TEST_CASE("a compressed liberty that unpacks past its cap is refused and leaves no copy", "[area][liberty]") {
  namespace fs = std::filesystem;
  const fs::path d = fs::temp_directory_path() / ("cello_liberty_test_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  const fs::path gz = d / "big.lib.gz";
  gzFile f = gzopen(gz.c_str(), "wb");
  REQUIRE(f);
  const std::string line(1000, 'x');
  for (int i = 0; i < 100; ++i) REQUIRE(gzwrite(f, line.data(), unsigned(line.size())) == int(line.size()));
  gzclose(f);
  CHECK_THROWS_WITH(cello::area::unpacked_liberty(gz, d / "cache", 50000),
                    gz.string() + ": unpacks to more than 48.8 KB, the limit for a liberty file");
  CHECK_FALSE(fs::exists(d / "cache" / "big.lib"));
  CHECK(fs::is_empty(d / "cache"));  // no temporary file either
  CHECK(fs::file_size(cello::area::unpacked_liberty(gz, d / "cache2")) == 100000);
  fs::remove_all(d);
}
