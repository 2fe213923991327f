// Device nodes and whether this user can open them read-write. Decided from the node's mode, owner and group
// and the user's groups, so a replayed snapshot decides exactly as the live machine did.
#include "collect/collectors.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cstdio>

namespace gpudoctor {

namespace {

DeviceNode inspect_node(SystemView& view, const Identity& id, const std::string& path) {
  DeviceNode node;
  node.path = path;
  node.stat = view.stat(path);
  if (!node.stat) {
    node.why_not = path + " does not exist";
    return node;
  }
  const FileStat& st = *node.stat;
  if (id.uid == 0) {
    node.accessible = true;
    return node;
  }
  unsigned bits;
  bool in_group =
      std::find(id.gids.begin(), id.gids.end(), st.gid) != id.gids.end() ||
      (!st.group.empty() && std::find(id.groups.begin(), id.groups.end(), st.group) != id.groups.end());
  if (id.uid == st.uid)
    bits = (st.mode >> 6) & 7;
  else if (in_group)
    bits = (st.mode >> 3) & 7;
  else
    bits = st.mode & 7;
  node.accessible = (bits & 6) == 6;
  if (!node.accessible) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", st.mode);
    std::string group = st.group.empty() ? "gid " + std::to_string(st.gid) : st.group;
    node.why_not = path + " is mode " + mode + ", group " + group + ", and user " + id.user +
                   (in_group ? " is in that group without read-write" : " is not in group " + group);
  }
  return node;
}

} // namespace

void collect_permissions(SystemView& view, const std::vector<Gpu>& gpus, PermissionFacts& perms) {
  perms.identity = view.identity();
  const Identity& id = perms.identity;
  if (view.exists(paths::kfd)) perms.kfd = inspect_node(view, id, paths::kfd);
  if (auto names = view.list_dir(paths::dri))
    for (const auto& name : *names)
      if (text::starts_with(name, "renderD"))
        perms.render_nodes.push_back(inspect_node(view, id, paths::dri_node(name)));
  // Not a listing of /dev: only the nodes the NVIDIA driver makes.
  int nvidia_gpus = 0;
  for (const auto& gpu : gpus)
    if (gpu.vendor == Vendor::nvidia) ++nvidia_gpus;
  std::vector<std::string> nvidia_paths = {paths::nvidia_ctl, paths::nvidia_uvm};
  for (int i = 0; i < std::max(nvidia_gpus, 1); ++i)
    nvidia_paths.push_back(paths::nvidia_gpu_node(i));
  for (const auto& path : nvidia_paths) {
    DeviceNode node = inspect_node(view, id, path);
    if (node.stat || nvidia_gpus > 0) perms.nvidia_nodes.push_back(std::move(node));
  }
}

} // namespace gpudoctor
