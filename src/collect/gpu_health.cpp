// What a GPU's own sysfs folder says about its health: the PCIe ports above it (to tie an AER line of a port
// to the GPU behind it), amdgpu's RAS error counters and hwmon sensors (temperature, power); and the amdgpu
// firmware folder when the kernel log names a firmware file amdgpu could not load.
#include "collect/collectors.hpp"
#include "parse/kernel_log.hpp"
#include "parse/parsers_system.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <algorithm>

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
  if (std::ranges::find(*names, "gpu_vram_bad_pages") != names->end())
    if (auto table = view.read_file(dir + "/gpu_vram_bad_pages")) {
      gpu.bad_pages = parse::amdgpu_bad_pages(*table);
      gpu.bad_pages->source = dir + "/gpu_vram_bad_pages";
    }
  for (const auto& name : *names) {
    if (!text::ends_with(name, "_err_count")) continue;
    auto content = view.read_file(dir + "/" + name);
    auto count = content ? parse::amdgpu_ras_count(*content) : std::nullopt;
    if (!count) continue;
    gpu.ras.push_back({name.substr(0, name.size() - 10), count->ue, count->ce, dir + "/" + name});
  }
}

// A sensor file's whole number ("45000\n"), scaled to the unit of the fact; nothing for garbage.
std::optional<double> sensor(SystemView& view, const std::string& path, double scale) {
  auto text = view.read_file(path);
  auto n = text ? text::to_int(text::trim(*text)) : std::nullopt;
  if (!n || *n < 0) return std::nullopt;
  return static_cast<double>(*n) * scale;
}

// The first hwmon device of the GPU (amdgpu registers one).
void collect_sensors(SystemView& view, Gpu& gpu) {
  const std::string dir = paths::pci_hwmon(gpu.bdf);
  auto names = view.list_dir(dir);
  if (!names) return;
  auto hwmon =
      std::find_if(names->begin(), names->end(), [](const std::string& n) { return n.starts_with("hwmon"); });
  if (hwmon == names->end()) return;
  const std::string at = dir + "/" + *hwmon + "/";
  GpuSensors& s = gpu.sensors;
  s.source = dir + "/" + *hwmon;
  s.temperature_celsius = sensor(view, at + "temp1_input", 1e-3);
  for (int n = 1; n <= 3; ++n) {
    const std::string temp = at + "temp" + std::to_string(n) + "_";
    auto input = sensor(view, temp + "input", 1e-3);
    if (!input) continue;
    auto label = view.read_file(temp + "label");
    std::string name = label ? text::trim(*label).substr(0, 32) : "temp" + std::to_string(n);
    s.temperatures.push_back(
        {name, *input, sensor(view, temp + "crit", 1e-3), sensor(view, temp + "emergency", 1e-3)});
  }
  s.power_draw_watts = sensor(view, at + "power1_average", 1e-6);
  if (!s.power_draw_watts) s.power_draw_watts = sensor(view, at + "power1_input", 1e-6);
  s.power_limit_watts = sensor(view, at + "power1_cap", 1e-6);
  if (auto busy = sensor(view, paths::pci_device(gpu.bdf) + "/gpu_busy_percent", 1); busy && *busy <= 100)
    s.busy_percent = static_cast<int>(*busy);
}

} // namespace

void collect_gpu_health(SystemView& view, std::vector<Gpu>& gpus) {
  for (auto& gpu : gpus) {
    if (auto link = view.read_link(paths::pci_device(gpu.bdf))) gpu.upstream_ports = ports_of(*link);
    if (gpu.vendor == Vendor::amd && gpu.driver && *gpu.driver == "amdgpu") {
      collect_ras(view, gpu);
      collect_sensors(view, gpu);
    }
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
