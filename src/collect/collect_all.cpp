// The collection pipeline: quick file reads first, then the collectors that start processes, in parallel,
// since a vendor tool can take seconds (or hang until its time limit) and the rest need not wait for it.
#include "collect/collectors.hpp"
#include "collect/inventory.hpp"
#include "collect/link_facts.hpp"

#include <algorithm>
#include <exception>
#include <future>
#include <mutex>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// Runs each collector so that one that throws (a parser's bug, std::bad_alloc on a huge file) costs only
// its own facts: the failure is named in Facts::collector_errors and the other collectors and the checks
// go on (design.md: keep going, say which collector failed).
class CollectorGuard {
public:
  template <class Fn> void run(const char* name, Fn&& collect) noexcept {
    try {
      collect();
    } catch (const std::exception& e) {
      add(fmt::format("{}: {}", name, e.what()));
    } catch (...) {
      add(fmt::format("{}: an exception that is not a std::exception", name));
    }
  }
  void add(std::string error) noexcept {
    try {
      std::lock_guard lock(m_mutex);
      m_errors.push_back(std::move(error));
    } catch (...) {
      // Out of memory while recording a failure: nothing better can be done than to go on.
    }
  }
  // Sorted: the parallel collectors fail in any order, and a report must not change between runs.
  std::vector<std::string> take() {
    std::sort(m_errors.begin(), m_errors.end());
    return std::move(m_errors);
  }

private:
  std::mutex m_mutex;
  std::vector<std::string> m_errors;
};

} // namespace

Facts collect_all(SystemView& view, const Knowledge& kb, const CollectOptions& opt) {
  return collect_all(
      view, [&kb] { return &kb; }, opt);
}

Facts collect_all(SystemView& view, const KnowledgeWhenReady& knowledge, const CollectOptions& opt) {
  Facts facts;
  CollectorGuard guard;
  guard.run("os", [&] { collect_os(view, facts.os); });

  std::vector<ToolRun> nvidia_tools, amd_tools, toolkit_tools, python_tools, boot_tools, container_tools,
      log_tools, after_tools;
  // The collectors that need no other's facts start first: the kernel log and the interpreters wait for
  // programs, while dpkg's status (a megabyte on a desktop) is parsed here.
  auto kernel_log = std::async(std::launch::async, [&] {
    guard.run("kernel-log", [&] { collect_kernel_log(view, opt, facts.kernel_log, log_tools); });
  });
  auto python = std::async(std::launch::async, [&] {
    guard.run("python", [&] {
      collect_python(view, opt, facts.python, python_tools);
      if (opt.python_known) opt.python_known(facts.python);
      collect_python_distributions(view, facts.python);
    });
  });
  auto boot = std::async(std::launch::async, [&] {
    guard.run("boot", [&] { collect_boot(view, opt, facts.boot, boot_tools); });
  });
  guard.run("packages", [&] { collect_packages(view, facts.packages); });
  guard.run("env", [&] { collect_env(view, facts.env); });

  auto nvidia = std::async(std::launch::async, [&] {
    guard.run("nvidia", [&] { collect_nvidia(view, opt, facts.packages, facts.nvidia, nvidia_tools); });
  });
  auto toolkits = std::async(std::launch::async, [&] {
    guard.run("toolkits",
              [&] { collect_toolkits(view, opt, facts.packages, facts.toolkits, toolkit_tools); });
  });
  auto containers = std::async(std::launch::async, [&] {
    guard.run("containers",
              [&] { collect_containers(view, opt, facts.packages, facts.containers, container_tools); });
  });
  guard.run("repos", [&] { collect_repos(view, facts.repos); });

  guard.run("pci", [&] {
    if (std::size_t left_out = collect_pci_gpus(view, facts.gpus))
      guard.add(fmt::format("pci: {} more GPUs than the {} gpudoctor inspects were left out", left_out,
                            k_max_gpus));
  });
  // rocminfo can only say "no GPU" where there is neither /dev/kfd nor an AMD GPU: it waits for the PCI scan.
  auto amd = std::async(std::launch::async, [&, amd_gpu = facts.count(Vendor::amd) > 0] {
    guard.run("amd", [&] {
      collect_amd(view, opt, amd_gpu, facts.amd, amd_tools);
      collect_kfd_links(view, facts.amd);
    });
  });
  guard.run("modules", [&] { collect_modules(view, facts.modules); });
  guard.run("permissions", [&] {
    collect_permissions(view, facts.gpus, facts.permissions);
    facts.hostname = facts.permissions.identity.hostname;
  });
  guard.run("nccl",
            [&] { collect_nccl_conf(view, facts.env.all, facts.permissions.identity.home, facts.env); });
  guard.run("network", [&] {
    collect_network(view, facts.network);
    if (facts.count(Vendor::nvidia) + facts.count(Vendor::amd) > 0) // NCCL's choice of interface
      collect_net_interfaces(view, opt, facts.network);
  });

  nvidia.get();
  amd.get();
  python.get();
  toolkits.get();
  boot.get();
  containers.get();
  kernel_log.get();
  guard.run("gpu-health", [&] { collect_gpu_health(view, facts.gpus); });
  guard.run("firmware", [&] { collect_firmware_listing(view, facts.kernel_log, facts.firmware); });
  // From here the knowledge tables are read (by fabric, python-extensions, link and inventory); without them
  // those are left out, and the caller says why.
  const Knowledge* kb = knowledge();
  if (kb)
    guard.run("fabric", [&] {
      collect_fabric(view, *kb, opt, facts.packages, facts.nvidia, facts.fabric, after_tools);
    });
  guard.run("nvidia-modinfo",
            [&] { collect_nvidia_modinfo(view, opt, facts.gpus, facts.nvidia, after_tools); });
  guard.run("stack-paths", [&] { collect_stack_paths(view, facts.env, facts.toolkits, facts.stack_paths); });
  if (kb)
    guard.run("python-extensions", [&] { collect_python_extensions(view, *kb, facts.python); }); // issue 12
  guard.run("host", [&] { collect_host(view, facts); });
  guard.run("history", [&] { collect_history(view, opt.history_dir, facts.history); });
  // The tools' runs before the link stage, which names their failures (link_tool_errors).
  for (auto* list : {&nvidia_tools, &amd_tools, &toolkit_tools, &python_tools, &boot_tools, &container_tools,
                     &log_tools, &after_tools})
    facts.tools.insert(facts.tools.end(), list->begin(), list->end());
  if (kb) guard.run("link", [&] { link_facts(facts, *kb); });
  // Last: it reads the packages, DKMS, toolkit and identity facts of the collectors above.
  if (kb && opt.stacks)
    guard.run("inventory", [&] { facts.inventory = take_inventory(view, facts, *kb, *opt.stacks); });
  // The network of this machine says nothing about a replayed one.
  if (opt.online && !view.is_replay()) guard.run("online", [&] { probe_repos(opt, facts.os, facts.repos); });
  facts.collector_errors = guard.take();
  return facts;
}

} // namespace gpudoctor
