// What the NCCL/RCCL environment checks need besides the environment: NCCL's configuration files, the names
// of the network interfaces and RDMA devices, and the KFD io_links that say how AMD GPUs reach each other.
#include "collect/collectors.hpp"
#include "parse/parsers_system.hpp"
#include "system/config_files.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

// NCCL's setEnvFile (src/misc/param.cc): getline, skip lines starting with '#', drop the final '\n' only,
// the name is everything before the first '=' (no trimming), the value everything after it.
std::vector<ConfSetting> nccl_conf_settings(const std::string& content) {
  std::vector<ConfSetting> out;
  std::size_t start = 0;
  int number = 0;
  while (start < content.size()) {
    std::size_t end = content.find('\n', start);
    std::string line = content.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? content.size() : end + 1;
    ++number;
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    out.push_back({line.substr(0, eq), line.substr(eq + 1), number});
  }
  return out;
}

} // namespace

void collect_nccl_conf(SystemView& view, const std::map<std::string, std::string>& environment,
                       const std::string& home, EnvFacts& env) {
  std::vector<std::pair<std::string, std::string>> files; // path, role
  // NCCL_CONF_FILE is read from the process environment only (std::getenv), and replaces ~/.nccl.conf.
  auto conf = environment.find("NCCL_CONF_FILE");
  bool conf_file = conf != environment.end() && !conf->second.empty();
  if (conf_file && conf->second[0] == '/') files.emplace_back(conf->second, "NCCL_CONF_FILE");
  for (const auto& row : config_files()) {
    if (row.use != ConfigUse::nccl) continue;
    if (!row.in_home)
      files.emplace_back(std::string(row.path), "system");
    else if (!conf_file && !home.empty())
      files.emplace_back(in_home(home, row), "user");
  }
  for (const auto& [path, role] : files) {
    auto content = view.read_file(path);
    if (!content) continue;
    env.nccl_conf.push_back({path, role, nccl_conf_settings(*content)});
  }
}

void collect_network(SystemView& view, NetworkFacts& net) {
  if (auto names = view.list_dir(paths::net_class)) {
    std::vector<std::string> interfaces;
    // The bonding driver puts a file of that name among the interfaces.
    for (const auto& name : *names)
      if (name != "bonding_masters") interfaces.push_back(name);
    net.interfaces = std::move(interfaces);
    net.interfaces_source = paths::net_class;
  }
  // The folder exists only once an RDMA driver is loaded: absent means no InfiniBand/RoCE device.
  if (auto devices = view.list_dir(paths::infiniband_class)) net.ib_devices = *devices;
  net.ib_source = paths::infiniband_class;
}

void collect_kfd_links(SystemView& view, AmdFacts& amd) {
  for (auto& node : amd.kfd_nodes) {
    if (node.node_id < 0) continue;
    std::string dir = paths::kfd_io_links(node.node_id);
    auto links = view.list_dir(dir);
    if (!links) continue;
    node.io_links_read = true;
    for (const auto& name : *links) {
      if (!text::to_int(name)) continue;
      std::string path = dir + "/" + name + "/properties";
      auto content = view.read_file(path);
      if (!content) continue;
      parse::KfdIoLink parsed = parse::kfd_io_link_properties(*content);
      node.io_links.push_back(
          {parsed.type, parsed.node_from, parsed.node_to, path, parsed.weight, parsed.max_bandwidth});
    }
  }
}

} // namespace gpudoctor
