# Buffet models linked into the `cello` program (included from tb/CMakeLists.txt):
# the buffet of the embedded default design, checked by `cello demo`, and the
# DEPTH=256 buffet measured by `cello bench buffet`.
cello_generate(cello_demo_files CONFIG - DIR ${CELLO_GEN_OUT}/cello_default HASH cello_default_hash)
verilate(cello_sim SOURCES ${cello_demo_files} TOP_MODULE buffet_default PREFIX Vdemo_buffet
  VERILATOR_ARGS -O3 --x-assign fast --x-initial fast)

cello_generate(bench_buffet_files CONFIG ${CMAKE_SOURCE_DIR}/configs/bench/bench_buffet256.json
               DIR ${CELLO_GEN_OUT}/bench_buffet256)
verilate(cello_sim SOURCES ${bench_buffet_files} TOP_MODULE bench_buffet256 PREFIX Vbench_buffet256
  VERILATOR_ARGS -O3 --x-assign fast --x-initial fast)

target_sources(cello_sim PRIVATE ${CMAKE_CURRENT_LIST_DIR}/buffet_sim_runs.cpp)
# buffet_sim_runs.cpp takes both buffets' sizes from the generated parameter headers.
target_include_directories(cello_sim PRIVATE ${CELLO_GEN_OUT}/cello_default ${CELLO_GEN_OUT}/bench_buffet256)
target_compile_definitions(cello_sim PRIVATE CELLO_DEFAULT_CONFIG_HASH="${cello_default_hash}")
target_link_libraries(cello_sim PUBLIC cello_tb_buffet)
