# The buffet group linked into the `cello` program (included from
# tb/CMakeLists.txt) and run by `cello bench buffet --multicast`:
# configs/bench/bench_group4.json, an L2 of 256 slots filling 4 L1s of 64.
cello_generate(bench_group_files CONFIG ${CMAKE_SOURCE_DIR}/configs/bench/bench_group4.json
               DIR ${CELLO_GEN_OUT}/bench_group4)
verilate(cello_sim SOURCES ${bench_group_files} TOP_MODULE bench_group4 PREFIX Vbench_group4
  VERILATOR_ARGS -O3 --x-assign fast --x-initial fast)
target_sources(cello_sim PRIVATE ${CMAKE_CURRENT_LIST_DIR}/group_sim_runs.cpp)
target_include_directories(cello_sim PRIVATE ${CELLO_GEN_OUT}/bench_group4)
target_link_libraries(cello_sim PUBLIC cello_tb_buffet_group)
