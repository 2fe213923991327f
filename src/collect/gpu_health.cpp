// What a GPU's own sysfs folder says about its health: the PCIe ports above it (to tie an AER line of a port
// to the GPU behind it) and amdgpu's RAS error counters; and the amdgpu firmware folder when the kernel log
// names a firmware file amdgpu could not load.
#include "collect/collectors.hpp"
#include "parse/kernel_log.hpp"
#include "parse/parsers_system.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

namespace gpudoctor {

namespace {

constexpr const char* k_amdgpu_firmware = "/lib/firmware/amdgpu";

// "../../../devices/pci0000:00/0000:00:01.1/0000:01:00.0" -> {"0000:00:01.1"}: the path's PCI components
// before the device itself.
std::vector<std::string> ports_of(const std::string& link) {
  std::vector<std::string> out;
  for (const auto& part : text::split(link, '/'))
    if (auto a = parse::normalize_pci_address(part); !a.empty()) out.push_back(a);
  if (!out.empty()) out.pop_back();
  return out;
}

void collect_ras(SystemView& view, Gpu& gpu) {
  const std::string dir = paths::amdgpu_ras(gpu.bdf);
  auto names = view.list_dir(dir);
  if (!names) return;
  for (const auto& name : *names) {
    if (!text::ends_with(name, "_err_count")) continue;
    auto content = view.read_file(dir + "/" + name);
    auto count = content ? parse::amdgpu_ras_count(*content) : std::nullopt;
    if (!count) continue;
    gpu.ras.push_back({name.substr(0, name.size() - 10), count->ue, count->ce, dir + "/" + name});
  }
}

} // namespace

void collect_gpu_health(SystemView& view, std::vector<Gpu>& gpus) {
  for (auto& gpu : gpus) {
    if (auto link = view.read_link(paths::pci_device(gpu.bdf))) gpu.upstream_ports = ports_of(*link);
    if (gpu.vendor == Vendor::amd && gpu.driver && *gpu.driver == "amdgpu") collect_ras(view, gpu);
  }
}

void collect_firmware_listing(SystemView& view, const KernelLogFacts& log, FirmwareListing& out) {
  bool amdgpu_missing = std::any_of(log.events.begin(), log.events.end(), [](const KernelEvent& e) {
    return e.kind == KernelEventKind::firmware_missing && text::starts_with(e.detail, "amdgpu/");
  });
  if (!amdgpu_missing) return;
  out.dir = k_amdgpu_firmware;
  if (auto files = view.list_dir(k_amdgpu_firmware)) {
    out.listed = true;
    out.files = std::move(*files);
  }
}

} // namespace gpudoctor
