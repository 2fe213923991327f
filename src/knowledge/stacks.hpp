// Stack tables (fixes/stacks.yaml): what belongs to each vendor's software stack, and which releases
// gpudoctor installs from which repositories. Schema: docs/fixes.md, "Stack tables". Data with sources, as
// the knowledge tables are: the inventory collector reads them (what is a vendor's), the fix planner too.
#pragma once

#include <expected>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

struct VendorStack {
  std::string vendor;                      // "amd", "nvidia"
  std::vector<std::string> packages, keep; // shell globs over package names
  std::string profile_vars, profile_paths; // EREs
  std::vector<std::string> dkms, keyrings, modprobe_modules, icd, alternatives, groups;
  std::vector<std::string> core;        // globs: a package depending directly on one of these is the stack's
  std::vector<std::string> services;    // systemd units stopped before the purge
  std::string device_nodes;             // ERE of the device files whose users must stop first
  std::vector<std::string> user_caches; // folders below each home only the stack uses
  std::vector<std::string> wheels;      // pip distributions (globs) only this vendor's PyTorch needs
};

// A package of a vendor's that stands in for one of the distribution's (AMD's Mesa and libdrm).
struct Replacement {
  std::string vendor, family, package, distribution;
  bool uncertain = false;
};

struct CudaInstallRow {
  std::string cuda;        // "13.0"
  std::string torch_index; // "cu130"
  bool recommended = false;
};

struct ArchFirst {
  int sm = 0; // 86 for sm_86
  std::string first_cuda;
};

struct MajorMinArch {
  int cuda_major = 0;
  int min_sm = 0;
};

struct OsValue {
  std::string os;    // "ubuntu 22.04", "rhel 9"
  std::string value; // "ubuntu2204", "jammy"
  bool uncertain = false;
};

struct RocmInstallRow {
  std::string rocm, apt_dir, amdgpu_dir, graphics_dir, torch_index;
  bool recommended = false, uncertain = false;
};

struct RepoKey {
  std::string vendor, family, url;
  bool uncertain = false;
};

// A driver branch NVIDIA supports for long (production or long-term support); the others are short-lived
// new-feature branches, which a plan takes only when no long-lived one fits.
struct BranchKind {
  int branch = 0;
  std::string kind; // "production", "long-term support"
};

// Who built an installed package, told by dpkg's Maintainer and Version (globs, case-insensitive; an empty
// glob matches anything): "distribution", "nvidia" or "amd".
struct PackageOrigin {
  std::string maintainer, version, origin;
};

// Who publishes a repository, by its host (a glob): apt's source of an installed version names its origin.
struct RepositoryOrigin {
  std::string host, origin;
};

// How a container gets the vendor's GPUs: the host runs the driver; the image brings the user space.
struct ContainerPath {
  std::string vendor, image, run_flags, cdi;
};

struct Stacks {
  std::vector<VendorStack> vendors;
  std::vector<CudaInstallRow> cuda_installs;
  std::vector<ArchFirst> cuda_arch_first;
  std::vector<MajorMinArch> cuda_major_min_arch;
  std::vector<OsValue> nvidia_repo_dirs, amd_apt_codenames;
  std::vector<RocmInstallRow> rocm_installs;
  std::vector<RepoKey> repo_keys;
  std::vector<Replacement> replacements;
  std::string device_selection_vars; // ERE
  std::vector<BranchKind> nvidia_branch_kinds;
  std::vector<ContainerPath> container_paths;
  std::vector<PackageOrigin> package_origins;       // in order: the first matching row wins
  std::vector<RepositoryOrigin> repository_origins; // in order: the first matching row wins

  const VendorStack* vendor(const std::string& name) const;
  // The origin of the first package_origins row matching the package's Maintainer and Version; empty when
  // none does (an rpm package, whose origin is not read).
  std::string package_origin(const std::string& maintainer, const std::string& version) const;
  // The origin of the first repository_origins row matching a repository's host (the distributions'
  // archives); empty when none does (a GPU vendor's: knowledge vendor_repos; a mirror; a local repository).
  std::string repository_origin(const std::string& host) const;
  // The value of the most specific row whose os ("<ID> <version prefix>") matches.
  static std::optional<OsValue> for_os(const std::vector<OsValue>& rows, const std::string& id,
                                       const std::string& version);
  std::optional<RepoKey> key(const std::string& vendor, const std::string& family) const;
};

// "sm_86" -> 86; empty for anything else.
std::optional<int> sm_number(const std::string& arch);
// Whether "<ID> <version prefix>" names this OS: "rhel 9" matches 9.4, "ubuntu 22.04" matches 22.04.
bool os_matches(const std::string& pattern, const std::string& id, const std::string& version);

// Loads fixes/stacks.yaml (built in, or below `source_dir`); errors name the file and line.
std::expected<Stacks, std::string> load_stacks(const std::string& source_dir = {});

} // namespace gpudoctor
