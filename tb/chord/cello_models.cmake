# The CHORD configuration `cello bench chord` simulates (64 entries, 4 MB of
# 32-bit words), verilated into cello_sim. Keep in sync with chord_sim.cpp.
set(_chord_bench_cfg ${CELLO_GEN_OUT}/bench_chord.json)
file(CONFIGURE OUTPUT ${_chord_bench_cfg} CONTENT [=[{"name": "bench_chord", "chord": [{"name": "bench_chord", "depth": 1048576, "entries": 64, "extents": 4, "addr_width": 32, "word_width": 32, "ram": "sram"}]}
]=])
cello_generate(_chord_bench_files CONFIG ${_chord_bench_cfg} DIR ${CELLO_GEN_OUT}/bench_chord)
target_sources(cello_sim PRIVATE ${CMAKE_CURRENT_LIST_DIR}/chord_sim.cpp)
verilate(cello_sim SOURCES ${_chord_bench_files} TOP_MODULE bench_chord PREFIX Vbench_chord
  VERILATOR_ARGS -O3 --x-assign fast --x-initial fast)
