// Facts: everything the collectors found, typed, each with where it came from.
// Collectors fill these; checks only read them. "Could not read" is an empty optional, never 0.
#pragma once

#include "facts/inventory.hpp"
#include "facts/probe_facts.hpp"
#include "system/system_view.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// A value with its provenance: "file /proc/driver/nvidia/version:1", "cmd nvidia-smi-xml", "env CUDA_HOME".
template <class T> struct Fact {
  std::optional<T> value;
  std::string source;

  Fact() = default;
  Fact(T v, std::string src) : value(std::move(v)), source(std::move(src)) {}
  explicit operator bool() const { return value.has_value(); }
  const T& operator*() const { return *value; }
  const T* operator->() const { return &*value; }
};

struct OsFacts {
  Fact<std::string> id;         // os-release ID: ubuntu, debian, rhel, ...
  Fact<std::string> version_id; // "24.04", "12"
  Fact<std::string> codename;   // VERSION_CODENAME: noble, bookworm
  Fact<std::string> pretty_name;
  std::vector<std::string> id_like;
  Fact<std::string> kernel_release;
  Fact<std::string> kernel_cmdline;
  Fact<std::string> architecture; // from the kernel: x86_64, aarch64
  bool in_container = false;
  std::string container_evidence;
  bool wsl = false;
};

enum class Vendor { nvidia, amd, other };
std::string vendor_name(Vendor v);

// The model as the knowledge tables know it.
struct GpuModel {
  std::string name;
  std::string arch;                            // "sm_90", "gfx1100"
  std::string family;                          // "Hopper", "RDNA3"
  std::optional<long long> gfx_target_version; // AMD: KFD encoding, 110000
  std::optional<std::uint64_t> vram_bytes;
  std::optional<double> memory_bandwidth_floor_gbps; // a healthy card's copy bandwidth is above this
  std::optional<double> host_bandwidth_floor_gbps;   // host link floor where PCIe sysfs does not tell it
  std::string source; // where the row came from (knowledge file and its source key)
  bool uncertain = false;
};

// A link of a KFD topology node (nodes/N/io_links/M/properties).
struct KfdLink {
  std::optional<long long> type; // 2 = PCIe, 11 = XGMI
  std::optional<long long> node_from, node_to;
  std::string source;
};

struct KfdNode {
  int node_id = -1;
  std::optional<long long> gfx_target_version;
  std::optional<long long> vendor_id, device_id;
  std::optional<long long> location_id; // PCI bus/device/function packed as (bus << 8) | devfn
  std::optional<long long> domain;
  std::optional<int> drm_render_minor;
  std::optional<long long> simd_count;
  std::optional<long long> local_mem_size;
  std::string source;
  std::vector<KfdLink> io_links;
  bool io_links_read = false; // the io_links folder was listed
};

// One amdgpu RAS counter file (<device>/ras/<block>_err_count: "ue: N" uncorrectable, "ce: N" corrected).
struct RasCount {
  std::string block; // umc, gfx, sdma, mmhub, xgmi_wafl, ...
  long long ue = 0, ce = 0;
  std::string source;
};

struct Gpu {
  std::string bdf; // 0000:01:00.0
  Vendor vendor = Vendor::other;
  unsigned vendor_id = 0, device_id = 0;
  std::optional<unsigned> subsystem_vendor, subsystem_device, revision;
  unsigned pci_class = 0;
  Fact<std::string> driver; // bound kernel driver; empty optional: none bound
  std::optional<int> numa_node;
  std::optional<std::string> link_speed_current, link_speed_max; // "16.0 GT/s PCIe"
  std::optional<int> link_width_current, link_width_max;
  std::optional<std::string> pci_ids_name;       // from the system's pci.ids
  std::optional<GpuModel> model;                 // from the knowledge tables
  std::optional<KfdNode> kfd;                    // the KFD topology node of this GPU (AMD)
  std::optional<std::string> kfd_target;         // gfx target named by the KFD node's gfx_target_version
  std::optional<std::string> render_node;        // /dev/dri/renderD128
  std::optional<std::uint64_t> vram_bytes_sysfs; // amdgpu mem_info_vram_total
  std::vector<std::string> upstream_ports;       // PCIe ports above it, nearest last (sysfs device path)
  std::vector<struct RasCount> ras;              // amdgpu RAS error counters, per IP block
  int virtual_functions = 0;                     // its SR-IOV functions (physfn links to it): vGPU, MxGPU
  std::string source;                            // the sysfs folder
  std::string display_name() const;              // best name: model, pci.ids, or ids
  std::string arch() const; // gfx/sm target: the KFD's, else the model's; "" when unknown
  std::optional<long long> gfx_target_version() const; // the KFD's, else the model's
  std::string subject() const;                         // "gpu0 (0000:01:00.0)"
  int index = 0;                                       // position among GPUs, in bus order
};

