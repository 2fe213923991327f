// What the compiled extensions beside PyTorch were built for, read from their files without importing them:
// METADATA's Requires-Dist, the shared libraries in their package folders and those libraries' DT_NEEDED
// (read by gpudoctor from the ELF headers, recorded as the summary elf-needed@<path>, never the library).
// Also torch's own pins and the libraries of the nvidia-* wheels, for the libraries that may shadow them.
#include "collect/collectors.hpp"
#include "parse/parsers_layer.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

constexpr std::size_t k_max_libraries = 16; // per extension: enough for bitsandbytes' per-CUDA libraries

bool shared_library(const std::string& name) {
  return text::ends_with(name, ".so") || text::contains(name, ".so.");
}

// The DT_NEEDED names of a library, through the view's summary (live: bounded range reads; replay: the
// record).
std::optional<std::vector<std::string>> needed_of(SystemView& view, const std::string& path) {
  auto summary = view.summary("elf-needed@" + path, {"gpudoctor-elf-needed", path}, [&](SystemView& v) {
    auto elf = parse::elf_needed(
        [&](std::uint64_t offset, std::size_t length) { return v.read_range(path, offset, length); });
    if (!elf) return std::optional<std::string>();
    return std::optional<std::string>(text::join(elf->needed, "\n") + (elf->needed.empty() ? "" : "\n"));
  });
  if (!summary) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& line : text::lines(*summary))
    if (!text::trim(line).empty()) names.push_back(text::trim(line));
  return names;
}

std::vector<parse::Requirement> requirements(SystemView& view, const PythonDist& d) {
  if (!text::ends_with(d.entry, ".dist-info")) return {};
  auto metadata = view.read_file(d.folder + "/" + d.entry + "/METADATA");
  if (!metadata) return {};
  return parse::requires_dist(*metadata);
}

CompiledExtension inspect(SystemView& view, const PythonDist& d, const TorchExtensionRow& row) {
  CompiledExtension x;
  x.dist = d.name;
  x.version = d.version;
  x.folder = d.folder;
  for (const auto& r : requirements(view, d))
    if (r.name == "torch") x.requires_torch.push_back(r.spec);
  for (const auto& folder : row.folders) {
    std::string dir = folder == "." ? d.folder : d.folder + "/" + folder;
    auto names = view.list_dir(dir);
    if (!names) continue;
    for (const auto& name : *names) {
      if (!shared_library(name) || x.libraries.size() >= k_max_libraries) continue;
      if (folder == "." && std::ranges::none_of(row.files, [&](const std::string& prefix) {
            return text::starts_with(name, prefix);
          }))
        continue;
      std::string path = dir + "/" + name;
      x.libraries.push_back({path, needed_of(view, path)});
    }
  }
  return x;
}

// <site>/nvidia/<component>/lib of the nvidia-* wheels, and the libraries in each.
void wheel_libraries(SystemView& view, PythonEnv& env) {
  std::vector<std::string> sites;
  for (const auto& d : env.distributions)
    if (text::starts_with(d.name, "nvidia-") && std::ranges::find(sites, d.folder) == sites.end())
      sites.push_back(d.folder);
  for (const auto& site : sites) {
    auto components = view.list_dir(site + "/nvidia");
    if (!components) continue;
    for (const auto& c : *components) {
      std::string lib = site + "/nvidia/" + c + "/lib";
      if (auto names = view.list_dir(lib)) env.wheel_libs[lib] = *names;
    }
  }
}

} // namespace

void collect_python_extensions(SystemView& view, const Knowledge& kb, PythonFacts& python) {
  for (auto& env : python.envs) {
    if (!env.error.empty()) continue;
    for (const auto& d : env.distributions) {
      if (d.name == "torch")
        for (const auto& r : requirements(view, d))
          if (!r.spec.empty()) env.torch_requires[r.name] = r.spec;
      if (const TorchExtensionRow* row = kb.torch_extension(d.name))
        env.extensions.push_back(inspect(view, d, *row));
    }
    wheel_libraries(view, env);
  }
}

} // namespace gpudoctor
