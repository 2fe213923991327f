// The operating system: os-release, the kernel and its command line, containers and WSL.
#pragma once

#include "facts/fact.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct KernelParam {
  std::string key;                  // as written: "amd_iommu", "nouveau.modeset"
  std::optional<std::string> value; // quotes removed; empty optional for a bare flag ("quiet")
};
// The kernel command line, read by parse::kernel_cmdline; its queries are defined beside that parser
// (parse/kernel_cmdline.cpp).
struct KernelCmdline {
  std::vector<KernelParam> params;    // before "--"
  std::vector<std::string> init_args; // after "--": for init, not the kernel
  // Keys compare as the kernel does: '-' and '_' are the same. The last value wins.
  bool has(std::string_view key) const;
  std::optional<std::string> get(std::string_view key) const; // "" for a bare flag
  std::vector<std::string> all(std::string_view key) const;
  // "iommu=pt" or "iommu.passthrough=1|y|on".
  bool iommu_passthrough() const;
  // The parameter that turns the IOMMU off ("iommu", "amd_iommu" or "intel_iommu" set to "off"), if any.
  std::optional<std::string> iommu_off_by() const;
  // modprobe.blacklist=a,b and module_blacklist=a,b (every occurrence), in order.
  std::vector<std::string> blacklisted_modules() const;
  // "nouveau.modeset=0" -> module_param("nouveau", "modeset") == "0".
  std::optional<std::string> module_param(std::string_view module, std::string_view param) const;
};

struct OsFacts {
  Fact<std::string> id;         // os-release ID: ubuntu, debian, rhel, ...
  Fact<std::string> version_id; // "24.04", "12"
  Fact<std::string> codename;   // VERSION_CODENAME: noble, bookworm
  Fact<std::string> pretty_name;
  std::vector<std::string> id_like;
  Fact<std::string> kernel_release;
  Fact<std::string> kernel_cmdline;
  std::optional<KernelCmdline> kernel_params; // kernel_cmdline parsed (collect/link_facts)
  Fact<std::string> architecture;             // from the kernel: x86_64, aarch64
  bool in_container = false;
  std::string container_evidence;
  bool wsl = false;
};

} // namespace gpudoctor
