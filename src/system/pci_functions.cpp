#include "system/pci_functions.hpp"

#include "system/machine_paths.hpp"
#include "util/text.hpp"

namespace gpudoctor {

bool is_gpu_class(unsigned pci_class) {
  return (pci_class >> 16) == 0x03 || (pci_class >> 8) == 0x1200;
}

std::optional<unsigned> read_pci_hex(SystemView& view, const std::string& path) {
  auto text = view.read_file(path);
  if (!text) return std::nullopt;
  auto v = text::to_int(text::trim(*text), 16);
  if (!v || *v < 0 || *v > 0xffffffffLL) return std::nullopt;
  return static_cast<unsigned>(*v);
}

std::optional<std::string> physical_function_of(SystemView& view, const std::string& dir) {
  auto link = view.read_link(dir + "/physfn");
  if (!link) return std::nullopt;
  return link->substr(link->find_last_of('/') + 1);
}

std::size_t count_physical_gpu_functions(SystemView& view, std::size_t stop_after) {
  auto devices = view.list_dir(paths::pci_devices);
  if (!devices) return 0;
  if (devices->size() <= stop_after) return devices->size(); // at most that many, whatever they are
  std::size_t count = 0;
  for (const auto& bdf : *devices) {
    const std::string dir = paths::pci_device(bdf);
    auto pci_class = read_pci_hex(view, dir + "/class");
    if (!pci_class || !is_gpu_class(*pci_class) || physical_function_of(view, dir)) continue;
    if (++count > stop_after) break;
  }
  return count;
}

} // namespace gpudoctor
