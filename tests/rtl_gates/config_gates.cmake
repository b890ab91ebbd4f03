# cello_config_gates(<folder> [extra labels...]): one lint + synthesis gate,
# CTest "rtl gate <name>" (cello_rtl_gate(), tests/CMakeLists.txt), per hardware
# JSON file <name>.json in <folder> (configs/gates/<block>/). The folder is
# globbed and every file is a configure dependency, so adding or editing a file
# adds or updates its gate with no CMake edit.
function(cello_config_gates folder)
  file(GLOB configs CONFIGURE_DEPENDS ${folder}/*.json)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${configs})
  foreach(cfg ${configs})
    get_filename_component(name ${cfg} NAME_WE)
    file(READ ${cfg} json)
    string(STRIP "${json}" json)
    cello_rtl_gate(${name} "${json}" ${ARGN})
  endforeach()
endfunction()
