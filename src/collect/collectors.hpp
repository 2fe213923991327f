// Collectors: each reads one area of the machine through a SystemView and fills its part of Facts.
// They never judge (checks do) and never touch the OS directly; a failure becomes a fact or a collector error.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "facts/facts.hpp"
#include "knowledge/knowledge.hpp"
#include "system/system_view.hpp"

namespace gpudoctor {

struct CollectOptions {
  std::chrono::milliseconds tool_timeout{5000};   // vendor tools (nvidia-smi, rocminfo, nvcc)
  std::chrono::milliseconds python_timeout{5000}; // a python3 printing its sys.path
  std::vector<std::string> extra_pythons;         // --python
};

void collect_os(SystemView& view, OsFacts& os);
void collect_packages(SystemView& view, PackageFacts& packages);
void collect_pci_gpus(SystemView& view, const Knowledge& kb, std::vector<Gpu>& gpus);
void collect_modules(SystemView& view, KernelModules& modules);
void collect_nvidia(SystemView& view, const CollectOptions& opt, const PackageFacts& packages, NvidiaFacts& nvidia,
                    std::vector<ToolRun>& tools);
void collect_amd(SystemView& view, const CollectOptions& opt, AmdFacts& amd, std::vector<ToolRun>& tools);
void collect_toolkits(SystemView& view, const CollectOptions& opt, const PackageFacts& packages,
                      ToolkitFacts& toolkits, std::vector<ToolRun>& tools);
void collect_env(SystemView& view, const Knowledge& kb, EnvFacts& env);
void collect_permissions(SystemView& view, const std::vector<Gpu>& gpus, PermissionFacts& perms);
void collect_python(SystemView& view, const CollectOptions& opt, PythonFacts& python, std::vector<ToolRun>& tools);

// Ties facts of different collectors together: KFD nodes and render nodes to PCI GPUs.
void link_amd_nodes(AmdFacts& amd, std::vector<Gpu>& gpus, const Knowledge& kb);

// Runs every collector (commands in parallel) and returns the facts.
Facts collect_all(SystemView& view, const Knowledge& kb, const CollectOptions& opt);

// Shared helpers.
// The first `name` on the PATH of `view`'s environment, found with stat (works on replay too).
std::optional<std::string> find_on_path(SystemView& view, const std::string& name);
// A ToolRun from a command result, with `failure` left for the caller.
ToolRun tool_run_of(const CommandResult& r, const CommandSpec& spec);
std::string file_source(const std::string& path, int line = 0);

} // namespace gpudoctor
