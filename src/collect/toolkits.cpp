// CUDA and ROCm installs, cuDNN, NCCL and RCCL: read from version files and headers where they exist,
// so the only process started is `nvcc --version` for the nvcc on PATH, and that once per nvcc binary.
#include "collect/collectors.hpp"
#include "parse/parsers.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <memory>
#include <set>

namespace gpudoctor {

Fact<std::string> cuda_version_at(SystemView& view, const std::string& dir) {
  if (auto json = view.read_file(dir + "/version.json"))
    if (auto v = parse::cuda_version_json(*json)) return {*v, dir + "/version.json"};
  if (auto txt = view.read_file(dir + "/version.txt"))
    if (auto v = parse::cuda_version_txt(*txt)) return {*v, dir + "/version.txt"};
  // Toolkits assembled from NVIDIA's wheels have no version file, only the wheels' dist-info folders.
  if (auto infos = view.list_dir(dir + "/dist-info"))
    for (const auto& name : *infos)
      if (text::starts_with(name, "nvidia_cuda_nvcc-") && text::ends_with(name, ".dist-info")) {
        std::string v = name.substr(17, name.size() - 17 - 10);
        if (text::compare_versions(v, "0") > 0) return {v, dir + "/dist-info/" + name};
      }
  // Last resort: the folder's own name, cuda-X.Y.
  auto slash = dir.find_last_of('/');
  std::string base = dir.substr(slash + 1);
  if (text::starts_with(base, "cuda-") && !text::version_prefix(base.substr(5), 2).empty())
    return {text::version_prefix(base.substr(5), 2), dir + " (folder name)"};
  return {};
}

namespace {

void collect_cuda(SystemView& view, const CollectOptions& opt, ToolkitFacts& tk,
                  std::vector<ToolRun>& tools) {
  if (auto entries = view.list_dir("/usr/local")) {
    for (const auto& name : *entries) {
      if (!text::starts_with(name, "cuda-")) continue;
      std::string dir = "/usr/local/" + name;
      // cuda-13 -> /etc/alternatives/cuda-13 -> /usr/local/cuda-13.0 is a name for a toolkit, not another
      // one.
      if (auto target = final_link_target(view, dir); target && text::starts_with(*target, "/usr/local/")) {
        std::string target_name = target->substr(std::string_view("/usr/local/").size());
        if (text::starts_with(target_name, "cuda-") && target_name.find('/') == std::string::npos &&
            std::find(entries->begin(), entries->end(), target_name) != entries->end())
          continue;
      }
      auto st = view.stat(dir);
      if (!st || st->type != FileType::dir) continue;
      tk.cuda.push_back({dir, cuda_version_at(view, dir)});
    }
  }
  if (auto link = final_link_target(view, "/usr/local/cuda"))
    tk.cuda_default_link = {*link, "/usr/local/cuda -> " + *link};
  else if (auto st = view.stat("/usr/local/cuda"); st && st->type == FileType::dir)
    tk.cuda.push_back({"/usr/local/cuda", cuda_version_at(view, "/usr/local/cuda")});

  if (auto nvcc = find_on_path(view, "nvcc")) {
    tk.nvcc_path = {*nvcc, "PATH"};
    CommandSpec spec = keyed_command_spec(KeyedCommand::nvcc_version, opt.tool_timeout);
    // Its answer is the binary's own (nvcc reads no file to print it): remembered while the binary found on
    // PATH is the same file (system/run_cache.hpp); nvcc starts in 10-40 ms.
    static const auto k_same_binary = std::make_shared<const RunCacheRule>();
    spec.cache = k_same_binary;
    auto r = view.run(spec);
    if (r.found) {
      ToolRun run = tool_run_of(r, spec);
      if (r.ok()) {
        if (auto v = parse::nvcc_version(r.out)) tk.nvcc_version = {*v, "cmd nvcc-version"};
      } else if (!r.timed_out) {
        run.failure = text::trim(r.err).substr(0, 300);
      }
      tools.push_back(std::move(run));
    }
  }
  // The nvcc on PATH belongs to a listed install (/usr/local/cuda/bin/nvcc -> /usr/local/cuda-13.0): its
  // exact version beats one read off the folder's name, and the install is not a second toolkit.
  constexpr std::string_view bin_nvcc = "/bin/nvcc";
  if (tk.nvcc_path && tk.nvcc_version && text::ends_with(*tk.nvcc_path, bin_nvcc)) {
    std::string root = tk.nvcc_path->substr(0, tk.nvcc_path->size() - bin_nvcc.size());
    std::string resolved = final_link_target(view, root).value_or(root);
    for (auto& install : tk.cuda)
      if ((install.path == root || install.path == resolved) &&
          text::ends_with(install.version.source, "(folder name)") &&
          text::starts_with(*tk.nvcc_version, install.version.value.value_or("") + "."))
        install.version = {*tk.nvcc_version, "cmd nvcc-version (" + *tk.nvcc_path + ")"};
  }
}

} // namespace

Fact<std::string> rocm_version_at(SystemView& view, const std::string& dir) {
  // Classic layout: .info/version; TheRock (7.9+): core/.info/version.
  for (const char* file : {"/.info/version", "/core/.info/version"})
    if (auto text = view.read_file(dir + file))
      if (auto v = parse::rocm_info_version(*text)) return {*v, dir + file};
  return {};
}

namespace {

// Packages a distribution splits ROCm's runtime into: one of these needing another is ROCm itself.
bool rocm_runtime_package(const std::string& name) {
  for (const char* prefix :
       {"libamdhip", "libamd-comgr", "libhsa", "libroc", "libhip", "libmiopen", "librccl", "rocm-", "hip"})
    if (text::starts_with(name, prefix)) return true;
  return false;
}

// The installed packages outside ROCm that need `name`, directly or through ROCm's own libraries.
std::vector<std::string> required_from_outside(const PackageFacts& packages, const std::string& name) {
  std::set<std::string> seen{name}, outside;
  std::vector<std::string> queue{name};
  while (!queue.empty()) {
    std::string wanted = queue.back();
    queue.pop_back();
    for (const auto& [pkg, deps] : packages.depends) {
      if (seen.count(pkg) || std::find(deps.begin(), deps.end(), wanted) == deps.end()) continue;
      seen.insert(pkg);
      if (rocm_runtime_package(pkg))
        queue.push_back(pkg);
      else
        outside.insert(pkg);
    }
  }
  return {outside.begin(), outside.end()};
}

// Debian and Ubuntu ship HIP as distribution packages (hipcc, libamdhip64-5) without /opt/rocm.
void collect_distribution_rocm(const PackageFacts& packages, ToolkitFacts& tk) {
  for (const char* name :
       {"hipcc", "libamdhip64-5", "libamdhip64-6", "hip-runtime-amd", "rocminfo", "rocm-smi"}) {
    auto version = packages.version_of(name);
    if (!version) continue;
    std::string v = *version;
    if (auto colon = v.find(':'); colon != std::string::npos) v = v.substr(colon + 1);
    if (auto dash = v.find('-'); dash != std::string::npos) v = v.substr(0, dash);
    RocmInstall install;
    install.path = packages.manager + ":" + name;
    install.version = {v, packages.source + " (" + name + " " + *version + ")"};
    install.distribution_package = true;
    // Only libraries and no ROCm tool: perhaps another package brought them (libucx0 needs libamdhip64-5).
    bool tools = false;
    for (const char* tool : {"hipcc", "hip-runtime-amd", "rocminfo", "rocm-smi"})
      tools = tools || packages.version_of(tool).has_value();
    if (!tools) install.required_by = required_from_outside(packages, name);
    tk.rocm.push_back(std::move(install));
    return; // one entry stands for the distribution's ROCm; the first name found is the most telling
  }
}

void collect_rocm(SystemView& view, const PackageFacts& packages, ToolkitFacts& tk) {
  if (auto entries = view.list_dir("/opt")) {
    for (const auto& name : *entries) {
      if (!text::starts_with(name, "rocm-")) continue;
      std::string dir = "/opt/" + name;
      auto st = view.stat(dir);
      if (!st || st->type != FileType::dir) continue;
      tk.rocm.push_back({dir, rocm_version_at(view, dir), false});
    }
  }
  if (auto link = final_link_target(view, "/opt/rocm"))
    tk.rocm_default_link = {*link, "/opt/rocm -> " + *link};
  else if (auto st = view.stat("/opt/rocm"); st && st->type == FileType::dir)
    tk.rocm.push_back({"/opt/rocm", rocm_version_at(view, "/opt/rocm"), false});
  bool vendor_install =
      std::any_of(tk.rocm.begin(), tk.rocm.end(), [](auto& r) { return !r.distribution_package; });
  if (!vendor_install && packages.manager == "dpkg") collect_distribution_rocm(packages, tk);
  if (auto hipcc = find_on_path(view, "hipcc")) tk.hipcc_path = {*hipcc, "PATH"};
}

void collect_libraries(SystemView& view, ToolkitFacts& tk) {
  for (const char* path : {"/usr/include/cudnn_version.h", "/usr/include/x86_64-linux-gnu/cudnn_version.h",
                           "/usr/local/cuda/include/cudnn_version.h"})
    if (auto text = view.read_file(path))
      if (auto v = parse::cudnn_header_version(*text)) {
        tk.cudnn_version = {*v, path};
        break;
      }
  for (const char* path : {"/usr/include/nccl.h", "/usr/local/cuda/include/nccl.h"})
    if (auto text = view.read_file(path))
      if (auto v = parse::nccl_header_version(*text)) {
        tk.nccl_version = {*v, path};
        break;
      }
  for (const char* path :
       {"/opt/rocm/include/rccl/rccl.h", "/usr/include/rccl/rccl.h", "/usr/include/rccl.h"})
    if (auto text = view.read_file(path))
      if (auto v = parse::nccl_header_version(*text)) {
        tk.rccl_version = {*v, path};
        break;
      }
}

} // namespace

void collect_toolkits(SystemView& view, const CollectOptions& opt, const PackageFacts& packages,
                      ToolkitFacts& toolkits, std::vector<ToolRun>& tools) {
  collect_cuda(view, opt, toolkits, tools);
  collect_rocm(view, packages, toolkits);
  collect_libraries(view, toolkits);
}

} // namespace gpudoctor
