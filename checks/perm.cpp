// perm.kfd, perm.render-node, perm.nvidia-dev
#include "checks/common.hpp"
#include "checks/container_common.hpp"
#include "checks/registry.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string node_evidence(const DeviceNode& node) {
  if (!node.stat) return fmt::format("{}: missing", node.path);
  const auto& st = *node.stat;
  return fmt::format("{}: {} {:04o} uid {} group {}", node.path, file_type_name(st.type), st.mode, st.uid,
                     st.group.empty() ? std::to_string(st.gid) : st.group);
}

// A user may be in 65536 groups (NGROUPS_MAX), and this evidence is quoted for every node: name the first 32.
std::string groups_evidence(const Identity& id) {
  constexpr std::size_t k_shown = 32;
  if (id.groups.size() <= k_shown)
    return fmt::format("user {} (uid {}) groups: {}", id.user, id.uid, text::join(id.groups, ","));
  std::vector<std::string> shown(id.groups.begin(), id.groups.begin() + k_shown);
  return fmt::format("user {} (uid {}) groups: {} and {} more", id.user, id.uid, text::join(shown, ","),
                     id.groups.size() - k_shown);
}

} // namespace

void perm_kfd(const CheckContext& ctx, Results& out) {
  const auto& perms = ctx.facts.permissions;
  if (ctx.facts.count(Vendor::amd) == 0) return out.skip("", "no AMD GPU");
  if (!perms.kfd) return out.skip("", fmt::format("{} does not exist (see driver.kfd-missing)", paths::kfd));
  if (perms.kfd->accessible)
    return out.pass("", fmt::format("{} is readable and writable", paths::kfd), {node_evidence(*perms.kfd)});
  out.add(Status::error, "",
          fmt::format("User {} cannot open /dev/kfd read-write, so ROCm sees no GPU: {}. Add the user to the "
                      "render and video groups, then log in again.",
                      perms.identity.user, perms.kfd->why_not),
          {node_evidence(*perms.kfd), groups_evidence(perms.identity)});
}

void perm_render_node(const CheckContext& ctx, Results& out) {
  const auto& perms = ctx.facts.permissions;
  bool any = false;
  for (const auto& gpu : ctx.facts.gpus) {
    if (gpu.vendor != Vendor::amd || !gpu.render_node) continue;
    any = true;
    const DeviceNode* node = nullptr;
    for (const auto& n : perms.render_nodes)
      if (n.path == *gpu.render_node) node = &n;
    if (!node && rocm_devices_in_container(ctx.facts).render_missing) {
      out.skip(gpu.subject(), fmt::format("the container was started without {} (container.rocm-devices)",
                                          *gpu.render_node));
      continue;
    }
    if (!node) {
      out.add(Status::error, gpu.subject(),
              fmt::format("{} does not exist although the driver names it.", *gpu.render_node),
              {fmt::format("{}: missing", *gpu.render_node)}, no_fix);
      // In a container the node was not passed in; on the host udev did not make it.
      if (ctx.facts.os.in_container)
        out.act(Action::step("Start the container again with --device=/dev/dri (and --device=/dev/kfd "
                             "--group-add video for ROCm)."));
      else
        out.act(Action::command({{"sudo", "udevadm", "trigger", "--subsystem-match=drm", "--action=add"}}));
      continue;
    }
    if (node->accessible) {
      out.pass(gpu.subject(), fmt::format("{} is readable and writable", node->path), {node_evidence(*node)});
      continue;
    }
    out.add(
        Status::error, gpu.subject(),
        fmt::format("User {} cannot open {}: {}. Add the user to the render and video groups, then log in "
                    "again.",
                    perms.identity.user, node->path, node->why_not),
        {node_evidence(*node), groups_evidence(perms.identity)});
  }
  if (!any) out.skip("", "no AMD GPU with a render node");
}

void perm_nvidia_dev(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.count(Vendor::nvidia) == 0) return out.skip("", "no NVIDIA GPU");
  if (!nvidia_driver_loaded(f))
    return out.skip("", "no NVIDIA driver loaded (see cuda.no-driver, driver.not-bound)");
  if (NvidiaDevicesInContainer c = nvidia_devices_in_container(f); c.nvidia_host) {
    if (!c.needs_cuda) return out.skip("", "a container without CUDA: it needs no NVIDIA device node");
    if (c.gpus_missing)
      return out.skip("", "the container was started without its GPUs (container.nvidia-devices)");
  }
  bool problem = false;
  for (const auto& node : f.permissions.nvidia_nodes) {
    if (!node.stat) {
      // nvidia-uvm's node is made on first CUDA use by the setuid nvidia-modprobe: missing is only
      // suspicious.
      bool uvm = node.path == paths::nvidia_uvm;
      out.add(
          uvm ? Status::warn : Status::error, node.path,
          uvm ? fmt::format("{} does not exist: CUDA creates it through nvidia-modprobe; if that is missing, "
                            "CUDA fails to initialise",
                            node.path)
              : fmt::format(
                    "{} does not exist: CUDA cannot reach the GPU. Load the driver (modprobe nvidia) or "
                    "reinstall it.",
                    node.path),
          {node_evidence(node)});
      // nvidia-modprobe makes the UVM node as CUDA would; the others come with the module.
      out.act(uvm ? Action::command({{"sudo", "nvidia-modprobe", "-u", "-c", "0"}})
                  : Action::command({{"sudo", "modprobe", "nvidia"}}));
      problem = true;
    } else if (!node.accessible) {
      out.add(
          Status::error, node.path,
          fmt::format("User {} cannot open {}: {}.", f.permissions.identity.user, node.path, node.why_not),
          {node_evidence(node), groups_evidence(f.permissions.identity)});
      // The node's group may open it: the user joins that group; else its mode is not the driver's 0666.
      const auto& who = f.permissions.identity;
      // (Names from a snapshot: one that starts with "-" would be an option to usermod.)
      if (!node.stat->group.empty() && (node.stat->mode & 060) == 060 && !who.user.empty() &&
          node.stat->group[0] != '-' && who.user[0] != '-')
        out.act(Action::command({{"sudo", "usermod", "-aG", node.stat->group, who.user}}));
      else
        out.act(
            Action::step(fmt::format("Give {} the NVIDIA driver's default mode 0666: look for a udev rule "
                                     "or an NVreg_DeviceFileMode option that changed it.",
                                     node.path)));
      problem = true;
    }
  }
  if (!problem) out.pass("", "the NVIDIA device nodes exist and are accessible");
}

} // namespace gpudoctor::checks