// A run of a vendor tool, summarised for checks (tool.timeout, tool.failed).
struct ToolRun {
  std::string key;
  std::string program;
  bool found = false;
  bool timed_out = false;
  bool unkillable = false; // it, or a process it started, was still there after SIGKILL (left running)
  std::optional<int> exit_code;
  long duration_ms = 0;
  long timeout_ms = 0;
  std::string failure; // a message that says something, e.g. "ROCk module is NOT loaded"
  std::vector<std::string> evidence_lines;
};

// A program root did not run as itself, and the command it was for (SystemView::untrusted_programs).
struct UntrustedRun {
  std::string key;
  UntrustedProgram program;
};

// A GPU's memory, clock and fabric health as `nvidia-smi -q` (text or -x) reports it; empty: not reported
// (N/A).
struct NvidiaGpuHealth {
  std::optional<std::string> ecc_mode; // current: "Enabled", "Disabled"
  // Uncorrectable ECC errors (DRAM + SRAM, or the older double-bit total): volatile counts since the last
  // driver load or GPU reset, aggregate ones over the GPU's life.
  std::optional<long long> volatile_uncorrectable, aggregate_uncorrectable;
  std::optional<long long> retired_sbe, retired_dbe; // retired pages (before Ampere)
  std::optional<bool> retirement_pending;            // a page waits for the next reset to be retired
  std::optional<long long> remapped_correctable, remapped_uncorrectable;
  std::optional<bool> remap_pending, remap_failure; // row remapping (Ampere and later)
  std::optional<bool> reset_required;               // GPU Reset Status: Reset Required
  std::optional<std::string> recovery_action;       // GPU Recovery Action: "None", "Reset", "Reboot", ...
  std::vector<std::string> clocks_held_by; // active: "HW Slowdown", "HW Thermal Slowdown", "HW Power Brake
                                           // Slowdown", "SW Thermal Slowdown"
  std::optional<std::string> fabric_state, fabric_status; // "Completed", "Success"; "N/A" without NVSwitch
};

struct NvidiaSmiGpu {
  std::string name, bus_id, uuid;
  std::optional<long long> memory_total_mib;
  std::string performance_state;      // "P0" (busy) .. "P8" (idle); empty when not reported
  std::optional<int> gpu_utilization; // percent
  NvidiaGpuHealth health;
};

struct NvidiaFacts {
  Fact<std::string> kernel_module_version; // /proc/driver/nvidia/version or /sys/module/nvidia/version
  bool open_kernel_module = false;
  Fact<std::string> smi_driver_version;   // nvidia-smi: user-space driver
  Fact<std::string> smi_cuda_version;     // highest CUDA the driver supports
  Fact<std::string> nvml_library_version; // from a "Driver/library version mismatch" failure
  bool smi_mismatch = false;
  bool smi_no_driver = false; // "couldn't communicate with the NVIDIA driver"
  std::vector<NvidiaSmiGpu> smi_gpus;
  std::vector<std::string> libnvidia_ml_versions; // versions of libnvidia-ml.so.X found on disk
  // `modinfo nvidia`: the installed module, loaded or not (license "NVIDIA" = proprietary, "Dual MIT/GPL" =
  // open). Asked only when an NVIDIA GPU is present and no module is loaded.
  Fact<std::string> modinfo_filename, modinfo_version, modinfo_license, modinfo_signer;
};

struct RocmAgent {
  std::string name;           // gfx1100
  std::string marketing_name; // AMD Radeon RX 7900 XTX
  std::string device_type;    // GPU / CPU
  std::optional<int> node;
};

struct AmdFacts {
  bool kfd_device = false;                 // /dev/kfd exists
  bool kfd_topology = false;               // /sys/class/kfd/kfd/topology/nodes readable
  std::vector<KfdNode> kfd_nodes;          // every node, CPUs too
  Fact<std::string> amdgpu_module_version; // /sys/module/amdgpu/version (DKMS builds only)
  bool rocminfo_ok = false;
  std::vector<RocmAgent> rocminfo_agents;
  Fact<std::string> rocminfo_failure; // ROCk not loaded, permission denied, ...
  Fact<std::string> rocminfo_runtime_version;
};

