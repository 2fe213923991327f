#include "report/summary_lines.hpp"

#include "report/probe_summary.hpp"
#include "util/text.hpp"

namespace gpudoctor {

namespace {

std::vector<std::string> gpu_lines(const Facts& f) {
  if (f.gpus.empty()) return {"none on the PCI bus"};
  std::vector<std::string> out;
  for (const auto& g : f.gpus) {
    std::string line = "gpu" + std::to_string(g.index) + " " + g.bdf + " " + g.display_name();
    if (!g.arch().empty()) line += ", " + g.arch();
    line += g.driver ? ", driver " + *g.driver : ", no driver bound";
    out.push_back(line);
  }
  return out;
}

std::string nvidia_line(const Facts& f) {
  const auto& nv = f.nvidia;
  std::string line;
  if (nv.kernel_module_version)
    line = "kernel module " + *nv.kernel_module_version + (nv.open_kernel_module ? " (open)" : "");
  else
    line = "no driver loaded";
  if (nv.smi_driver_version) line += "; nvidia-smi driver " + *nv.smi_driver_version;
  if (nv.smi_cuda_version) line += ", CUDA " + *nv.smi_cuda_version;
  if (nv.smi_mismatch) line += "; nvidia-smi: Driver/library version mismatch";
  if (nv.smi_no_driver) line += "; nvidia-smi cannot talk to the driver";
  return line;
}

std::string amd_line(const Facts& f) {
  const auto& amd = f.amd;
  std::string line = f.modules.has("amdgpu") ? "amdgpu loaded" : "no amdgpu module";
  if (amd.amdgpu_module_version) line += " " + *amd.amdgpu_module_version;
  line += amd.kfd_device ? ", /dev/kfd present" : ", no /dev/kfd";
  if (amd.rocminfo_ok)
    line += ", rocminfo sees " + std::to_string(amd.rocminfo_agents.size()) + " agents";
  else if (amd.rocminfo_failure)
    line += "; rocminfo: " + *amd.rocminfo_failure;
  return line;
}

std::vector<std::string> cuda_lines(const Facts& f) {
  std::vector<std::string> out;
  for (const auto& c : f.toolkits.cuda)
    out.push_back((c.version ? *c.version : std::string("unknown version")) + " at " + c.path);
  if (f.toolkits.nvcc_path)
    out.push_back("nvcc on PATH: " + *f.toolkits.nvcc_path +
                  (f.toolkits.nvcc_version ? " (" + *f.toolkits.nvcc_version + ")" : std::string()));
  if (f.toolkits.cudnn_version)
    out.push_back("cuDNN " + *f.toolkits.cudnn_version + " (" + f.toolkits.cudnn_version.source + ")");
  if (f.toolkits.nccl_version)
    out.push_back("NCCL " + *f.toolkits.nccl_version + " (" + f.toolkits.nccl_version.source + ")");
  if (out.empty()) out.push_back("none");
  return out;
}

std::vector<std::string> rocm_lines(const Facts& f) {
  std::vector<std::string> out;
  for (const auto& r : f.toolkits.rocm) {
    std::string v = r.version ? *r.version : "unknown version";
    std::string needed_by = r.required_by.empty() ? "" : ", needed by " + text::join(r.required_by, ", ");
    out.push_back(r.distribution_package ? v + " user space from distribution packages (" + r.path + ")" +
                                               needed_by + ", no /opt/rocm"
                                         : v + " at " + r.path);
  }
  if (f.toolkits.rccl_version) out.push_back("RCCL " + *f.toolkits.rccl_version);
  if (out.empty()) out.push_back("none");
  return out;
}

std::vector<std::string> python_lines(const Facts& f) {
  std::vector<std::string> out;
  for (const auto& e : f.python.envs) {
    std::string line = "python3 (" + e.role + ") " + e.executable;
    if (e.version) line += " " + *e.version;
    if (!e.error.empty())
      line += ": " + e.error;
    else if (!e.torch)
      line += ": no PyTorch";
    else {
      const auto& t = *e.torch;
      line += ": PyTorch " + t.version +
              (t.hip    ? " ROCm/HIP " + *t.hip
               : t.cuda ? " CUDA " + *t.cuda
                        : " CPU-only");
    }
    out.push_back(line);
  }
  if (out.empty()) out.push_back("no python3 found");
  return out;
}

} // namespace

std::vector<std::pair<std::string, std::vector<std::string>>> machine_summary(const Facts& f) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  out.push_back({"GPUs", gpu_lines(f)});
  out.push_back({"NVIDIA", {nvidia_line(f)}});
  out.push_back({"AMD", {amd_line(f)}});
  out.push_back({"CUDA", cuda_lines(f)});
  out.push_back({"ROCm", rocm_lines(f)});
  out.push_back({"Python", python_lines(f)});
  if (f.probes.requested) out.push_back({"Probes", probe_summary_lines(f.probes)});
  if (f.os.in_container) out.push_back({"Container", {f.os.container_evidence}});
  // What could not be collected, so that a clean report is not read as a clean machine.
  if (!f.collector_errors.empty()) out.push_back({"Collection", f.collector_errors});
  return out;
}

} // namespace gpudoctor
