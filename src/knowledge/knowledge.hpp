// Knowledge: facts about GPUs, drivers and toolkits from public sources, loaded from checks/knowledge/*.yaml.
// Every row keeps its source key; rows marked uncertain make checks warn rather than error.
#pragma once

#include "facts/gpu_facts.hpp"
#include "knowledge/knowledge_env.hpp"
#include "knowledge/knowledge_health.hpp"
#include "knowledge/knowledge_secrets.hpp"
#include "knowledge/torch_wheels.hpp"

#include <expected>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

struct GpuRow {
  unsigned vendor_id = 0, device_id = 0;
  std::optional<unsigned> revision; // decides the model for some AMD boards
  std::optional<unsigned> subsystem_device;
  std::optional<unsigned> subsystem_vendor; // with subsystem_device: one board (open-gpu-kernel-modules rows)
  GpuModel model;
  bool vram_uncertain = false; // the VRAM figure is "?" in the sources (model.uncertain: the row's identity)
};

struct CudaDriverRow {
  std::string cuda;       // toolkit version "12.4" or "12.4.1"
  std::string min_driver; // minimum Linux x86_64 driver "550.54.14"
  std::string source;
  bool uncertain = false;
};

// Minor-version compatibility: a CUDA major family runs on drivers >= min_driver_branch (and < below_branch).
struct CudaFamilyRow {
  int major = 0;
  std::string min_driver;          // "525.60.13"
  std::optional<int> below_branch; // 580 for 12.x; none for the newest
  std::string source;
  bool uncertain = false;
};

struct DriverBranchRow {
  int branch = 0;       // 550
  std::string max_cuda; // 12.4
  std::string source;
  bool uncertain = false;
};

struct GfxRow {
  long long gfx_target_version = 0; // KFD encoding 110000
  std::string target;               // gfx1100
  std::string family;               // GFX11 (RDNA3); equal strings = same ISA family
  std::string source;
  std::string gc_ip;    // GC IP version(s) the kernel maps to it: "11.0.3" for gfx1101
  std::string products; // typical products, for messages
  bool apu = false;     // LLVM lists the target only as an APU: a Ryzen processor's integrated GPU
  bool uncertain = false;
};

// A ROCm release (or release line): its official Linux GPU targets and OS releases (knowledge rocm.yaml).
struct RocmReleaseRow {
  std::string rocm;                     // "6.2" (every 6.2.x), "6.4.0" (that point release only)
  std::vector<std::string> gfx_targets; // "gfx90a", "gfx1100"
  std::vector<std::string> os;          // "<os-release ID> <VERSION_ID prefix>": "ubuntu 22.04", "rhel 9.4"
  std::string source;
  bool uncertain = false;
};

// Where a builder of out-of-tree modules signs them under Secure Boot (knowledge secure_boot.yaml): its key
// and the certificate to enroll, for the builder's versions [since, before) on a distribution.
struct ModuleSigningRow {
  std::string builder;           // "dkms", "akmods"
  std::string since, before;     // upstream versions; empty: unbounded
  std::string distribution;      // glob over dkms_distribution()
  std::string key, certificate;  // empty where the builder signs nothing
  std::string made_by;           // "dkms", "update-secureboot-policy", "kmodgenca", "none"
  std::string read_from, source; // the versions the row was read from; source keys
  bool uncertain = false;
};

// An OS release and its codename (knowledge repos.yaml): ubuntu 24.04 = noble.
struct DistroReleaseRow {
  std::string id, version, codename, source;
  bool uncertain = false;
};

// A package repository host of a GPU vendor, or a PyTorch wheel index (knowledge repos.yaml).
struct VendorRepoRow {
  std::string host;             // "repo.radeon.com"; subdomains match too
  std::string vendor;           // "amd", "nvidia", "pytorch"
  bool release_specific = true; // publishes per OS release, so the release it names must be this OS's
  std::string source;
};

