# cello_top_model(<library> <top module> <RTL files...>)
# A generated top verilated as the static library Vtop, with FST tracing, at the
# flags of `cello sim`'s simulators. Its users see the model's headers and
# the VM_* defines it was compiled with (tb/harness/sim.hpp reads VM_TRACE_FST).
function(cello_top_model lib top)
  add_library(${lib} STATIC)
  # The model's slow code (construction, initial values, a trace's first full
  # dump) runs once per simulation: -O1 compiles it in half the time.
  verilate(${lib} SOURCES ${ARGN} TOP_MODULE ${top} PREFIX Vtop TRACE_FST OPT_SLOW -O1
    VERILATOR_ARGS -O3 --x-assign fast --x-initial fast --assert)
  target_compile_definitions(${lib} INTERFACE VM_COVERAGE=0 VM_SC=0 VM_TRACE=1 VM_TRACE_FST=1 VM_TRACE_VCD=0)
  # fmt's FMT_SHARED, as every model has it: the build's precompiled
  # verilated.h (tb/CMakeLists.txt) was compiled with it.
  target_link_libraries(${lib} PRIVATE fmt::fmt)
endfunction()

# cello_top_simulator(<target> <top module> <RTL files...>)
# The simulator `cello sim` runs (tb/top/sim_driver.cpp) on one generated top.
# Used twice with the same flags: by the build, for the embedded default design
# (tb/top/CMakeLists.txt, whose default-top testbench links the same model),
# and by `cello sim` at run time for any other config
# (tb/top/simulator/CMakeLists.txt).
function(cello_top_simulator target top)
  cello_top_model(${target}_model ${top} ${ARGN})
  add_executable(${target} ${CELLO_TB_DIR}/top/sim_driver.cpp)
  target_link_libraries(${target} PRIVATE ${target}_model cello_tb_harness cello_sw CLI11::CLI11)
endfunction()
