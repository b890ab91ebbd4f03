# The MAC array `cello bench datapath` simulates (4 x 4 PEs, 3-stage FMA,
# 16-row register file), verilated into cello_sim. Keep in sync with
# kBenchShape in mac_sim.cpp.
set(_mac_bench_cfg ${CELLO_GEN_OUT}/bench_mac.json)
file(CONFIGURE OUTPUT ${_mac_bench_cfg} CONTENT [=[{"name": "bench_mac", "mac_arrays": [{"name": "bench_mac", "rows": 4, "cols": 4, "fma_stages": 3, "rf_rows": 16}]}
]=])
cello_generate(_mac_bench_files CONFIG ${_mac_bench_cfg} DIR ${CELLO_GEN_OUT}/bench_mac)
target_sources(cello_sim PRIVATE ${CMAKE_CURRENT_LIST_DIR}/mac_sim.cpp)
verilate(cello_sim SOURCES ${_mac_bench_files} TOP_MODULE bench_mac PREFIX Vbench_mac
  VERILATOR_ARGS -O3 --x-assign fast --x-initial fast
    OPT_SLOW -O0 OPT_FAST -O1)
