# Builds gen/host at configure time and provides cello_generate(), which runs it.
# Changing any generator source re-runs configure (CMAKE_CONFIGURE_DEPENDS), so
# testbench RTL never goes stale.
set(CELLO_HOST_BUILD ${CMAKE_BINARY_DIR}/host-gen)
set(CELLO_HOST_GEN ${CELLO_HOST_BUILD}/cello-gen-host)
include(${CMAKE_SOURCE_DIR}/gen/sources.cmake)
set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${CELLO_GEN_SOURCES} ${CELLO_RTL_PRIMITIVES} ${CELLO_STREAM_FORMAT_SOURCES} ${CELLO_SW_DIR}/stream/format.hpp)
file(GLOB_RECURSE _cello_gen_headers ${CELLO_GEN_DIR}/*.hpp)
set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_cello_gen_headers})

message(STATUS "Building the host generator (gen/host)")
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${CMAKE_SOURCE_DIR}/gen/host -B ${CELLO_HOST_BUILD} -G ${CMAKE_GENERATOR}
          -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(_rc)
  message(FATAL_ERROR "configuring gen/host failed:\n${_out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${CELLO_HOST_BUILD}
  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(_rc)
  message(FATAL_ERROR "building gen/host failed:\n${_out}")
endif()

# cello_generate(<out-var> CONFIG <json file, or - for the default> DIR <output dir> [HASH <var>])
# Generates RTL for CONFIG into DIR and sets <out-var> to its filelist (and
# <var> to the config hash recorded in the manifest).
function(cello_generate out_var)
  cmake_parse_arguments(G "" "CONFIG;DIR;HASH" "" ${ARGN})
  execute_process(COMMAND ${CELLO_HOST_GEN} ${G_CONFIG} ${G_DIR}
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc)
    message(FATAL_ERROR "cello gen ${G_CONFIG} failed:\n${out}")
  endif()
  file(STRINGS ${G_DIR}/files.f files)
  set(${out_var} ${files} PARENT_SCOPE)
  if(G_HASH)
    string(STRIP "${out}" hash)
    set(${G_HASH} ${hash} PARENT_SCOPE)
  endif()
endfunction()

# cello_default_config_variant(<json file> "<JSON merge patch>")
# Writes the embedded default design with the patch applied ("" = unchanged):
# the top's testbenches and gates run on variants of the default design.
function(cello_default_config_variant json patch)
  execute_process(COMMAND ${CELLO_HOST_GEN} --default-config ${json} "${patch}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc)
    message(FATAL_ERROR "writing ${json} failed:\n${out}")
  endif()
endfunction()

# cello_split_variant(<entry> <name var> <patch var>): "name|patch" table rows.
function(cello_split_variant entry name_var patch_var)
  string(FIND "${entry}" "|" bar)
  string(SUBSTRING "${entry}" 0 ${bar} name)
  math(EXPR from "${bar} + 1")
  string(SUBSTRING "${entry}" ${from} -1 patch)
  set(${name_var} ${name} PARENT_SCOPE)
  set(${patch_var} "${patch}" PARENT_SCOPE)
endfunction()
