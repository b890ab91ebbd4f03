# Script mode: embeds configs/default.json, the design `cello gen`, `cello demo`
# and `cello sim` use when no --config is given, into a C++ source, so the
# embedded default and the file in the repository are the same text.
# Inputs: CONFIG, OUT.
file(READ "${CONFIG}" text)
file(WRITE "${OUT}.tmp" "// Generated from configs/default.json by gen/embed_config.cmake; do not edit.\n#include \"gen/hw_config.hpp\"\nnamespace cello::gen {\nconst char* default_hw_config_text() {\n  return R\"CELLO_JSON(${text})CELLO_JSON\";\n}\n}  // namespace cello::gen\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