struct KernelModules {
  std::map<std::string, std::string> loaded; // name -> version ("" when unknown); from /proc/modules
  std::string source;
  bool readable = false;
  bool has(const std::string& name) const { return loaded.count(name) > 0; }
};

struct CudaInstall {
  std::string path;          // /usr/local/cuda-13.0
  Fact<std::string> version; // 13.0.88
};

struct RocmInstall {
  std::string path; // /opt/rocm-6.2.0, or "dpkg:hipcc" for a distribution package
  Fact<std::string> version;
  bool distribution_package = false;
  // Distribution ROCm libraries only (no ROCm tools): the installed packages outside ROCm that need them,
  // such as libucx0 (OpenMPI) needing libamdhip64-5 on Ubuntu 24.04. Empty: installed for themselves.
  std::vector<std::string> required_by;
};

struct ToolkitFacts {
  std::vector<CudaInstall> cuda;
  Fact<std::string> cuda_default_link; // where /usr/local/cuda points
  Fact<std::string> nvcc_path;         // nvcc first on PATH
  Fact<std::string> nvcc_version;      // "13.0" from nvcc --version
  std::vector<RocmInstall> rocm;
  Fact<std::string> rocm_default_link; // where /opt/rocm points
  Fact<std::string> hipcc_path;
  Fact<std::string> cudnn_version;
  Fact<std::string> nccl_version;
  Fact<std::string> rccl_version;
};

// A NAME=value line of an NCCL configuration file.
struct ConfSetting {
  std::string name, value; // as NCCL reads them: the name is everything before the first '=', untrimmed
  int line = 0;
};

// An NCCL configuration file, in the order NCCL reads them: $NCCL_CONF_FILE (2.23+) or ~/.nccl.conf, then
// /etc/nccl.conf. NCCL never overwrites a variable that is set, so the environment wins, then earlier files.
struct NcclConfFile {
  std::string path;
  std::string role; // "NCCL_CONF_FILE", "user", "system"
  std::vector<ConfSetting> settings;
};

struct EnvFacts {
  std::map<std::string, std::string> gpu_vars; // GPU-related variables that are set
  std::vector<std::string> path_entries;
  std::vector<std::string> ld_library_path_entries;
  std::map<std::string, std::string> all; // the whole environment (redacted in bundles)
  std::vector<NcclConfFile> nccl_conf;    // the NCCL configuration files that exist
};

// Network interfaces and RDMA devices, by name.
struct NetworkFacts {
  std::optional<std::vector<std::string>> interfaces; // /sys/class/net; empty optional: not readable
  std::vector<std::string> ib_devices;                // /sys/class/infiniband (IB and RoCE HCAs)
  std::string interfaces_source, ib_source;
};

struct DeviceNode {
  std::string path;
  std::optional<FileStat> stat; // empty: missing
  bool accessible = false;      // the user can open it read-write (from mode, owner, group, identity)
  std::string why_not;
};

struct PermissionFacts {
  Identity identity;
  std::optional<DeviceNode> kfd;
  std::vector<DeviceNode> render_nodes;
  std::vector<DeviceNode> nvidia_nodes; // /dev/nvidiactl, /dev/nvidia-uvm, /dev/nvidiaN
};

struct TorchBuild {
  std::string version;             // 2.6.0+cu124
  std::optional<std::string> cuda; // "12.4"; empty on CPU and ROCm builds
  std::optional<std::string> hip;  // "6.2.41133"
  std::string location;            // .../site-packages/torch
  std::string source;              // the version.py read
  std::string installer;           // torch-*.dist-info/INSTALLER: "pip", "uv", "conda"; empty when none
  bool cpu_only() const { return !cuda && !hip; }
};

// An installed Python distribution: one *.dist-info / *.egg-info folder of a site folder.
struct PythonDist {
  std::string name;    // normalised: lower case, '_' and '.' as '-' ("nvidia-cublas-cu12")
  std::string version; // "12.6.4.1", "2.8.0.dev20250529+rocm6.4"
  std::string folder;  // the site folder it is in
  std::string entry;   // its *.dist-info / *.egg-info folder name as on disk
};

