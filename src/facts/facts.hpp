// Facts: everything the collectors found, typed, each with where it came from.
// Collectors fill these; checks only read them. "Could not read" is an empty optional, never 0. Each area's
// types have their own header, so that code which needs one area does not rebuild when another changes.
#pragma once

#include "facts/amd_facts.hpp"
#include "facts/boot_facts.hpp"
#include "facts/container_facts.hpp"
#include "facts/env_facts.hpp"
#include "facts/fact.hpp"
#include "facts/gpu_facts.hpp"
#include "facts/health_facts.hpp"
#include "facts/history_facts.hpp"
#include "facts/host_facts.hpp"
#include "facts/inventory.hpp"
#include "facts/nvidia_facts.hpp"
#include "facts/os_facts.hpp"
#include "facts/package_facts.hpp"
#include "facts/probe_facts.hpp"
#include "facts/python_facts.hpp"
#include "facts/tool_facts.hpp"
#include "facts/toolkit_facts.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

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
  HostFacts host;       // issue 12
  HistoryFacts history; // the previous reading of the counters (docs/fleet.md, "History")
  std::vector<ToolRun> tools;
  // As root: the programs gpudoctor did not run as root (docs/security.md, "Executing as root"), by path.
  std::vector<UntrustedRun> untrusted;
  ProbeFacts probes; // only with --probes, or replayed from a snapshot that holds probe outputs
  std::string hostname;
  std::vector<std::string> collector_errors; // a collector that failed; the run goes on
  // The fix inventory: taken only for fix, migrate and bundle (CollectOptions::stacks), absent for check.
  std::optional<Inventory> inventory;

  std::size_t count(Vendor v) const;
  // The one join of nvidia-smi's GPUs and the PCI GPUs (by NvidiaSmiGpu::bdf, set by collect/link_facts):
  const Gpu* gpu_at(std::string_view bdf) const;    // empty bdf: none
  const NvidiaSmiGpu* smi_of(const Gpu& gpu) const; // nvidia-smi's GPU at this PCI GPU's address
  const Gpu* gpu_of(const NvidiaSmiGpu& smi) const; // the PCI GPU at nvidia-smi's GPU's address
  // nvidia-smi -q's GPU of an `nvidia-smi nvlink` GPU: by UUID, else by its index.
  const NvidiaSmiGpu* smi_of(const NvlinkGpu& g) const;
};

} // namespace gpudoctor
