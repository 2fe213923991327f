// Which versions to install: the CUDA release, driver branch and kernel-module flavour for the NVIDIA GPUs,
// or the ROCm release for the AMD GPUs, and the PyTorch wheel index that goes with them, chosen from the
// knowledge tables (checks/knowledge/cuda.yaml, rocm.yaml) and fixes/stacks.yaml for this GPU and OS.
// --driver, --cuda, --rocm override the choice; a combination that cannot work is refused with the reason.
#pragma once

#include "facts/facts.hpp"
#include "fix/recipe.hpp"
#include "knowledge/knowledge.hpp"
#include "knowledge/stacks.hpp"

#include <expected>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor::fix {

// The OS as the tables name it.
struct OsKey {
  Family family = Family::debian;
  std::string id;      // os-release ID as is: ubuntu, linuxmint, debian, rocky
  std::string version; // VERSION_ID: 22.04, 12, 9.4
  std::string
      base_id; // what vendor tables use: ubuntu (derivatives too), debian, rhel (the RHEL family), fedora
  std::string base_version; // 22.04 for Linux Mint 21
  std::string codename;     // the apt codename of the Ubuntu base, or VERSION_CODENAME
  std::string name;         // PRETTY_NAME
  bool ubuntu = false;
};

// Refused when the OS is neither Debian nor RHEL family.
std::expected<OsKey, std::string> os_key(const Facts& facts, const Knowledge& kb);

struct VersionRequest {
  std::string driver; // "570" or "570.124.06"
  std::string cuda;   // "12.8"
  std::string rocm;   // "7.2"
  std::string torch;  // "2.9.0"
};

struct NvidiaChoice {
  std::string cuda; // "13.0"
  int branch = 0;   // 580
  bool open_modules = true;
  std::string torch_index; // "cu130"; empty when no index builds for the GPU
  std::vector<std::string> notes;
};

struct AmdChoice {
  RocmInstallRow install;  // the stacks.yaml row
  std::string torch_index; // "rocm7.2"
  std::vector<std::string> notes;
};

std::expected<NvidiaChoice, std::string> choose_nvidia(const Facts& facts, const Knowledge& kb,
                                                       const Stacks& stacks, const VersionRequest& req);
std::expected<AmdChoice, std::string> choose_amd(const Facts& facts, const Knowledge& kb,
                                                 const Stacks& stacks, const OsKey& os,
                                                 const VersionRequest& req);

// For torch-reinstall on a machine as it is: the index for the NVIDIA driver that is loaded, or for the
// ROCm release that is installed. Empty with a reason when there is none.
struct TorchChoice {
  std::string index; // "cu126", "rocm6.4"
  std::string why;
};
std::expected<TorchChoice, std::string> choose_torch_here(const Facts& facts, const Knowledge& kb,
                                                          const Stacks& stacks, Vendor vendor);

} // namespace gpudoctor::fix