// A compiled extension beside PyTorch (flash-attn, xformers, bitsandbytes, ...), as its files say it was
// built.
struct CompiledExtension {
  std::string dist, version, folder;       // normalised name, version (with its label), site folder
  std::vector<std::string> requires_torch; // its METADATA's Requires-Dist specs of torch ("==2.5.1")
  struct Library {
    std::string path;
    std::optional<std::vector<std::string>> needed; // DT_NEEDED (snapshot key elf-needed@<path>)
  };
  std::vector<Library> libraries; // the shared libraries in its package folders
};

struct PythonEnv {
  std::string role;        // "PATH", "system", "VIRTUAL_ENV", "CONDA_PREFIX", "--python"
  std::string executable;  // as found
  std::string command_key; // the snapshot key of the command that asked it for sys.path
  std::string via;         // how it was found when not directly, e.g. through a pyenv shim
  Fact<std::string> version;
  std::vector<std::string> sys_path;
  std::string error; // could not run it
  std::optional<TorchBuild> torch;
  std::vector<PythonDist> distributions; // of the site folders on sys_path (site-packages, dist-packages)
  // Issue 12: compiled extensions, torch's own Requires-Dist pins (name -> spec), and the libraries the
  // nvidia-* wheels put in <site>/nvidia/*/lib (folder -> file names).
  std::vector<CompiledExtension> extensions;
  std::map<std::string, std::string> torch_requires;
  std::map<std::string, std::vector<std::string>> wheel_libs;
};

struct PythonFacts {
  std::vector<PythonEnv> envs; // the first is the one in use
};

// Installed distribution packages (dpkg status, or `rpm -qa`).
struct PackageFacts {
  bool readable = false;
  std::string manager; // "dpkg" or "rpm"
  std::string source;
  // Not read for a bound (system/input_limits.hpp): why ("... lists 150000 packages, more than ..."); the
  // checks that need the package list skip with it, and no plan is made without it.
  std::string over_limit;
  std::map<std::string, std::string> installed;            // name -> version
  std::map<std::string, std::vector<std::string>> depends; // name -> what it depends on (dpkg only)
  std::optional<std::string> version_of(const std::string& name) const {
    auto it = installed.find(name);
    if (it == installed.end()) return std::nullopt;
    return it->second;
  }
};

// A package source of a GPU vendor, or a PyTorch wheel index, configured on the machine.
struct RepoSource {
  std::string vendor; // "amd", "nvidia", "pytorch" (knowledge vendor_repos)
  std::string kind;   // "apt", "dnf", "pip"
  std::string uri;    // apt URI, dnf baseurl, pip index URL, as written
  std::string suite;  // apt suite ("jammy", or an exact path ending in '/'); empty otherwise
  std::string origin; // "/etc/apt/sources.list.d/rocm.list:1", "env PIP_EXTRA_INDEX_URL"
  bool enabled = true;
  bool release_specific = true; // the repository publishes per OS release (knowledge vendor_repos)
};

// What fetching one repository URL gave (`check --online`).
struct RepoProbe {
  std::string url;
  std::string origin;   // the RepoSource's origin
  bool reached = false; // an HTTP answer below 400
  std::optional<long> http_status;
  std::string error; // transport error: DNS, proxy, TLS, refused, time limit
  long duration_ms = 0;
};

struct RepoFacts {
  std::vector<RepoSource> sources;
  std::vector<std::string> files;    // source files read (apt, dnf, pip)
  Fact<std::string> ubuntu_codename; // os-release UBUNTU_CODENAME (Mint, Pop!_OS name their Ubuntu base)
  bool online = false;               // the probes ran (check --online on a live machine)
  std::vector<RepoProbe> probes;
};

struct DkmsModule {
  std::string module, version, kernel, arch;
  std::string state;  // "added", "built", "installed", ...
  std::string detail; // "(Original modules exist)"
};

struct BootFacts {
  bool dkms_ran = false; // `dkms status` was found and answered
  std::vector<DkmsModule> dkms;
  std::vector<std::string> dkms_messages; // "Error! ..." lines
  Fact<std::string> secure_boot; // "enabled", "disabled", "unsupported", "no-efi" (mokutil --sb-state)
  std::string secure_boot_line;  // the line that said it
  bool shim_validation_disabled = false;
};

