// The collection pipeline: quick file reads first, then the collectors that start processes, in parallel,
// since a vendor tool can take seconds (or hang until its time limit) and the rest need not wait for it.
#include <future>

#include "collect/collectors.hpp"

namespace gpudoctor {

Facts collect_all(SystemView& view, const Knowledge& kb, const CollectOptions& opt) {
  Facts facts;
  collect_os(view, facts.os);
  collect_packages(view, facts.packages);
  collect_env(view, kb, facts.env);

  std::vector<ToolRun> nvidia_tools, amd_tools, toolkit_tools, python_tools;
  auto nvidia = std::async(std::launch::async, [&] {
    collect_nvidia(view, opt, facts.packages, facts.nvidia, nvidia_tools);
  });
  auto amd = std::async(std::launch::async, [&] { collect_amd(view, opt, facts.amd, amd_tools); });
  auto python = std::async(std::launch::async, [&] { collect_python(view, opt, facts.python, python_tools); });
  auto toolkits = std::async(std::launch::async, [&] {
    collect_toolkits(view, opt, facts.packages, facts.toolkits, toolkit_tools);
  });

  collect_pci_gpus(view, kb, facts.gpus);
  collect_modules(view, facts.modules);
  collect_permissions(view, facts.gpus, facts.permissions);
  facts.hostname = facts.permissions.identity.hostname;

  nvidia.get();
  amd.get();
  python.get();
  toolkits.get();
  link_amd_nodes(facts.amd, facts.gpus, kb);
  for (auto* list : {&nvidia_tools, &amd_tools, &toolkit_tools, &python_tools})
    facts.tools.insert(facts.tools.end(), list->begin(), list->end());
  return facts;
}

} // namespace gpudoctor
