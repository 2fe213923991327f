// The collection pipeline: quick file reads first, then the collectors that start processes, in parallel,
// since a vendor tool can take seconds (or hang until its time limit) and the rest need not wait for it.
#include "collect/collectors.hpp"

#include <future>

#include <fmt/format.h>

namespace gpudoctor {

Facts collect_all(SystemView& view, const Knowledge& kb, const CollectOptions& opt) {
  Facts facts;
  collect_os(view, facts.os);
  collect_packages(view, facts.packages);
  collect_env(view, kb, facts.env);

  std::vector<ToolRun> nvidia_tools, amd_tools, toolkit_tools, python_tools, boot_tools, container_tools,
      log_tools, after_tools;
  auto nvidia = std::async(std::launch::async,
                           [&] { collect_nvidia(view, opt, facts.packages, facts.nvidia, nvidia_tools); });
  auto kernel_log =
      std::async(std::launch::async, [&] { collect_kernel_log(view, opt, facts.kernel_log, log_tools); });
  auto python = std::async(std::launch::async, [&] {
    collect_python(view, opt, facts.python, python_tools);
    if (opt.python_known) opt.python_known(facts.python);
    collect_python_distributions(view, facts.python);
  });
  auto toolkits = std::async(std::launch::async, [&] {
    collect_toolkits(view, opt, facts.packages, facts.toolkits, toolkit_tools);
  });
  auto boot = std::async(std::launch::async, [&] { collect_boot(view, opt, facts.boot, boot_tools); });
  auto containers = std::async(std::launch::async, [&] {
    collect_containers(view, opt, facts.packages, facts.containers, container_tools);
  });
  collect_repos(view, kb, facts.repos);

  if (std::size_t left_out = collect_pci_gpus(view, kb, facts.gpus))
    facts.collector_errors.push_back(
        fmt::format("pci: {} more GPUs than the {} gpudoctor inspects were left out", left_out, k_max_gpus));
  // rocminfo can only say "no GPU" where there is neither /dev/kfd nor an AMD GPU: it waits for the PCI scan.
  auto amd = std::async(std::launch::async, [&, amd_gpu = facts.count(Vendor::amd) > 0] {
    collect_amd(view, opt, amd_gpu, facts.amd, amd_tools);
    collect_kfd_links(view, facts.amd);
  });
  collect_modules(view, facts.modules);
  collect_permissions(view, facts.gpus, facts.permissions);
  facts.hostname = facts.permissions.identity.hostname;
  collect_nccl_conf(view, facts.env.all, facts.permissions.identity.home, facts.env);
  collect_network(view, facts.network);

  nvidia.get();
  amd.get();
  python.get();
  toolkits.get();
  boot.get();
  containers.get();
  kernel_log.get();
  link_amd_nodes(facts.amd, facts.gpus, kb);
  collect_gpu_health(view, facts.gpus);
  collect_firmware_listing(view, facts.kernel_log, facts.firmware);
  collect_fabric(view, kb, opt, facts.packages, facts.nvidia, facts.fabric, after_tools);
  collect_nvidia_modinfo(view, opt, facts.gpus, facts.nvidia, after_tools);
  collect_stack_paths(view, facts.env, facts.toolkits, facts.stack_paths);
  collect_python_extensions(view, kb, facts.python); // issue 12
  collect_host(view, facts);
  // The network of this machine says nothing about a replayed one.
  if (opt.online && view.kind() != "replay") probe_repos(opt, facts.os, facts.repos);
  for (auto* list : {&nvidia_tools, &amd_tools, &toolkit_tools, &python_tools, &boot_tools, &container_tools,
                     &log_tools, &after_tools})
    facts.tools.insert(facts.tools.end(), list->begin(), list->end());
  return facts;
}

} // namespace gpudoctor
