# Sources of the generator library, shared by the main build (gen/CMakeLists.txt)
# and the configure-time host build (gen/host/CMakeLists.txt).
set(CELLO_GEN_DIR ${CMAKE_CURRENT_LIST_DIR})
# The one include root: every project include is a repository path
# ("gen/chord/chord_config.hpp", "sw/common/error.hpp"; docs/architecture.md).
get_filename_component(CELLO_SOURCE_ROOT ${CMAKE_CURRENT_LIST_DIR}/.. ABSOLUTE)
set(CELLO_SW_DIR ${CMAKE_CURRENT_LIST_DIR}/../sw)
set(CELLO_RTL_DIR ${CMAKE_CURRENT_LIST_DIR}/../rtl)
set(CELLO_SDC_DIR ${CMAKE_CURRENT_LIST_DIR}/../constraints)
set(CELLO_DEFAULT_CONFIG ${CMAKE_CURRENT_LIST_DIR}/../configs/default.json)
file(GLOB_RECURSE CELLO_GEN_SOURCES CONFIGURE_DEPENDS ${CELLO_GEN_DIR}/*.cpp)
list(FILTER CELLO_GEN_SOURCES EXCLUDE REGEX "/host/|_fuzz\\.cpp$")
file(GLOB CELLO_RTL_PRIMITIVES CONFIGURE_DEPENDS ${CELLO_RTL_DIR}/*.sv)
file(GLOB CELLO_SDC_TEMPLATES CONFIGURE_DEPENDS ${CELLO_SDC_DIR}/*.sdc)
# The command-stream format table (sw/stream/format.cpp) is shared: the top's
# command decoder is generated from it. It is its own small library, so the
# generator (also in the configure-time host build) and cello_sw link one copy.
set(CELLO_STREAM_FORMAT_SOURCES ${CELLO_SW_DIR}/stream/format.cpp)

# cello_precompile(<target> [<header>...]): the third-party headers almost every
# host file includes (fmt, nlohmann/json and the standard containers, plus any
# given), parsed once per target instead of once per file (docs/hardening.md,
# build time). Defined here so the configure-time host build (gen/host) has it.
# The fuzzers' clang header (tests/CMakeLists.txt) is made from the same list.
set(CELLO_PRECOMPILED_HEADERS string vector map fmt/format.h nlohmann/json.hpp)
function(cello_precompile target)
  list(TRANSFORM CELLO_PRECOMPILED_HEADERS PREPEND "<" OUTPUT_VARIABLE headers)
  list(TRANSFORM headers APPEND ">")
  target_precompile_headers(${target} PRIVATE ${headers} ${ARGN})
endfunction()

function(cello_add_gen_library target)
  set(embedded ${CMAKE_CURRENT_BINARY_DIR}/rtl_primitives.cpp)
  add_custom_command(OUTPUT ${embedded}
    COMMAND ${CMAKE_COMMAND} -DRTL_DIR=${CELLO_RTL_DIR} -DOUT=${embedded} -P ${CELLO_GEN_DIR}/embed_rtl.cmake
    DEPENDS ${CELLO_RTL_PRIMITIVES} ${CELLO_GEN_DIR}/embed_rtl.cmake
    COMMENT "Embedding rtl/ primitives")
  set(sdc ${CMAKE_CURRENT_BINARY_DIR}/sdc_templates.cpp)
  add_custom_command(OUTPUT ${sdc}
    COMMAND ${CMAKE_COMMAND} -DSDC_DIR=${CELLO_SDC_DIR} -DOUT=${sdc} -P ${CELLO_GEN_DIR}/embed_sdc.cmake
    DEPENDS ${CELLO_SDC_TEMPLATES} ${CELLO_GEN_DIR}/embed_sdc.cmake
    COMMENT "Embedding constraints/ SDC templates")
  set(default_config ${CMAKE_CURRENT_BINARY_DIR}/default_config.cpp)
  add_custom_command(OUTPUT ${default_config}
    COMMAND ${CMAKE_COMMAND} -DCONFIG=${CELLO_DEFAULT_CONFIG} -DOUT=${default_config} -P ${CELLO_GEN_DIR}/embed_config.cmake
    DEPENDS ${CELLO_DEFAULT_CONFIG} ${CELLO_GEN_DIR}/embed_config.cmake
    COMMENT "Embedding configs/default.json")
  add_library(${target}_stream_format STATIC ${CELLO_STREAM_FORMAT_SOURCES})
  target_include_directories(${target}_stream_format PUBLIC ${CELLO_SOURCE_ROOT})
  target_link_libraries(${target}_stream_format PUBLIC fmt::fmt)
  add_library(${target} STATIC ${CELLO_GEN_SOURCES} ${embedded} ${sdc} ${default_config})
  target_include_directories(${target} PUBLIC ${CELLO_SOURCE_ROOT})
  target_link_libraries(${target} PUBLIC fmt::fmt nlohmann_json::nlohmann_json ${target}_stream_format)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic ${CELLO_GLUE_OPT})
  cello_precompile(${target})
endfunction()
