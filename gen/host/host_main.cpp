// Configure-time generator: `cello-gen-host CONFIG OUT_DIR`, the same code path as
// `cello gen --config CONFIG --out OUT_DIR`, without the rest of the program.
// CONFIG "-" means the embedded default config.
// `cello-gen-host --default-config OUT.json PATCH` writes the embedded default
// config with a JSON merge patch applied ("" = none), for testbench variants.
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>

#include "gen/gen_command.hpp"
#include "gen/hw_config.hpp"

int main(int argc, char** argv) {
  if (argc == 4 && std::string(argv[1]) == "--default-config") {
    try {
      nlohmann::json j = cello::gen::default_hw_config_json();
      if (*argv[3]) j.merge_patch(nlohmann::json::parse(argv[3]));
      std::ofstream(argv[2]) << j.dump(2) << "\n";
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cello-gen-host: error: %s\n", e.what());
      return 2;
    }
    return 0;
  }
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
