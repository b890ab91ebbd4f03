# Script mode: embeds constraints/*.sdc templates into a C++ source so that
# `cello gen` and `cello area` need no source tree at run time. Inputs: SDC_DIR, OUT.
file(GLOB templates "${SDC_DIR}/*.sdc")
list(SORT templates)
set(body "")
foreach(t ${templates})
  get_filename_component(stem "${t}" NAME_WE)
  file(READ "${t}" text)
  string(APPEND body "    {\"${stem}\", R\"CELLO_SDC(${text})CELLO_SDC\"},\n")
endforeach()
file(WRITE "${OUT}.tmp" "// Generated from constraints/*.sdc by gen/embed_sdc.cmake; do not edit.\n#include <map>\n#include <string>\n#include \"sw/common/error.hpp\"\n#include \"gen/sdc/sdc.hpp\"\nnamespace cello::gen {\nconst std::string& sdc_template(const std::string& name) {\n  static const std::map<std::string, std::string> t = {\n${body}  };\n  auto it = t.find(name);\n  if (it == t.end()) throw Error(\"\", name, \"unknown SDC template\");\n  return it->second;\n}\n}  // namespace cello::gen\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
