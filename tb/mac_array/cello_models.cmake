# The MAC array `cello bench datapath` simulates (configs/bench/bench_mac.json),
# verilated into cello_sim. mac_sim.cpp takes its shape from the generated
# bench_mac_params.hpp.
cello_generate(_mac_bench_files CONFIG ${CMAKE_SOURCE_DIR}/configs/bench/bench_mac.json DIR ${CELLO_GEN_OUT}/bench_mac)
target_sources(cello_sim PRIVATE ${CMAKE_CURRENT_LIST_DIR}/mac_sim.cpp)
target_include_directories(cello_sim PRIVATE ${CELLO_GEN_OUT}/bench_mac)
verilate(cello_sim SOURCES ${_mac_bench_files} TOP_MODULE bench_mac PREFIX Vbench_mac
  VERILATOR_ARGS -O3 --x-assign fast --x-initial fast ${CELLO_TB_VERILATE_OPT})
