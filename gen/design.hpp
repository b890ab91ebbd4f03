// A generated design: the specialised modules of one hardware config plus the
// hand-written rtl/ primitives they instantiate. write_design() lays it out as
// DIR/<module>.sv (one module per file), DIR/files.f, DIR/manifest.json and
// DIR/<design>_params.hpp (gen/params_header.hpp), <design> being the config's
// "name".
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gen/sv_module.hpp"

namespace cello::gen {

struct Design {
  std::vector<SvModule> modules;     // in dependency order: leaves first
  std::set<std::string> primitives;  // names of rtl/ primitives used (file stem)
  nlohmann::json blocks = nlohmann::json::array();  // manifest entry per generated block
};

// The manifest entry of a generated block: kind, module name, params and ports.
nlohmann::json block_entry(const SvModule& m, const std::string& kind, const nlohmann::json& params);

// The modules of `design` that module `root` instantiates, directly or through
// others, with `root` first (each once, in the order first reached); nullptr
// entries never appear. Throws std::logic_error if `root` is not in the design.
std::vector<const SvModule*> hierarchy(const Design& design, const std::string& root);

// Writes the design; returns the list of files in filelist order (the RTL, not
// the manifest or the parameter header).
std::vector<std::filesystem::path> write_design(const Design& design, const nlohmann::json& config,
                                                const std::filesystem::path& out_dir);

// Stable 64-bit FNV-1a hash of the canonical (sorted-key, compact) config JSON.
std::string config_hash(const nlohmann::json& config);
// 64-bit FNV-1a of `bytes`, continuing from `h` (so several pieces hash as one).
uint64_t fnv1a(std::string_view bytes, uint64_t h = 1469598103934665603ULL);

// Source text of an rtl/ primitive embedded at build time; throws if unknown.
const std::string& rtl_primitive(const std::string& name);
std::vector<std::string> rtl_primitive_names();

}  // namespace cello::gen
