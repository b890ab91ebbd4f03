#include "gen/design.hpp"

#include <fmt/format.h>

#include <set>
#include <stdexcept>

#include "gen/params_header.hpp"
#include "sw/common/error.hpp"
#include "sw/common/output_file.hpp"

namespace cello::gen {

namespace {
// Leaves a file untouched when it already holds `text`, so regenerating an
// unchanged design does not make every downstream Verilator build stale.
void write_text(const std::filesystem::path& path, const std::string& text) {
  write_output_if_changed(path.string(), text);
}

// The design's name, the config's "name" ("design" when a caller passes a
// config without one, e.g. a test's bare module list).
std::string design_name(const nlohmann::json& config) {
  if (config.is_object() && config.contains("name") && config["name"].is_string())
    return config["name"].get<std::string>();
  return "design";
}
}  // namespace

nlohmann::json block_entry(const SvModule& m, const std::string& kind, const nlohmann::json& params) {
  nlohmann::json ports = nlohmann::json::array();
  for (const auto& p : m.ports())
    ports.push_back({{"name", p.name}, {"dir", p.dir == Dir::In ? "input" : "output"}, {"width", p.width}});
  return {{"kind", kind}, {"module", m.name()}, {"params", params}, {"ports", ports}};
}

uint64_t fnv1a(std::string_view bytes, uint64_t h) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string config_hash(const nlohmann::json& config) {
  return fmt::format("{:016x}", fnv1a(config.dump()));  // nlohmann::json objects dump with sorted keys
}

std::vector<std::filesystem::path> write_design(const Design& design, const nlohmann::json& config,
                                                const std::filesystem::path& out_dir) {
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw Error(out_dir.string(), "", "cannot create output directory: " + ec.message());

  std::vector<std::filesystem::path> files;
  for (const auto& prim : design.primitives) {
    files.push_back(out_dir / (prim + ".sv"));
    write_text(files.back(), rtl_primitive(prim));
  }
  nlohmann::json modules = nlohmann::json::array();
  for (const auto& m : design.modules) {
    files.push_back(out_dir / (m.name() + ".sv"));
    write_text(files.back(), m.render());
    modules.push_back(m.name());
  }
  const std::string hash = config_hash(config);
  std::string filelist;
  for (const auto& f : files) filelist += std::filesystem::absolute(f).lexically_normal().string() + "\n";
  write_text(out_dir / "files.f", filelist);

  nlohmann::json manifest = {
      {"generator", "cello gen"},
      {"config_hash", hash},
      {"config", config},
      {"primitives", design.primitives},
      {"modules", modules},
      {"blocks", design.blocks},
  };
  write_text(out_dir / "manifest.json", manifest.dump(2) + "\n");

  // The C++ view of the same block entries, for testbenches (not in files.f).
  const std::string name = design_name(config);
  write_text(out_dir / params_header_name(name), params_header(name, hash, design.blocks));
  return files;
}

std::vector<const SvModule*> hierarchy(const Design& design, const std::string& root) {
  const auto find = [&](const std::string& name) -> const SvModule* {
    for (const auto& m : design.modules)
      if (m.name() == name) return &m;
    return nullptr;
  };
  const SvModule* top = find(root);
  if (!top) throw std::logic_error(fmt::format("hierarchy: no module named {} in the design", root));
  std::vector<const SvModule*> order{top};
  std::set<std::string> seen{root};
  for (size_t i = 0; i < order.size(); ++i)
    for (const std::string& child : order[i]->instantiated_modules())
      if (const SvModule* m = find(child); m && seen.insert(child).second) order.push_back(m);
  return order;
}

}  // namespace cello::gen
