# Script mode: embeds every rtl/*.sv primitive into a C++ source so that
# `cello gen` output is self-contained. Inputs: RTL_DIR, OUT.
file(GLOB prims "${RTL_DIR}/*.sv")
list(SORT prims)
set(body "")
set(names "")
foreach(p ${prims})
  get_filename_component(stem "${p}" NAME_WE)
  file(READ "${p}" text)
  string(APPEND body "    {\"${stem}\", R\"CELLO_SV(${text})CELLO_SV\"},\n")
endforeach()
file(WRITE "${OUT}.tmp" "// Generated from rtl/*.sv by gen/embed_rtl.cmake; do not edit.\n#include <map>\n#include <string>\n#include <vector>\n#include \"sw/common/error.hpp\"\n#include \"gen/design.hpp\"\nnamespace cello::gen {\nnamespace {\nconst std::map<std::string, std::string>& table() {\n  static const std::map<std::string, std::string> t = {\n${body}  };\n  return t;\n}\n}  // namespace\nconst std::string& rtl_primitive(const std::string& name) {\n  auto it = table().find(name);\n  if (it == table().end()) throw Error(\"\", name, \"unknown rtl primitive\");\n  return it->second;\n}\nstd::vector<std::string> rtl_primitive_names() {\n  std::vector<std::string> out;\n  for (const auto& [k, v] : table()) out.push_back(k);\n  return out;\n}\n}  // namespace cello::gen\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
