# The CHORD configuration `cello bench chord` simulates (configs/bench/
# bench_chord.json: 64 entries, 4 MB of 32-bit words), verilated into cello_sim.
# chord_sim.cpp embeds the same file (bench_chord_config.inc), so the simulated
# geometry is always the generated one.
set(_chord_bench_cfg ${CMAKE_SOURCE_DIR}/configs/bench/bench_chord.json)
cello_generate(_chord_bench_files CONFIG ${_chord_bench_cfg} DIR ${CELLO_GEN_OUT}/bench_chord)
file(READ ${_chord_bench_cfg} _chord_bench_json)
file(CONFIGURE OUTPUT ${CELLO_GEN_OUT}/bench_chord/bench_chord_config.inc
     CONTENT "R\"json(${_chord_bench_json})json\"\n" @ONLY)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_chord_bench_cfg})
target_sources(cello_sim PRIVATE ${CMAKE_CURRENT_LIST_DIR}/chord_sim.cpp)
target_include_directories(cello_sim PRIVATE ${CELLO_GEN_OUT}/bench_chord)
verilate(cello_sim SOURCES ${_chord_bench_files} TOP_MODULE bench_chord PREFIX Vbench_chord
  VERILATOR_ARGS -O3 --x-assign fast --x-initial fast)
