// Parsers for topology, vendor SMI tools, packages, repositories, boot and shell configuration. Same contract
// as parsers.hpp: pure functions of the text, they never throw, never do I/O, and survive any input (each
// is fuzzed, fuzz/); what they cannot read is left empty. No <expected> here: the fuzz build's clang may
// lack it (docs/fuzzing.md).
#pragma once

#include "facts/gpu_facts.hpp" // VramBadPages
#include "facts/os_facts.hpp"  // KernelCmdline

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::parse {

// ---- nvidia-smi topo -m ------------------------------------------------------------------------------

// How two devices are connected, as `nvidia-smi topo -m` prints it (best first).
enum class TopoLink { self, nvlink, pix, pxb, phb, node, sys, unknown };
// "X" -> self, "NV12" -> nvlink (with *nvlinks = 12), "PIX", "PXB", "PHB", "NODE", "SYS" (old drivers:
// "SOC").
TopoLink topo_link(std::string_view cell, int* nvlinks = nullptr);

struct NvidiaTopoRow {
  std::string device;             // "GPU0", "NIC0", or an old driver's "mlx5_0"
  std::vector<std::string> links; // one cell per column of NvidiaTopo::devices: "X", "NV12", "SYS", ...
  std::string cpu_affinity;       // "0-23,48-71", "N/A"; empty when the column is absent or the cell empty
  std::string numa_affinity;      // "0", "N/A"
  std::string gpu_numa_id;        // "N/A" (newer drivers)
};
struct NvidiaTopo {
  std::vector<std::string> devices; // the matrix columns, in order
  std::vector<NvidiaTopoRow> rows;
  std::map<std::string, std::string> nic_names; // "NIC0" -> "mlx5_0" from the "NIC Legend"
  // The cell between two devices ("NV18"); empty when either is unknown.
  std::string link(std::string_view a, std::string_view b) const;
  std::vector<std::string> gpus() const; // the rows named GPU<n>
};
// Tabs or spaces, with or without the legend; terminal escapes are ignored. Empty when no matrix is found.
std::optional<NvidiaTopo> nvidia_smi_topo(std::string_view text);

// "0-23,48-71" -> {{0,23},{48,71}}; "5" -> {{5,5}}; "N/A" or garbage -> empty.
std::vector<std::pair<int, int>> cpu_list(std::string_view text);

// ---- rocm-smi ------------------------------------------------------------------------------------------

struct RocmSmiCard {
  std::string card;        // "card0" (JSON, CSV) or the device index of a table ("0")
  std::string device_id;   // "0x738c": "Device ID", older "GPU ID", the concise table's model
  std::string device_rev;  // "0x01"
  std::string card_series; // "Card Series" / "Card series": "Arcturus GL-XL [Instinct MI100]"
  std::string card_model, card_vendor, card_sku, subsystem_id;
  std::string device_name;    // "Device Name" (newer) or the concise table's name line
  std::string gfx_version;    // "GFX Version" as printed: "gfx9010"
  std::string gfx_target;     // the LLVM target it means: "gfx90a" (see rocm_smi_gfx_target)
  std::optional<int> node_id; // "Node ID" (KFD node)
  std::string bdf;            // "PCI Bus" as a lower-case sysfs BDF: "0000:1e:00.0"
  std::string unique_id, vbios_version, serial;
  std::optional<long long> vram_total_bytes, vram_used_bytes;
  std::optional<int> numa_node; // "(Topology) Numa Node"
  std::string partitions;       // concise table: "NPS1, SPX"
};
struct RocmSmiReport {
  std::vector<RocmSmiCard> cards;
  // "system" / "cardsystem" "Driver version": the amdgpu-dkms version (6.3.6), or, with the in-tree driver,
  // the kernel release (4.18.0-348.12.2.el8_5.x86_64).
  std::string driver_version;
};
// `rocm-smi ... --json` (any flag set; "card0".."cardN" objects and "system").
std::optional<RocmSmiReport> rocm_smi_json(std::string_view text);
// `rocm-smi ... --csv`: a header "device,<key>,..." and one row per card ("cardsystem" for system values).
std::optional<RocmSmiReport> rocm_smi_csv(std::string_view text);
// The default / concise table: device index, model and revision, the name line below (newer rocm-smi),
// partitions. The legacy table only gives the indices.
std::optional<RocmSmiReport> rocm_smi_table(std::string_view text);
// rocm-smi builds "GFX Version" from gfx_target_version with a decimal stepping: 90010 -> "gfx9010" where
// LLVM says gfx90a. This reads it back: "gfx9010" -> "gfx90a", "gfx9012" -> "gfx90c", "gfx1100" and
// "gfx90a" unchanged; the ":sramecc+:xnack-" suffix is dropped. Empty when it is no gfx name.
std::string rocm_smi_gfx_target(std::string_view gfx_version);
// The KFD gfx_target_version of an LLVM target: "gfx90a" -> 90010, "gfx1100" -> 110000.
std::optional<long long> gfx_target_version_of(std::string_view gfx_target);

// ---- amd-smi -------------------------------------------------------------------------------------------

struct AmdSmiGpu {
  int gpu = -1;          // "GPU: 0" / "gpu": 0
  std::string bdf, uuid; // list; static --bus
  std::optional<long long> kfd_id, node_id, partition_id;
  std::string market_name, vendor_id, device_id, subsystem_id, rev_id; // static --asic
  std::string target_graphics_version;                                 // "gfx942"
  std::optional<long long> num_compute_units, oam_id;
  std::string driver_name, driver_version; // static --driver
  std::string vbios_version, board_product_name;
  std::string compute_partition, memory_partition; // static --partition: "CPX", "NPS4"
  std::optional<long long> vram_size_mb;
  std::string vram_type;
};
// `amd-smi list` and `amd-smi static` (any sections), text ("GPU: 0" blocks of "KEY: value") or --json
// (a list of GPU objects, or newer {"gpu_data": [...]}). Values "N/A" are left empty.
std::vector<AmdSmiGpu> amd_smi_gpus(std::string_view text);

struct AmdSmiVersion {
  std::string tool, library, rocm, amdgpu; // amdgpu: from the default table's banner only
};
// `amd-smi version` ("AMDSMI Tool: 23.4.2+505b858 | AMDSMI Library version: 24.2.0.0 | ROCm version: 6.1.0")
// or the banner of the default `amd-smi` table ("AMD-SMI 26.2.2+97f5574fe2  amdgpu version: 6.16.13 ...").
std::optional<AmdSmiVersion> amd_smi_version(std::string_view text);

// ---- KFD io_links --------------------------------------------------------------------------------------

// /sys/class/kfd/kfd/topology/nodes/N/io_links/M/properties.
struct KfdIoLink {
  std::optional<long long> type; // 2 = PCIe, 11 = XGMI (see kfd_io_link_type_name)
  std::optional<long long> node_from, node_to, weight;
  std::optional<long long> min_bandwidth, max_bandwidth, min_latency, max_latency; // MB/s, ns
  std::optional<long long> flags;
  bool pcie() const { return type == 2; }
  bool xgmi() const { return type == 11; }
};
KfdIoLink kfd_io_link_properties(std::string_view text);
// "PCIe", "XGMI", "HyperTransport", ...; "type N" for others.
std::string kfd_io_link_type_name(long long type);

// ---- packages and repositories -------------------------------------------------------------------------

struct RpmPackage {
  std::string name, version, release, arch; // arch empty when not printed
  std::string epoch;                        // when printed ("1:2.3-4" or NEVRA "name-1:2.3-4.x86_64")
  std::string evr() const;                  // "version-release" (with "epoch:" when known)
};
// `rpm -qa --queryformat '%{NAME} %{VERSION}-%{RELEASE}\n'` lines, or plain `rpm -qa` NEVRA lines
// ("rocm-core-6.2.0.60200-66.el9.x86_64"). Lines that are neither are skipped.
std::vector<RpmPackage> rpm_qa(std::string_view text);
// name -> "version-release" (the highest when a name is installed more than once, like kernel).
std::map<std::string, std::string> rpm_qa_versions(std::string_view text);

// ---- package relations (the dependency graph a purge is computed from) ----------------------------------

// One package of /var/lib/dpkg/status with its relations. `clauses`: Pre-Depends and Depends, one clause per
// comma, each the names of its alternatives (versions and :arch dropped); `provides`: virtual names.
struct DpkgRecord {
  std::string name, version;
  std::string maintainer; // "Debian ROCm Team <debian-ai@lists.debian.org>": who built it (its origin)
  std::string want;       // "install", "hold", "deinstall", "purge" (the selection; "hold": apt-mark hold)
  std::string flag;       // "ok", or "reinstreq" (broken: dpkg must reinstall it)
  std::string status;     // "installed", "config-files", "half-installed", ...
  std::vector<std::vector<std::string>> clauses;
  std::vector<std::string> provides;
  bool installed() const { return status == "installed"; }
  bool held() const { return want == "hold"; }
};
std::vector<DpkgRecord> dpkg_records(std::string_view text);
// parsers.hpp's dpkg_status and dpkg_depends of records read once (collect_packages wants both).
std::map<std::string, std::string> dpkg_installed_versions(const std::vector<DpkgRecord>& records);
std::map<std::string, std::vector<std::string>>
dpkg_installed_depends(const std::vector<DpkgRecord>& records);

// `apt-cache policy NAME...` (snapshot key apt-cache-policy): for each package, the hosts of the repositories
// its installed version is in ("deb.debian.org", "developer.download.nvidia.com"); none when only dpkg's
// status has it (no repository carries that version any more) or the source is not a URL.
std::map<std::string, std::vector<std::string>> apt_policy_sources(std::string_view text);

// /var/lib/apt/extended_states: the packages apt installed as dependencies ("Auto-Installed: 1").
std::vector<std::string> apt_auto_installed(std::string_view text);

// /etc/dnf/plugins/versionlock.list: the entries (one pattern a line: "name-epoch:version-release.arch",
// globs allowed; "!" entries exclude), comments and blanks skipped.
std::vector<std::string> dnf_versionlock(std::string_view text);
// The package name an entry locks: the part before the "-[epoch:]version-release" tail ("nvidia-driver"
// for "nvidia-driver-3:580.95.05-1.el9.*"); empty for an exclusion or an entry that is not one.
std::string versionlock_name(std::string_view entry);

// Output of `rpm -qa --queryformat '[%{NAME}\tP\t%{PROVIDES}\n][%{NAME}\tR\t%{REQUIRES}\n]'` (snapshot key
// rpm-provides): each package's provided and required capabilities (names only: "libc.so.6()(64bit)",
// "rocm-core"; versions dropped; rpmlib() and file requirements left out).
struct RpmRelations {
  std::vector<std::string> provides, requires_;
};
std::map<std::string, RpmRelations> rpm_relations(std::string_view text);

struct AptSource {
  std::string file;
  int line = 0;           // 1-based: the entry's line, or the first line of its deb822 stanza
  std::string type;       // "deb" / "deb-src"
  std::string uri, suite; // suite may be an exact path ending in '/'
  std::vector<std::string> components;
  // Options with one-line names, lower case: "arch", "signed-by", "trusted", "lang", ...; deb822 fields are
  // mapped (Architectures -> arch, Signed-By -> signed-by). An inline deb822 key keeps its first line.
  std::map<std::string, std::string> options;
  bool enabled = true; // false: "Enabled: no", or a one-line entry commented out ("# deb http://...")
  bool deb822 = false;
};
// One-line `.list` format: "deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] URI SUITE COMPONENT...".
std::vector<AptSource> apt_sources_list(std::string_view text, std::string_view file);
// deb822 `.sources`: stanzas of Types/URIs/Suites/Components/Signed-By/Enabled; one entry per type, URI and
// suite a stanza lists.
std::vector<AptSource> apt_sources_deb822(std::string_view text, std::string_view file);
// Either, by the file name (".sources" is deb822), else by the content.
std::vector<AptSource> apt_sources(std::string_view text, std::string_view file);

struct YumRepo {
  std::string file;
  int line = 0; // the "[id]" line
  std::string id, name;
  std::vector<std::string> baseurls; // baseurl may list several (spaces, commas, continuation lines)
  std::string mirrorlist, metalink;
  std::optional<bool> enabled; // absent: dnf's default (enabled)
  std::optional<bool> gpgcheck;
  std::vector<std::string> gpgkeys;
  std::map<std::string, std::string> values; // every key as read (lower case), values verbatim
  bool is_enabled() const { return enabled.value_or(true); }
};
// dnf/yum `.repo` files (INI). $releasever, $basearch and friends are kept verbatim.
std::vector<YumRepo> yum_repos(std::string_view text, std::string_view file);

// ---- DKMS, Secure Boot, kernel command line ------------------------------------------------------------

struct DkmsEntry {
  std::string module, version;
  std::string kernel, arch; // empty for "added" entries, which name no kernel
  std::string state;        // "added", "built", "installed", "installed-weak", ...
  std::string detail;       // what follows the state: "(Original modules exist)", "from 5.14.0-70"
};
struct DkmsStatus {
  std::vector<DkmsEntry> entries;
  std::vector<std::string> messages; // "Error! ..." / "WARNING! ..." lines that are no entry
};
// `dkms status`: the 3.x slash format "amdgpu/6.16.6-2255209.24.04, 6.17.0-5-generic, x86_64: installed
// (Original modules exist)" and the old comma format "amdgpu, 6.3.6, 5.15.0-91-generic, x86_64: installed".
DkmsStatus dkms_status(std::string_view text);

struct SecureBoot {
  enum class State { unknown, enabled, disabled, unsupported, no_efi } state = State::unknown;
  bool setup_mode = false;               // "Platform is in Setup Mode"
  bool shim_validation_disabled = false; // "SecureBoot validation is disabled in shim"
  std::string line;                      // the line that said it
};
// `mokutil --sb-state`: "SecureBoot enabled" / "disabled", "This system doesn't support Secure Boot",
// "EFI variables are not supported on this system".
SecureBoot mokutil_sb_state(std::string_view text);

// /proc/cmdline (or a GRUB_CMDLINE_LINUX value): space-separated, double quotes may enclose spaces.
KernelCmdline kernel_cmdline(std::string_view text);

// ---- shell profiles, /etc/environment, ld.so.conf ------------------------------------------------------

struct ShellAssignment {
  std::string file;
  int line = 0;
  std::string name;      // "PATH"
  std::string value;     // quotes removed, $VAR / ${...} / $(...) kept as written
  bool exported = false; // "export NAME=...", or an "export NAME" anywhere in the file; /etc/environment: all
  // For names ending in PATH or DIRS: the entries it adds, split at ':' outside ${...} and $(...), the
  // variable's own old value ($PATH, ${PATH}, ${PATH:+:${PATH}}) left out and noted in keeps_old.
  std::vector<std::string> prepends, appends; // before / after the old value; all of them when it replaces
  bool keeps_old = false;
  std::vector<std::string> path_entries() const; // prepends then appends
};
struct ShellSourced {
  std::string file;
  int line = 0;
  std::string path; // ". /etc/bash.bashrc", "source $HOME/.cargo/env": the argument as written
};
struct ShellProfile {
  std::vector<ShellAssignment> assignments; // in file order
  std::vector<ShellSourced> sourced;
};
// .bashrc, .profile, /etc/profile.d/*.sh: "export NAME=value", "NAME=value; export NAME", assignments after
// "&&", "then", "do"; "declare -x". One-command prefixes ("CUDA_VISIBLE_DEVICES=0 python x.py") are not
// assignments. Nothing is expanded.
ShellProfile shell_profile(std::string_view text, std::string_view file);
// /etc/environment (pam_env): NAME=value lines, "export " tolerated, nothing expanded: "$PATH" there is a
// literal entry (keeps_old stays false).
ShellProfile etc_environment(std::string_view text, std::string_view file);

struct LdSoEntry {
  std::string file;
  int line = 0;
  std::string path; // a directory, or for includes the pattern ("/etc/ld.so.conf.d/*.conf")
};
struct LdSoConf {
  std::vector<LdSoEntry> dirs, includes;
};
// /etc/ld.so.conf and /etc/ld.so.conf.d/*.conf: one directory per line, '#' comments, "include PATTERN..."
// lines ("hwcap" lines are skipped).
LdSoConf ld_so_conf(std::string_view text, std::string_view file);

// ---- After the install: modinfo, amdgpu RAS counters ----------------------------------------------------

// `modinfo nvidia`: its fields (filename, version, license, signer, ...); a repeated field keeps its first
// value.
std::map<std::string, std::string> modinfo(std::string_view text);

// <device>/ras/<block>_err_count: "ue: 0\nce: 2" (uncorrectable, corrected). Empty when neither is there.
struct AmdgpuRasCount {
  long long ue = 0, ce = 0;
};
std::optional<AmdgpuRasCount> amdgpu_ras_count(std::string_view text);

// <device>/resource: the size of BAR `index` (its line, "0x<start> 0x<end> 0x<flags>"); empty when the line
// is missing, unused (all zero) or malformed.
std::optional<std::uint64_t> pci_resource_size(std::string_view text, std::size_t index);
// <device>/resourceN_resize: the largest size the Resizable BAR offers (a hex bitmask, bit n = 2^n MiB);
// empty on garbage or no bit set.
std::optional<std::uint64_t> pci_rebar_largest(std::string_view text);
// <device>/ras/gpu_vram_bad_pages (amdgpu_ras.c): one "0x00000001 : 0x00001000 : R" line per page, flag R
// (retired), P (pending) or F (failed to retire); other lines are not counted. `source` is left empty.
VramBadPages amdgpu_bad_pages(std::string_view text);

// ---- accounts: /etc/passwd, /etc/login.defs -----------------------------------------------------------

// One line of /etc/passwd (passwd(5)): name:password:uid:gid:gecos:home:shell.
struct PasswdEntry {
  std::string name;
  std::optional<long long> uid; // empty when the field is not a number
  std::string gecos, home, shell;
  // The GECOS field's first part, the account's full name ("Ada Lovelace,Room 4,," -> "Ada Lovelace").
  std::string full_name() const;
};
// The lines with seven fields and a name; the others are skipped.
std::vector<PasswdEntry> passwd(std::string_view text);

// login.defs' UID_MIN and UID_MAX, useradd's range of ordinary accounts (login.defs(5)): 1000 and 60000 when
// unset or unreadable.
std::pair<long long, long long> login_defs_uid_range(std::string_view text);

} // namespace gpudoctor::parse
