// The layer around the GPUs that decides whether GPU programs run (issue 12): WSL2's Windows-provided driver,
// /dev/shm in containers, the memlock limit and port states of RDMA devices, and the folders the dynamic
// loader searches. Runs after the other collectors: it reads only what their facts say is worth reading.
#include "collect/collectors.hpp"
#include "facts/facts.hpp"
#include "parse/parsers_layer.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

namespace gpudoctor {

namespace {

// The folder WSL2 mounts the Windows GPU driver's Linux libraries into (libcuda.so.1, libd3d12.so, ...).
constexpr const char* k_wsl_lib = "/usr/lib/wsl/lib";
// Where a Linux NVIDIA driver puts its libcuda; under WSL2 a file here shadows the one of /usr/lib/wsl/lib.
constexpr const char* k_driver_lib_dirs[] = {"/usr/lib/x86_64-linux-gnu", "/usr/lib64",
                                             "/usr/lib/aarch64-linux-gnu"};
constexpr std::size_t k_max_loader_dirs = 32; // LD_LIBRARY_PATH entries listed

void collect_wsl(SystemView& view, const Facts& f, HostFacts& host) {
  if (!f.os.wsl || !f.os.kernel_release) return;
  host.wsl_evidence = f.os.kernel_release.source + ": " + *f.os.kernel_release;
  host.wsl_libs = view.list_dir(k_wsl_lib);
  host.dxg = view.stat(paths::dxg);
  for (const char* dir : k_driver_lib_dirs)
    for (const char* name : {"libcuda.so.1", "libcuda.so", "libnvidia-ml.so.1"}) {
      std::string path = std::string(dir) + "/" + name;
      if (!view.exists(path)) continue;
      // A link into /usr/lib/wsl/lib is WSL's own arrangement, not a Linux driver.
      auto target = final_link_target(view, path);
      if (target && text::starts_with(*target, k_wsl_lib)) continue;
      host.wsl_shadows.push_back(path);
    }
  if (f.nvidia.kernel_module_version)
    host.wsl_shadows.push_back(f.nvidia.kernel_module_version.source + ": a Linux NVIDIA kernel module (" +
                               *f.nvidia.kernel_module_version + ")");
  for (const auto& [name, version] : f.packages.installed)
    if (text::starts_with(name, "nvidia-driver-") || text::starts_with(name, "libnvidia-compute-") ||
        name == "cuda-drivers" || text::starts_with(name, "nvidia-dkms-") || name == "amdgpu-dkms")
      host.wsl_shadows.push_back("package " + name + " " + version);
}

void collect_shm(SystemView& view, const Facts& f, HostFacts& host) {
  if (!f.os.in_container || f.count(Vendor::nvidia) + f.count(Vendor::amd) < 2) return;
  CommandSpec spec = keyed_command_spec(KeyedCommand::df_shm, std::chrono::milliseconds(2000));
  auto r = view.run(spec);
  if (!r.ok()) return;
  if (auto kib = parse::df_size_kib(r.out)) {
    host.shm_bytes = *kib * 1024;
    host.shm_source = "cmd df-shm";
  }
}

void collect_rdma(SystemView& view, const Facts& f, HostFacts& host) {
  if (f.network.ib_devices.empty()) return;
  if (auto limits = view.read_file(paths::self_limits))
    if (auto memlock = parse::memlock_limit(*limits)) {
      host.memlock_soft = memlock->soft;
      host.memlock_hard = memlock->hard;
      host.memlock_source = paths::self_limits;
    }
  for (const auto& device : f.network.ib_devices) {
    auto ports = view.list_dir(paths::infiniband_ports(device));
    if (!ports) continue;
    for (const auto& port : *ports) {
      auto number = text::to_int(port, 10);
      if (!number) continue;
      IbPort p;
      p.device = device;
      p.port = static_cast<int>(*number);
      p.source = paths::infiniband_port_file(device, port, "state");
      // "4: ACTIVE" -> ACTIVE
      if (auto state = view.read_file(p.source)) {
        std::string s = text::trim(*state);
        p.state = text::trim(s.substr(s.find(':') == std::string::npos ? 0 : s.find(':') + 1));
      }
      if (auto layer = view.read_file(paths::infiniband_port_file(device, port, "link_layer")))
        p.link_layer = text::trim(*layer);
      host.ib_ports.push_back(std::move(p));
    }
  }
}

// LD_LIBRARY_PATH entries, then the GPU-stack folders of ld.so.conf; each listed (the stubs folder and the
// libraries that may shadow the wheels' are found in the listings).
void collect_loader(SystemView& view, const Facts& f, HostFacts& host) {
  for (const auto& entry : f.env.ld_library_path_entries) {
    if (entry.empty() || entry[0] != '/' || host.loader_dirs.size() >= k_max_loader_dirs) continue;
    LoaderDir d{entry, "env LD_LIBRARY_PATH", view.list_dir(entry)};
    host.loader_dirs.push_back(std::move(d));
  }
  for (const auto& s : f.stack_paths.settings)
    if (s.variable == "ld.so.conf" && !s.resolved.empty() && host.loader_dirs.size() < 2 * k_max_loader_dirs)
      host.loader_dirs.push_back({s.resolved, s.origin, view.list_dir(s.resolved)});
}

} // namespace

void collect_host(SystemView& view, Facts& facts) {
  collect_wsl(view, facts, facts.host);
  collect_shm(view, facts, facts.host);
  collect_rdma(view, facts, facts.host);
  collect_loader(view, facts, facts.host);
}

} // namespace gpudoctor
