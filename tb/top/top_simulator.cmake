# cello_top_simulator(<target> <top module> <RTL files...>)
# The simulator `cello sim` runs (tb/top/sim_driver.cpp) on one generated top.
# Used twice with the same flags: by the build, for the embedded default design
# (tb/top/CMakeLists.txt), and by `cello sim` at run time for any other config
# (tb/top/simulator/CMakeLists.txt).
function(cello_top_simulator target top)
  add_executable(${target} ${CELLO_TB_DIR}/top/sim_driver.cpp)
  target_link_libraries(${target} PRIVATE cello_tb_harness cello_sw CLI11::CLI11)
  # The model's slow code (construction, initial values, a trace's first full
  # dump) runs once per simulation: -O1 compiles it in half the time.
  verilate(${target} SOURCES ${ARGN} TOP_MODULE ${top} PREFIX Vtop TRACE_FST OPT_SLOW -O1
    VERILATOR_ARGS -O3 --x-assign fast --x-initial fast)
endfunction()