// A line by which a vendor tool says it failed, whatever its exit status (knowledge tool_errors.yaml).
struct ToolErrorRow {
  std::string tool;    // "rocminfo", "nvidia-smi": the program's file name
  std::string line;    // text an output line contains
  std::string meaning; // what it tells, for the message
  std::string source;
};

// An amdgpu module parameter with documented consequences for compute (knowledge amdgpu_params.yaml).
struct AmdgpuParamRow {
  struct Harmful {
    std::string value;  // as sysfs prints it, or "negative": an element of a comma list below 0
    std::string status; // "warn" or "info"
    std::string why;
  };
  std::string name;
  std::string default_value; // "" for an empty text
  std::string auto_text;     // what the default means
  std::vector<std::string> auto_off_targets;
  std::string auto_off; // what the default means on those targets
  std::vector<Harmful> harmful;
  std::string source;
};

// An AMD GPU Driver release line and the ROCm release lines AMD supports with it (knowledge
// amdgpu_driver.yaml).
struct AmdgpuDriverRow {
  std::string driver;            // "6.4", "30.10"
  std::vector<std::string> rocm; // "6.1", "7.2"
  std::string source;
};

// The kernels whose own amdgpu AMD lists for a ROCm release line on an OS release (amdgpu_driver.yaml).
struct RocmInboxKernelRow {
  std::string rocm, os;             // "7.0", "ubuntu 24.04"
  std::vector<std::string> kernels; // "6.8", "5.14.0-570"
  std::string source;
};

struct Knowledge {
  // GPU rows of knowledge files (a --knowledge folder or tests); they win over the GPU table compiled into
  // gpudoctor (knowledge/gpu_table.hpp), which every lookup falls back to.
  std::vector<GpuRow> gpus;
  std::vector<CudaDriverRow> cuda_drivers;
  std::vector<CudaFamilyRow> cuda_families;
  std::vector<DriverBranchRow> driver_branches;
  std::vector<GfxRow> gfx_targets;
  std::vector<std::string> gpu_env_prefixes; // environment variables worth collecting
  std::vector<std::string> gpu_env_names;
  std::vector<RocmReleaseRow> rocm_releases;
  std::vector<TorchWheelRow> torch_wheels;         // pytorch_wheels.yaml (torch_wheels.hpp)
  std::vector<TorchExtensionRow> torch_extensions; // extensions.yaml
  std::vector<DistroReleaseRow> distro_releases;
  std::vector<VendorRepoRow> vendor_repos;
  std::vector<ToolErrorRow> tool_errors; // in rank order per tool
  std::vector<AmdgpuParamRow> amdgpu_params;
  std::vector<AmdgpuDriverRow> amdgpu_driver_releases;
  std::vector<RocmInboxKernelRow> rocm_inbox_kernels;
  std::vector<ModuleSigningRow> module_signing; // in match order
  EnvKnowledge env; // NCCL/RCCL variables, allocator options, device selection (knowledge_env.hpp)
  HealthKnowledge
      health;          // Xid catalogue, module flavours, NVSwitch, firmware packages (knowledge_health.hpp)
  SecretRules secrets; // secrets.yaml: what a bundle redacts (knowledge_secrets.hpp)
  std::map<std::string, std::string> sources; // source key -> citation

