// Configure-time generator: `cello-gen-host CONFIG OUT_DIR`, the same code path as
// `cello gen --config CONFIG --out OUT_DIR`, without the rest of the program.
// CONFIG "-" means the embedded default config.
#include <cstdio>
#include <exception>
#include <string>

#include "gen_command.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cello-gen-host CONFIG.json|- OUT_DIR\n");
    return 2;
  }
  try {
    std::string config = argv[1];
    auto r = cello::gen::run_gen(config == "-" ? "" : config, argv[2]);
    std::printf("%s\n", r.hash.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cello-gen-host: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
