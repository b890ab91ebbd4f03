# Include-layering check (docs/architecture.md), run by CTest as
#   cmake -DSOURCE_DIR=<repo> -P scripts/check_layers.cmake
# The build has one include root, the repository, so every quoted #include of
# a project header in sw/, gen/, tb/ and tests/ is a repository path
# ("sw/chord/chord_model.hpp") and names exactly one file. An include that
# only resolves beside the file or below sw/, gen/ or tb/ is an error. A file
# may include only its own folder or a folder of a lower layer. Headers that
# are not in the tree (Verilator's V*.h, generated .inc files, library
# headers) are not checked.

# Layer of each folder, lowest first. Keep in step with docs/architecture.md.
set(CELLO_LAYERS
  "0 sw/common"
  "1 sw/fp sw/mtx sw/plot sw/ir sw/synth sw/perf sw/cache sw/buffet sw/chord sw/area"
  "2 sw/score sw/mac sw/workloads sw/bound"
  "3 sw/golden sw/traffic"
  "4 sw/arch"
  "5 sw/stream"
  "6 sw/exec gen"
  "7 tb"
  "8 sw/cli"
  "9 tests")
set(roots sw gen tb)

if(NOT SOURCE_DIR)
  message(FATAL_ERROR "check_layers.cmake: set -DSOURCE_DIR=<repository>")
endif()

foreach(row ${CELLO_LAYERS})
  string(REPLACE " " ";" row "${row}")
  list(POP_FRONT row rank)
  foreach(folder ${row})
    string(REPLACE "/" "_" key "${folder}")
    set(rank_${key} ${rank})
  endforeach()
endforeach()

# The folder of a repository-relative path: sw/<part>, or its top folder.
# Libfuzzer harnesses (*_fuzz.cpp) sit beside the code they exercise but are
# test code, so they count as tests.
function(folder_of path out)
  if(path MATCHES "_fuzz\\.cpp$")
    set(${out} tests PARENT_SCOPE)
  elseif(path MATCHES "^sw/([^/]+)/")
    set(${out} "sw/${CMAKE_MATCH_1}" PARENT_SCOPE)
  elseif(path MATCHES "^([^/]+)/")
    set(${out} "${CMAKE_MATCH_1}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

set(errors 0)
set(checked 0)
file(GLOB_RECURSE sources RELATIVE ${SOURCE_DIR}
  ${SOURCE_DIR}/sw/*.cpp ${SOURCE_DIR}/sw/*.hpp ${SOURCE_DIR}/gen/*.cpp ${SOURCE_DIR}/gen/*.hpp
  ${SOURCE_DIR}/tb/*.cpp ${SOURCE_DIR}/tb/*.hpp ${SOURCE_DIR}/tests/*.cpp ${SOURCE_DIR}/tests/*.hpp)
foreach(src ${sources})
  folder_of(${src} from)
  string(REPLACE "/" "_" from_key "${from}")
  if(NOT DEFINED rank_${from_key})
    message(NOTICE "error: ${src}: folder ${from} has no layer in scripts/check_layers.cmake")
    math(EXPR errors "${errors} + 1")
    continue()
  endif()
  get_filename_component(dir ${src} DIRECTORY)
  file(STRINGS ${SOURCE_DIR}/${src} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line ${lines})
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" inc "${line}")
    if(NOT EXISTS ${SOURCE_DIR}/${inc})
      # Not a repository path: a generated or external header is fine, a
      # project header reached beside the file or through a folder is not.
      set(found "")
      foreach(base ${dir} ${roots})
        if(EXISTS ${SOURCE_DIR}/${base}/${inc})
          file(RELATIVE_PATH rel ${SOURCE_DIR} ${SOURCE_DIR}/${base}/${inc})
          list(APPEND found ${rel})
        endif()
      endforeach()
      if(found)
        list(JOIN found " or " found)
        message(NOTICE "error: ${src}: \"${inc}\" is not a repository path; write \"${found}\"")
        math(EXPR errors "${errors} + 1")
      endif()
      continue()
    endif()
    folder_of("${inc}" to)
    math(EXPR checked "${checked} + 1")
    if(to STREQUAL from)
      continue()
    endif()
    string(REPLACE "/" "_" to_key "${to}")
    if(NOT DEFINED rank_${to_key})
      message(NOTICE "error: ${src}: \"${inc}\" is in folder ${to}, which has no layer")
      math(EXPR errors "${errors} + 1")
    elseif(NOT rank_${to_key} LESS rank_${from_key})
      message(NOTICE "error: ${src}: includes \"${inc}\" from ${to} (layer ${rank_${to_key}}), "
                     "not below ${from} (layer ${rank_${from_key}})")
      math(EXPR errors "${errors} + 1")
    endif()
  endforeach()
endforeach()

list(LENGTH sources nfiles)
if(errors GREATER 0)
  message(FATAL_ERROR "check_layers: ${errors} include(s) cross the layering (docs/architecture.md)")
endif()
message(STATUS "check_layers: ${nfiles} files, ${checked} project includes, all point down the layers")