// A folder a setting adds to a search path, when it belongs to a GPU stack (CUDA, ROCm, ...).
struct PathSetting {
  std::string variable;         // "PATH", "LD_LIBRARY_PATH", "ld.so.conf", "CUDA_HOME", ...
  std::string entry;            // as written: "$HOME/rocm/bin", "/opt/rocm-5.7.0/lib"
  std::string resolved;         // absolute, $HOME and earlier assignments expanded; empty if unknown
  std::optional<bool> exists;   // a folder is there; empty when not resolved
  Vendor stack = Vendor::other; // whose stack the path names
  std::string origin;           // "env PATH", "/home/ada/.bashrc:12", "/etc/ld.so.conf.d/rocm.conf:1"
};

// Something that names the CUDA or ROCm in use: nvcc on PATH, CUDA_HOME, /usr/local/cuda, ROCM_PATH, ...
struct StackPointer {
  std::string what;     // "nvcc on PATH", "CUDA_HOME", "/usr/local/cuda", "ROCM_PATH", ...
  std::string path;     // as named
  std::string resolved; // links followed
  bool exists = false;
  Fact<std::string> version; // of the toolkit there
};

struct PathFacts {
  std::vector<PathSetting> settings; // GPU-stack entries of env, ld.so.conf(.d) and shell profiles
  std::vector<std::string> files;    // profiles and ld.so.conf files read
  std::vector<std::string> not_read; // profiles left out for a bound, each with why (their checks skip)
  std::vector<StackPointer> cuda, rocm;
};

struct ContainerFacts {
  bool docker_installed = false; // docker on PATH, or a docker package
  std::string docker_evidence;
  bool docker_info_ok = false;       // `docker info` answered (the daemon runs and we may ask it)
  std::string docker_info_error;     // why not: "permission denied while trying to connect ..."
  std::vector<std::string> runtimes; // docker info Runtimes
  std::string default_runtime;
  std::vector<std::string> daemon_json_runtimes; // "runtimes" of /etc/docker/daemon.json (rootless too)
  std::string daemon_json_source;
  bool nvidia_toolkit_config = false; // /etc/nvidia-container-runtime/config.toml exists
};

// --- After the install (issue 13): the kernel log, GPU health, the NVSwitch fabric
// ---------------------------

// What a kernel-log line says about a GPU (parse/kernel_log.hpp classifies the lines).
enum class KernelEventKind {
  xid,                  // NVRM: Xid (PCI:...): <code>, ...
  sxid,                 // nvidia-nvswitchN: SXid (PCI:...): <code>, Fatal|Non-fatal, ...
  fallen_off_bus,       // NVRM: ... has fallen off the bus
  init_failed,          // NVRM: RmInitAdapter failed
  probe_failed,         // <driver>: probe of <bdf> failed with error <n>; the NVIDIA probe routine failed
  open_module_required, // NVRM: ... requires use of the NVIDIA open kernel modules
  gsp_error,            // NVRM: GSP heartbeat / RPC timeouts, GSP init failures
  reset_required,       // NVRM: ... GPU reset required
  firmware_missing, // Direct firmware load for amdgpu/... (or nvidia/...) failed; NVRM: no GSP firmware image
  ring_timeout,     // amdgpu: ring <name> timeout
  reset_begin,      // amdgpu: GPU reset begin!
  reset_succeeded,  // amdgpu: GPU reset(N) succeeded
  reset_failed,     // amdgpu: GPU reset failed, GPU Recovery Failed, ASIC reset failed
  mes_failure,      // amdgpu: MES failed to respond / might be in unrecoverable state
  init_fatal,       // amdgpu: Fatal error during GPU init
  pcie_aer,         // AER: PCIe errors reported by a port or device
};
std::string kernel_event_name(KernelEventKind k);

// The lines of one kind, code, PCI address and detail, counted: the log is never kept whole.
struct KernelEvent {
  KernelEventKind kind = KernelEventKind::xid;
  std::optional<int> code; // Xid, SXid
  std::string pci;         // the PCI address the line names, as 0000:01:00.0; "" when it names none
  std::string reporter;    // the device that printed it, when another (the port of an AER line)
  std::string detail;      // Xid text, firmware file, ring name, AER severity, "GPU6" of NVRM
  std::string process;     // "pid 1896, python3" of the first Xid line
  int boot = 0;            // 0: this boot, -1: the previous one
  std::size_t count = 0;
  std::string first_time, last_time; // as the log prints them
  bool boot_relative = false;        // the times are seconds since boot
  std::string first_line, last_line; // the lines (at most 300 characters each), for evidence
};