  // The model of a PCI device; the most specific row wins (revision or subsystem match over device only).
  std::optional<GpuModel> find_gpu(unsigned vendor_id, unsigned device_id, std::optional<unsigned> revision,
                                   std::optional<unsigned> subsystem_device,
                                   std::optional<unsigned> subsystem_vendor = std::nullopt) const;
  // The same match, with the row's ids and vram_uncertain.
  std::optional<GpuRow> find_gpu_row(unsigned vendor_id, unsigned device_id, std::optional<unsigned> revision,
                                     std::optional<unsigned> subsystem_device,
                                     std::optional<unsigned> subsystem_vendor = std::nullopt) const;
  // Minimum driver for a toolkit version ("13.0.88" matches the row "13.0"; the most specific row wins).
  std::optional<CudaDriverRow> min_driver_for_cuda(const std::string& cuda_version) const;
  // Whether `driver` runs toolkit `cuda_version` (directly or through minor-version compatibility).
  // Empty when the toolkit's major family is unknown (and so is the release), or `driver` is not a version;
  // a known release without a compatibility family (10.x) is false below its own minimum.
  std::optional<bool> driver_runs_cuda(const std::string& driver, const std::string& cuda_version) const;
  // The minor-version compatibility row of a CUDA major (12 -> ">= 525").
  std::optional<CudaFamilyRow> cuda_family(int major) const;
  // The branch row of a driver version ("535.104.05" -> R535, CUDA 12.2); exact branch only.
  std::optional<DriverBranchRow> driver_branch(const std::string& driver) const;
  std::optional<GfxRow> find_gfx(long long gfx_target_version) const;
  // The ISA family of a gfx_target_version, also for one the table lacks: the family of the rows with the
  // same major.minor, else of the same major when those all agree (110005 -> GFX11; 100200 -> none).
  std::optional<std::string> isa_family(long long gfx_target_version) const;
  // `target` as rocminfo prints it: case and a ":sramecc+:xnack-" feature suffix are ignored.
  std::optional<GfxRow> find_gfx_target(const std::string& target) const;
  bool is_gpu_env_var(const std::string& name) const;
  // The row of a ROCm version: the most specific row whose components start it ("6.4.1" -> "6.4", "6.4.0" ->
  // "6.4.0" over "6.4"). Empty when no row matches (5.2, TheRock 7.9+).
  std::optional<RocmReleaseRow> rocm_release(const std::string& version) const;
  // Whether an "<os-release ID> <VERSION_ID prefix>" entry names this OS ("rhel 9" names 9.4).
  static bool os_entry_matches(const std::string& entry, const std::string& id,
                               const std::string& version_id);
  // Whether an OS (os-release ID and VERSION_ID) is in a row's list: "rhel 9.4" matches 9.4, "debian 12" 12.
  static bool rocm_supports_os(const RocmReleaseRow& row, const std::string& id,
                               const std::string& version_id);
  std::optional<DistroReleaseRow> distro_by_codename(const std::string& id,
                                                     const std::string& codename) const;
  std::optional<DistroReleaseRow> distro_by_version(const std::string& id, const std::string& version) const;
  // The wheel row of a torch version ("2.5.1" -> the 2.5 row) and variant ("cu124"); null when unknown.
  const TorchWheelRow* torch_wheel(const std::string& torch_version, const std::string& variant) const;
  // The rows whose wheels run on `gpu_arch` (arch_rule), oldest release first.
  std::vector<const TorchWheelRow*> torch_wheels_carrying(const std::string& gpu_arch) const;
  // Per variant, the row of the newest release that has it: what `pip install torch` from that index gets.
  std::vector<const TorchWheelRow*> newest_torch_wheels() const;
  const TorchExtensionRow* torch_extension(const std::string& dist) const;
  // The vendor repository a URL points into (by host; "http(s)://" and a port are ignored).
  std::optional<VendorRepoRow> vendor_repo(const std::string& url) const;
  // Where `builder` at `version` (its package version; empty when unknown: the newest rows) signs modules on
  // the OS of os-release `id` and `id_like` (as dkms names it: dkms_distribution); null when no row matches.
  const ModuleSigningRow* module_signing_for(const std::string& builder, const std::string& version,
                                             const std::string& id,
                                             const std::vector<std::string>& id_like) const;
  // The distribution as dkms names it (distro_version()): os-release ID when it is "ubuntu", else ID_LIKE as
  // written ("ubuntu debian" on Linux Mint), else ID.
  static std::string dkms_distribution(const std::string& id, const std::vector<std::string>& id_like);
};

// Loads every knowledge file (checks/knowledge/*.yaml). `dir` empty: the copy built into the binary
// (util/embedded.hpp); else every *.yaml in `dir`. An error names the file and line.
std::expected<Knowledge, std::string> load_knowledge(const std::string& dir = {});

} // namespace gpudoctor
