// Configure-time generator: `cello-gen-host CONFIG OUT_DIR`, the same code path as
// `cello gen --config CONFIG --out OUT_DIR`, without the rest of the program.
#include <cstdio>
#include <exception>

#include "gen_command.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cello-gen-host CONFIG.json OUT_DIR\n");
    return 2;
  }
  try {
    cello::gen::run_gen(argv[1], argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cello-gen-host: error: %s\n", e.what());
    return 2;
  }
  return 0;
}
