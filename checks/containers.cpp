// container.nvidia-runtime, container.rocm-devices
#include "checks/common.hpp"
#include "checks/container_common.hpp"
#include "checks/registry.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

bool has(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

} // namespace

void container_nvidia_runtime(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  const auto& c = f.containers;
  if (f.os.in_container) return out.skip("", "inside a container: the host's Docker decides");
  if (f.count(Vendor::nvidia) == 0) return out.skip("", "no NVIDIA GPU");
  if (!c.docker_installed) return out.skip("", "Docker is not installed");
  std::vector<std::string> evidence = {c.docker_evidence};
  if (c.docker_info_ok)
    evidence.push_back(fmt::format(
        "cmd docker-info-json: Runtimes {}{}", c.runtimes.empty() ? "(none)" : text::join(c.runtimes, ", "),
        c.default_runtime.empty() ? "" : fmt::format("; DefaultRuntime {}", c.default_runtime)));
  else
    evidence.push_back(fmt::format("cmd docker-info-json: {}",
                                   c.docker_info_error.empty() ? "not run" : c.docker_info_error));
  if (!c.daemon_json_source.empty())
    evidence.push_back(
        fmt::format("{}: runtimes {}", c.daemon_json_source,
                    c.daemon_json_runtimes.empty() ? "(none)" : text::join(c.daemon_json_runtimes, ", ")));
  else
    evidence.push_back("Docker's daemon configuration (the system's or rootless Docker's): not found");
  bool configured = has(c.runtimes, "nvidia") || has(c.daemon_json_runtimes, "nvidia");
  if (configured) return out.pass("", "Docker has the nvidia runtime", evidence);
  evidence.push_back(c.nvidia_toolkit_config
                         ? "NVIDIA Container Toolkit: installed (/etc/nvidia-container-runtime "
                           "or nvidia-ctk)"
                         : "NVIDIA Container Toolkit: not found");
  std::string what =
      c.nvidia_toolkit_config
          ? "The NVIDIA Container Toolkit is installed but not registered with Docker: run sudo "
            "nvidia-ctk runtime configure --runtime=docker and restart Docker."
          : "Install the NVIDIA Container Toolkit (nvidia-container-toolkit), then run sudo nvidia-ctk "
            "runtime configure --runtime=docker and restart Docker.";
  out.add(Status::warn, "",
          fmt::format(
              "Docker is installed and this machine has NVIDIA GPUs, but Docker has no nvidia runtime: "
              "containers started with --gpus or --runtime=nvidia fail (\"could not select device driver\") "
              "or see no GPU. {}",
              what),
          evidence);
}

RocmDevicesInContainer rocm_devices_in_container(const Facts& f) {
  RocmDevicesInContainer r;
  if (!f.os.in_container) return r;
  r.evidence = {fmt::format("container: {}", f.os.container_evidence)};
  if (f.modules.has("amdgpu"))
    r.evidence.push_back(fmt::format("{}: amdgpu (the host's kernel)", f.modules.source));
  if (f.amd.kfd_topology) r.evidence.push_back(fmt::format("{}: readable", paths::kfd_topology_nodes));
  for (const auto& gpu : f.gpus)
    if (gpu.vendor == Vendor::amd) r.evidence.push_back(gpu_evidence(gpu));
  r.amd_host = r.evidence.size() > 1;
  if (!r.amd_host) return r;
  // A container without ROCm (a CPU-only image) does not need the devices.
  bool torch_rocm = any_torch_for(f, Vendor::amd);
  bool rocm_env = std::any_of(f.env.gpu_vars.begin(), f.env.gpu_vars.end(), [](const auto& kv) {
    return text::starts_with(kv.first, "HSA_") || text::starts_with(kv.first, "HIP_") ||
           text::starts_with(kv.first, "ROCR_");
  });
  r.needs_rocm = rocm_installed(f) || torch_rocm || rocm_env;
  bool kfd = f.amd.kfd_device || (f.permissions.kfd && f.permissions.kfd->stat);
  bool render = std::any_of(f.permissions.render_nodes.begin(), f.permissions.render_nodes.end(),
                            [](const DeviceNode& n) { return n.stat.has_value(); });
  r.evidence.push_back(fmt::format("{}: {}", paths::kfd, kfd ? "present" : "missing"));
  r.evidence.push_back(fmt::format("{}: {}", paths::dri, render ? "render nodes present" : "no render node"));
  r.kfd_missing = r.needs_rocm && !kfd;
  r.render_missing = r.needs_rocm && !render;
  return r;
}

