// GPUs from PCI sysfs, without any vendor tool (Documentation/ABI/testing/sysfs-bus-pci).
#include "collect/collectors.hpp"
#include "parse/parsers.hpp"
#include "parse/parsers_system.hpp"
#include "system/machine_paths.hpp"
#include "system/pci_functions.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <map>

namespace gpudoctor {

namespace {

constexpr unsigned k_vendor_nvidia = 0x10de;
constexpr unsigned k_vendor_amd = 0x1002;

std::optional<std::string> read_trimmed(SystemView& view, const std::string& path) {
  auto text = view.read_file(path);
  if (!text) return std::nullopt;
  std::string t = text::trim(*text);
  if (t.empty() || t == "Unknown") return std::nullopt; // "Unknown" speed: link down or not PCIe
  return t;
}

std::optional<std::string> pci_ids_text(SystemView& view) {
  for (const char* path : {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids"})
    if (auto text = view.read_file(path)) return text;
  return std::nullopt;
}

} // namespace

std::size_t collect_pci_gpus(SystemView& view, std::vector<Gpu>& gpus) {
  const std::string base = paths::pci_devices;
  auto devices = view.list_dir(base);
  if (!devices) return 0;
  std::size_t left_out = 0;
  std::map<std::string, int> virtual_functions; // by physical function
  for (const auto& bdf : *devices) {
    std::string dir = base + "/" + bdf;
    auto pci_class = read_pci_hex(view, dir + "/class");
    if (!pci_class || !is_gpu_class(*pci_class)) continue;
    auto vendor = read_pci_hex(view, dir + "/vendor");
    if (!vendor || (*vendor != k_vendor_nvidia && *vendor != k_vendor_amd)) continue;
    // A vGPU or MxGPU host lists hundreds of these: a count on their physical GPU, not GPUs to judge.
    if (auto physical = physical_function_of(view, dir)) {
      ++virtual_functions[*physical];
      continue;
    }
    if (gpus.size() >= k_max_gpus) {
      ++left_out;
      continue;
    }
    Gpu gpu;
    gpu.bdf = bdf;
    gpu.source = dir;
    gpu.pci_class = *pci_class;
    gpu.vendor_id = *vendor;
    gpu.vendor = *vendor == k_vendor_nvidia ? Vendor::nvidia : Vendor::amd;
    gpu.device_id = read_pci_hex(view, dir + "/device").value_or(0);
    gpu.subsystem_vendor = read_pci_hex(view, dir + "/subsystem_vendor");
    gpu.subsystem_device = read_pci_hex(view, dir + "/subsystem_device");
    gpu.revision = read_pci_hex(view, dir + "/revision");
    if (auto link = view.read_link(dir + "/driver")) {
      std::string name = link->substr(link->find_last_of('/') + 1);
      gpu.driver = {name, dir + "/driver -> " + *link};
    }
    if (auto numa = view.read_file(dir + "/numa_node"))
      if (auto n = text::to_int(*numa); n && *n >= 0) gpu.numa_node = static_cast<int>(*n);
    gpu.link_speed_current = read_trimmed(view, dir + "/current_link_speed");
    gpu.link_speed_max = read_trimmed(view, dir + "/max_link_speed");
    for (auto [file, sink] : {std::pair{"/current_link_width", &gpu.link_width_current},
                              std::pair{"/max_link_width", &gpu.link_width_max}})
      if (auto w = read_trimmed(view, dir + file))
        if (auto n = text::to_int(*w); n && *n > 0 && *n <= 64) *sink = static_cast<int>(*n);
    if (gpu.vendor == Vendor::amd)
      if (auto vram = view.read_file(dir + "/mem_info_vram_total"))
        if (auto n = text::to_int(*vram); n && *n > 0) gpu.vram_bytes_sysfs = static_cast<std::uint64_t>(*n);
    // The BAR the CPU and peers reach VRAM through: BAR0 on amdgpu, BAR1 on NVIDIA (gpu.bar-small).
    const std::size_t vram_bar = gpu.vendor == Vendor::amd ? 0 : 1;
    if (auto resource = view.read_file(dir + "/resource"))
      gpu.vram_bar_bytes = parse::pci_resource_size(*resource, vram_bar);
    if (auto resize = view.read_file(dir + "/resource" + std::to_string(vram_bar) + "_resize"))
      gpu.vram_bar_offered = parse::pci_rebar_largest(*resize);
    if (auto drm = view.list_dir(dir + "/drm"))
      for (const auto& name : *drm)
        if (text::starts_with(name, "renderD")) gpu.render_node = paths::dri_node(name);
    gpus.push_back(std::move(gpu));
  }
  std::sort(gpus.begin(), gpus.end(), [](const Gpu& a, const Gpu& b) { return a.bdf < b.bdf; });
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    gpus[i].index = static_cast<int>(i);
    if (auto it = virtual_functions.find(gpus[i].bdf); it != virtual_functions.end())
      gpus[i].virtual_functions = it->second;
  }
  if (gpus.empty()) return left_out;
  // pci.ids is large: read it only when there is a GPU to name.
  if (auto ids = pci_ids_text(view))
    for (auto& gpu : gpus)
      gpu.pci_ids_name =
          parse::pci_ids_name(*ids, gpu.vendor_id, gpu.device_id, gpu.subsystem_vendor, gpu.subsystem_device);
  return left_out;
}

} // namespace gpudoctor