struct KernelLogFacts {
  bool read = false;          // this boot's messages were read
  std::string source;         // "cmd dmesg"
  std::string reader;         // "dmesg" or "journalctl"
  std::string why_not;        // why not, and how to get the log
  bool previous_read = false; // the previous boot's messages (journal-kernel-previous) were read
  bool truncated = false;     // longer than what was kept: the last 4 MiB
  std::size_t records = 0;    // messages read, both boots
  std::vector<KernelEvent> events;
  std::size_t events_dropped = 0; // groups over the cap
};

// An NVSwitch PCI function (NVIDIA, class 0x0680, a device id of knowledge nvswitch_devices).
struct NvSwitchFunction {
  std::string bdf;
  unsigned device_id = 0;
  std::string name;
  int generation = 0;
  Fact<std::string> driver; // bound kernel driver (nvidia-nvswitch is part of nvidia.ko)
};

struct FabricFacts {
  std::vector<NvSwitchFunction> nvswitches;
  Fact<std::string> manager_package, manager_version; // nvidia-fabricmanager[-<branch>] from dpkg/rpm
  Fact<std::string> subnet_manager_version;           // nvlsm
  bool service_checked = false;                       // systemctl-fabricmanager ran
  Fact<std::string> service_state;                    // "active", "inactive", "failed", ...
};

// The amdgpu firmware folder, listed when the kernel log names a firmware file amdgpu could not load.
struct FirmwareListing {
  bool listed = false;
  std::string dir; // /lib/firmware/amdgpu
  std::vector<std::string> files;
};

// ---- The layer around the GPUs (issue 12): WSL2, /dev/shm, memlock, RDMA ports, the loader's folders
// -------
struct IbPort {
  std::string device; // mlx5_0
  int port = 0;
  std::string state;      // ACTIVE, DOWN, INIT, ARMED (the word of "4: ACTIVE")
  std::string link_layer; // InfiniBand, Ethernet (RoCE)
  std::string source;
};

// A folder the dynamic loader searches: LD_LIBRARY_PATH entries first, then ld.so.conf's, in that order.
struct LoaderDir {
  std::string dir;
  std::string origin;                            // "env LD_LIBRARY_PATH", "/etc/ld.so.conf.d/cuda.conf:1"
  std::optional<std::vector<std::string>> files; // its listing; empty optional: not read or not a folder
};

struct HostFacts {
  std::string wsl_evidence;                         // why this is WSL2 (the kernel release); empty: not WSL
  std::optional<std::vector<std::string>> wsl_libs; // /usr/lib/wsl/lib, the libraries Windows provides
  std::optional<FileStat> dxg;                      // /dev/dxg, the GPU paravirtualisation device
  std::vector<std::string> wsl_shadows;             // a Linux driver installed inside the distribution
  std::optional<std::uint64_t> shm_bytes;           // size of /dev/shm (df-shm), read in containers
  std::string shm_source;
  std::optional<std::string> memlock_soft, memlock_hard; // "unlimited" or bytes (/proc/self/limits)
  std::string memlock_source;
  std::vector<IbPort> ib_ports;
  std::vector<LoaderDir> loader_dirs;
};

struct Facts {
  OsFacts os;
  PackageFacts packages;
  std::vector<Gpu> gpus;
  KernelModules modules;
  NvidiaFacts nvidia;
  AmdFacts amd;
  ToolkitFacts toolkits;
  EnvFacts env;
  NetworkFacts network;
  PermissionFacts permissions;
  PythonFacts python;
  RepoFacts repos;
  BootFacts boot;
  PathFacts stack_paths; // not `paths`: that is the namespace of machine paths
  ContainerFacts containers;
  KernelLogFacts kernel_log;
  FabricFacts fabric;
  FirmwareListing firmware;
  HostFacts host; // issue 12
  std::vector<ToolRun> tools;
  // As root: the programs gpudoctor did not run as root (docs/security.md, "Executing as root"), by path.
  std::vector<UntrustedRun> untrusted;
  ProbeFacts probes; // only with --probes, or replayed from a snapshot that holds probe outputs
  std::string hostname;
  std::vector<std::string> collector_errors; // a collector that failed; the run goes on
  // The fix inventory: taken only for fix, migrate and bundle (CollectOptions::stacks), absent for check.
  std::optional<Inventory> inventory;

  std::size_t count(Vendor v) const;
};

} // namespace gpudoctor