NvidiaDevicesInContainer nvidia_devices_in_container(const Facts& f) {
  NvidiaDevicesInContainer r;
  if (!f.os.in_container) return r;
  r.evidence = {fmt::format("container: {}", f.os.container_evidence)};
  if (nvidia_driver_loaded(f)) {
    if (auto v = nvidia_driver_version(f))
      r.evidence.push_back(fmt::format("{}: {} (the host's kernel)", v->source, *v->value));
    else
      r.evidence.push_back(fmt::format("{}: nvidia (the host's kernel)", f.modules.source));
  }
  for (const auto& gpu : f.gpus)
    if (gpu.vendor == Vendor::nvidia) r.evidence.push_back(gpu_evidence(gpu));
  r.nvidia_host = r.evidence.size() > 1;
  if (!r.nvidia_host) return r;
  // A container without CUDA (a CPU-only image) needs no GPU. The CUDA images set CUDA_VERSION and
  // NVIDIA_REQUIRE_CUDA; a pip-installed CUDA PyTorch brings its own CUDA.
  bool torch_cuda = any_torch_for(f, Vendor::nvidia) || (f.probes.framework && f.probes.framework->cuda);
  bool image_cuda = f.env.all.contains("CUDA_VERSION") || f.env.all.contains("NVIDIA_REQUIRE_CUDA");
  r.needs_cuda = !f.toolkits.cuda.empty() || torch_cuda || image_cuda;
  // The NVIDIA Container Toolkit's GPU enumeration: "void" and an empty value inject nothing (as runc),
  // "none" the driver's libraries and no GPU.
  if (auto it = f.env.all.find("NVIDIA_VISIBLE_DEVICES"); it != f.env.all.end()) {
    std::string v = text::trim(it->second);
    if (v.empty() || v == "void" || v == "none") r.hiding = v;
    r.evidence.push_back(fmt::format("env NVIDIA_VISIBLE_DEVICES={}", it->second));
  }
  bool gpu_node = false, listed = false; // a GPU's own node, not nvidiactl or nvidia-uvm
  for (const auto& n : f.permissions.nvidia_nodes) {
    if (n.path == paths::nvidia_ctl || n.path == paths::nvidia_uvm) continue;
    listed = true;
    gpu_node = gpu_node || n.stat.has_value();
    r.evidence.push_back(fmt::format("{}: {}", n.path, n.stat ? "present" : "missing"));
  }
  if (!listed) r.evidence.push_back(fmt::format("{}: missing", paths::nvidia_gpu_node(0)));
  r.gpus_missing = r.needs_cuda && !gpu_node;
  return r;
}

void container_nvidia_devices(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (!f.os.in_container) return out.skip("", "not inside a container");
  NvidiaDevicesInContainer r = nvidia_devices_in_container(f);
  if (!r.nvidia_host) return out.skip("", "no sign of an NVIDIA GPU on the host (nvidia module, PCI)");
  if (!r.needs_cuda)
    return out.pass("", "no CUDA in this container (no toolkit, CUDA PyTorch or CUDA image): it needs no GPU",
                    r.evidence);
  if (!r.gpus_missing) return out.pass("", "the container has its NVIDIA GPU device nodes", r.evidence);
  std::string cause =
      !r.hiding ? std::string("it was started without its GPUs (no --gpus, no NVIDIA runtime or CDI "
                              "device), so no /dev/nvidiaN node and no driver library was passed in")
      : *r.hiding == "none"
          ? std::string("NVIDIA_VISIBLE_DEVICES=none gives it the driver's libraries but no GPU")
          : fmt::format(
                "NVIDIA_VISIBLE_DEVICES={} makes the NVIDIA Container Toolkit inject nothing, neither "
                "GPUs nor the driver",
                r.hiding->empty() ? "\"\"" : *r.hiding);
  out.add(Status::error, "",
          fmt::format("This container has CUDA and runs on a host with NVIDIA GPUs, but {}: CUDA sees no GPU "
                      "(\"Found no NVIDIA driver on your system\", nvidia-smi missing or \"No devices were "
                      "found\"). Start it with --gpus all (or the device you mean), with "
                      "NVIDIA_VISIBLE_DEVICES naming GPUs.",
                      cause),
          r.evidence);
  out.act(Action::step(
      "Start the container again with --gpus all (CDI: --device nvidia.com/gpu=all; Kubernetes: a "
      "nvidia.com/gpu resource limit) and without NVIDIA_VISIBLE_DEVICES=void or none"));
}

void container_rocm_devices(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (!f.os.in_container) return out.skip("", "not inside a container");
  RocmDevicesInContainer r = rocm_devices_in_container(f);
  if (!r.amd_host) return out.skip("", "no sign of an AMD GPU on the host (amdgpu, KFD topology, PCI)");
  if (!r.needs_rocm) return out.pass("", "no ROCm in this container: it needs no GPU device", r.evidence);
  if (!r.kfd_missing && !r.render_missing)
    return out.pass("", "the KFD and the render nodes were passed in", r.evidence);
  std::string missing = r.kfd_missing && r.render_missing
                            ? fmt::format("{} and the {} render nodes", paths::kfd, paths::dri)
                        : r.kfd_missing ? std::string(paths::kfd)
                                        : fmt::format("the {} render nodes", paths::dri);
  out.add(Status::error, "",
          fmt::format(
              "This container runs on a host with AMD GPUs, but {} were not passed in, so ROCm sees no GPU "
              "(rocminfo: \"Unable to open /dev/kfd\"). Start it with --device=/dev/kfd --device=/dev/dri "
              "--group-add video (Kubernetes: the AMD GPU device plugin).",
              missing),
          r.evidence);
}

} // namespace gpudoctor::checks
