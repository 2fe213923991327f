#include "facts/facts.hpp"

#include <fmt/format.h>

namespace gpudoctor {

std::string vendor_name(Vendor v) {
  switch (v) {
  case Vendor::nvidia:
    return "NVIDIA";
  case Vendor::amd:
    return "AMD";
  case Vendor::other:
    break;
  }
  return "other";
}

std::string Gpu::display_name() const {
  if (model && !model->name.empty()) return model->name;
  if (pci_ids_name) return *pci_ids_name;
  return fmt::format("{} GPU {:04x}:{:04x}", vendor_name(vendor), vendor_id, device_id);
}

std::string Gpu::subject() const {
  return "gpu" + std::to_string(index) + " (" + bdf + ")";
}

std::string Gpu::arch() const {
  if (kfd_target) return *kfd_target;
  if (model) return model->arch;
  return {};
}

std::optional<long long> Gpu::gfx_target_version() const {
  if (kfd && kfd->gfx_target_version && *kfd->gfx_target_version > 0) return kfd->gfx_target_version;
  if (model) return model->gfx_target_version;
  return std::nullopt;
}

const Gpu* Facts::gpu_at(std::string_view bdf) const {
  if (bdf.empty()) return nullptr;
  for (const auto& gpu : gpus)
    if (gpu.bdf == bdf) return &gpu;
  return nullptr;
}

const NvidiaSmiGpu* Facts::smi_of(const Gpu& gpu) const {
  for (const auto& smi : nvidia.smi_gpus)
    if (!smi.bdf.empty() && smi.bdf == gpu.bdf) return &smi;
  return nullptr;
}

const Gpu* Facts::gpu_of(const NvidiaSmiGpu& smi) const {
  return gpu_at(smi.bdf);
}

const NvidiaSmiGpu* Facts::smi_of(const NvlinkGpu& g) const {
  for (const auto& s : nvidia.smi_gpus)
    if (!g.uuid.empty() && s.uuid == g.uuid) return &s;
  if (g.index >= 0 && static_cast<std::size_t>(g.index) < nvidia.smi_gpus.size())
    return &nvidia.smi_gpus[static_cast<std::size_t>(g.index)];
  return nullptr;
}

std::string kernel_event_name(KernelEventKind k) {
  switch (k) {
  case KernelEventKind::xid:
    return "xid";
  case KernelEventKind::sxid:
    return "sxid";
  case KernelEventKind::fallen_off_bus:
    return "fallen-off-the-bus";
  case KernelEventKind::init_failed:
    return "init-failed";
  case KernelEventKind::probe_failed:
    return "probe-failed";
  case KernelEventKind::open_module_required:
    return "open-module-required";
  case KernelEventKind::gsp_error:
    return "gsp-error";
  case KernelEventKind::reset_required:
    return "reset-required";
  case KernelEventKind::firmware_missing:
    return "firmware-missing";
  case KernelEventKind::ring_timeout:
    return "ring-timeout";
  case KernelEventKind::reset_begin:
    return "reset-begin";
  case KernelEventKind::reset_succeeded:
    return "reset-succeeded";
  case KernelEventKind::reset_failed:
    return "reset-failed";
  case KernelEventKind::mes_failure:
    return "mes-failure";
  case KernelEventKind::init_fatal:
    return "init-fatal";
  case KernelEventKind::pcie_aer:
    return "pcie-aer";
  case KernelEventKind::module_rejected:
    return "module-rejected";
  }
  return "unknown";
}

std::size_t Facts::count(Vendor v) const {
  std::size_t n = 0;
  for (const auto& gpu : gpus)
    if (gpu.vendor == v) ++n;
  return n;
}

} // namespace gpudoctor
