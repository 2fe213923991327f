// Collectors: each reads one area of the machine through a SystemView and fills its part of Facts.
// They never judge (checks do) and never touch the OS directly; a failure becomes a fact or a collector
// error.
#pragma once

#include "facts/amd_facts.hpp"
#include "facts/boot_facts.hpp"
#include "facts/container_facts.hpp"
#include "facts/env_facts.hpp"
#include "facts/gpu_facts.hpp"
#include "facts/health_facts.hpp"
#include "facts/history_facts.hpp"
#include "facts/host_facts.hpp"
#include "facts/nvidia_facts.hpp"
#include "facts/os_facts.hpp"
#include "facts/package_facts.hpp"
#include "facts/python_facts.hpp"
#include "facts/tool_facts.hpp"
#include "facts/toolkit_facts.hpp"
#include "knowledge/knowledge.hpp"
#include "system/commands_recorded.hpp"
#include "system/history_store.hpp"
#include "system/system_view.hpp"
#include "system/view_lookup.hpp" // find_on_path, final_link_target, user_home

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace gpudoctor {

struct Facts; // the whole record: only collect_all and collect_host need it (facts/facts.hpp)
struct Stacks;

struct CollectOptions {
  std::chrono::milliseconds tool_timeout{5000};   // vendor tools (nvidia-smi, rocminfo, nvcc)
  std::chrono::milliseconds python_timeout{5000}; // a python3 printing its sys.path
  std::vector<std::string> extra_pythons;         // --python
  bool online = false;                            // --online: fetch the configured vendor repositories
  std::chrono::milliseconds http_timeout{5000};   // each fetch of --online
  // Called once the python3 interpreters are known, from a collector's thread, while the others still run:
  // the framework probe starts there (importing torch takes seconds; it need not wait for the rest).
  std::function<void(const PythonFacts&)> python_known;
  // The stack tables (fixes/stacks.yaml): when given, the fix inventory is taken into Facts::inventory
  // (fix, migrate, bundle). `check` gives none: the inventory reads what no check needs.
  const Stacks* stacks = nullptr;
  // The history whose newest report is the previous reading (check --history-dir; root's by default).
  std::string history_dir = history::k_system_dir;
};

void collect_os(SystemView& view, OsFacts& os);
void collect_packages(SystemView& view, PackageFacts& packages);
// The largest machines hold 16-20 GPUs; a snapshot declaring more than this is hostile or broken, and every
// GPU costs reads and checks (docs/security.md, "Limits").
inline constexpr std::size_t k_max_gpus = 256;
// Returns how many GPU functions beyond k_max_gpus were left out (said in Facts::collector_errors).
std::size_t collect_pci_gpus(SystemView& view, std::vector<Gpu>& gpus);
void collect_modules(SystemView& view, KernelModules& modules);
void collect_nvidia(SystemView& view, const CollectOptions& opt, const PackageFacts& packages,
                    NvidiaFacts& nvidia, std::vector<ToolRun>& tools);
// rocminfo runs only where /dev/kfd exists or `amd_gpu` (an AMD GPU on the PCI bus): elsewhere it can only
// fail to find one (70 ms, and it runs lsmod itself).
void collect_amd(SystemView& view, const CollectOptions& opt, bool amd_gpu, AmdFacts& amd,
                 std::vector<ToolRun>& tools);
void collect_toolkits(SystemView& view, const CollectOptions& opt, const PackageFacts& packages,
                      ToolkitFacts& toolkits, std::vector<ToolRun>& tools);
void collect_env(SystemView& view, EnvFacts& env);
// NCCL's configuration files ($NCCL_CONF_FILE or <home>/.nccl.conf, then /etc/nccl.conf) into env.nccl_conf.
void collect_nccl_conf(SystemView& view, const std::map<std::string, std::string>& environment,
                       const std::string& home, EnvFacts& env);
// Names of the network interfaces and of the InfiniBand/RoCE devices.
void collect_network(SystemView& view, NetworkFacts& net);
// Each interface's sysfs markers and `ip -o addr show`'s addresses (NetworkFacts::details).
void collect_net_interfaces(SystemView& view, const CollectOptions& opt, NetworkFacts& net);
// The io_links of every KFD node (run after collect_amd, before link_facts copies the nodes to the GPUs).
void collect_kfd_links(SystemView& view, AmdFacts& amd);
void collect_permissions(SystemView& view, const std::vector<Gpu>& gpus, PermissionFacts& perms);
void collect_python(SystemView& view, const CollectOptions& opt, PythonFacts& python,
                    std::vector<ToolRun>& tools);

// GPU vendor repositories: apt sources (one-line and deb822), dnf .repo files, pip index settings.
void collect_repos(SystemView& view, RepoFacts& repos);
// `dkms status` and `mokutil --sb-state`.
void collect_boot(SystemView& view, const CollectOptions& opt, BootFacts& boot, std::vector<ToolRun>& tools);
// GPU-stack folders named by PATH, LD_LIBRARY_PATH, ld.so.conf(.d) and shell profiles; what nvcc, CUDA_HOME,
// /usr/local/cuda, /opt/rocm and ROCM_PATH point at. Needs the environment and toolkit facts.
void collect_stack_paths(SystemView& view, const EnvFacts& env, const ToolkitFacts& toolkits, PathFacts& out);
// Docker (`docker info`, daemon.json) and the NVIDIA Container Toolkit's configuration.
void collect_containers(SystemView& view, const CollectOptions& opt, const PackageFacts& packages,
                        ContainerFacts& out, std::vector<ToolRun>& tools);
// The *.dist-info / *.egg-info names of each interpreter's site folders.
void collect_python_distributions(SystemView& view, PythonFacts& python);
// --online on a live machine: fetches each configured vendor repository and wheel index (util/http).
void probe_repos(const CollectOptions& opt, const OsFacts& os, RepoFacts& repos);

// After the install: the kernel log (dmesg or the journal, this boot and the previous one) as GPU events; the
// PCIe ports above each GPU and amdgpu's RAS counters; the amdgpu firmware folder when the log names a
// missing file; NVSwitch functions, Fabric Manager packages and service; `modinfo nvidia` when no module is
// loaded.
void collect_kernel_log(SystemView& view, const CollectOptions& opt, KernelLogFacts& log,
                        std::vector<ToolRun>& tools);
void collect_gpu_health(SystemView& view, std::vector<Gpu>& gpus);
void collect_firmware_listing(SystemView& view, const KernelLogFacts& log, FirmwareListing& out);
void collect_fabric(SystemView& view, const Knowledge& kb, const CollectOptions& opt,
                    const PackageFacts& packages, const NvidiaFacts& nvidia, FabricFacts& fabric,
                    std::vector<ToolRun>& tools);
void collect_nvidia_modinfo(SystemView& view, const CollectOptions& opt, const std::vector<Gpu>& gpus,
                            NvidiaFacts& nvidia, std::vector<ToolRun>& tools);
// Issue 12: the compiled extensions beside PyTorch, torch's pins and the nvidia-* wheels' libraries; the
// layer around the GPUs (WSL2, /dev/shm, memlock, RDMA ports, the loader's folders). Run after the others.
void collect_python_extensions(SystemView& view, const Knowledge& kb, PythonFacts& python);
void collect_host(SystemView& view, Facts& facts);
// This boot's id and the previous reading of the counters: the newest report kept in `dir`
// (collect/history_previous.cpp).
void collect_history(SystemView& view, const std::string& dir, HistoryFacts& out);

// Runs every collector (commands in parallel), then link_facts, and returns the facts.
Facts collect_all(SystemView& view, const Knowledge& kb, const CollectOptions& opt);
// The same, with the knowledge tables asked for only where a collector needs them (the last ones, after the
// parallel collectors): `check` loads them while the first collectors run. A null answer (they could not be
// loaded; the caller says why) leaves out the collectors that need them.
using KnowledgeWhenReady = std::function<const Knowledge*()>;
Facts collect_all(SystemView& view, const KnowledgeWhenReady& knowledge, const CollectOptions& opt);

// Shared helpers.
// A ToolRun from a command result, with `failure` left for the caller.
ToolRun tool_run_of(const CommandResult& r, const CommandSpec& spec);
std::string file_source(const std::string& path, int line = 0);
// A system tool (dkms, mokutil, modinfo): its name when the PATH has it (run_process finds it there, past
// what root cannot trust), else from /usr/sbin, /sbin or /usr/bin, which a user's PATH often lacks; the bare
// name when none has it (a replay looks commands up by key).
std::string sbin_program(SystemView& view, const std::string& name);
// A command of system/commands_recorded's table, its program found as the row says.
CommandSpec keyed_command_spec(SystemView& view, KeyedCommand id, std::chrono::milliseconds timeout);
// The CUDA toolkit version of a folder (version.json, version.txt, NVIDIA wheels, its cuda-X.Y name).
Fact<std::string> cuda_version_at(SystemView& view, const std::string& dir);
// The ROCm version of a folder (.info/version, TheRock's core/.info/version).
Fact<std::string> rocm_version_at(SystemView& view, const std::string& dir);

} // namespace gpudoctor
