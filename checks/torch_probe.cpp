// torch.arch-missing (with probes; torch_arch.cpp without), torch.no-device: what PyTorch itself said when
// the python3 in use imported it (the framework probe, run by --probes).
#include "checks/common.hpp"
#include "checks/container_common.hpp"
#include "checks/probe_common.hpp"
#include "checks/registry.hpp"
#include "checks/torch_wheel.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

std::string subject_of(const FrameworkProbe& fw) {
  return fmt::format("python3 ({})", fw.python);
}

// The framework probe's result when it can be judged; else a skip (or, for a crash, an error) is added.
const FrameworkProbe* judgeable(const Facts& f, Results& out) {
  if (!skip_without_probes(f, out)) return nullptr;
  const auto& fw = f.probes.framework;
  if (!fw) {
    out.skip("", "the framework probe did not run: the python3 in use has no PyTorch (or its output was not "
                 "recorded)");
    return nullptr;
  }
  if (fw->run.timed_out) {
    out.skip(subject_of(*fw), "importing PyTorch timed out (see probe.timeout)");
    return nullptr;
  }
  if (auto trouble = run_trouble(fw->run)) {
    out.add(Status::error, subject_of(*fw), fmt::format("Importing PyTorch {}", *trouble),
            {run_evidence(fw->run)}, no_fix);
    return nullptr;
  }
  if (!fw->imported) {
    out.skip(subject_of(*fw), fmt::format("PyTorch does not import: {}", fw->import_error));
    return nullptr;
  }
  if (fw->backend != "cuda" && fw->backend != "hip") {
    out.skip(subject_of(*fw),
             fmt::format("PyTorch {} is a CPU-only build (see torch.cpu-build)", fw->version));
    return nullptr;
  }
  return &*fw;
}

Vendor build_vendor(const FrameworkProbe& fw) {
  return fw.backend == "hip" ? Vendor::amd : Vendor::nvidia;
}
std::string build_name(const FrameworkProbe& fw) {
  return fw.backend == "hip" ? fmt::format("ROCm (HIP {})", fw.hip.value_or("?"))
                             : fmt::format("CUDA {}", fw.cuda.value_or("?"));
}

std::string strip_features(const std::string& target) {
  return text::lower(target.substr(0, target.find(':')));
}

// The gfx target ROCm uses for `gpu`: HSA_OVERRIDE_GFX_VERSION's when it is valid, else its own.
std::string effective_gfx(const CheckContext& ctx, const Gpu& gpu, std::vector<std::string>& evidence) {
  for (const auto& o : ctx.facts.env.hsa_overrides)
    if (o.name == "HSA_OVERRIDE_GFX_VERSION" && o.gfx_target_version) {
      evidence.push_back(env_evidence(ctx.facts, o.name, o.value));
      return gfx_name(ctx.kb, *o.gfx_target_version);
    }
  return strip_features(gpu.arch());
}

bool no_kernel_image(const std::string& error) {
  std::string e = text::lower(error);
  return text::contains(e, "no kernel image") || text::contains(e, "invalid device function") ||
         text::contains(e, "nobinaryforgpu") || text::contains(e, "no binary for gpu");
}

} // namespace

void torch_arch_missing_from_probe(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  const FrameworkProbe* fw = judgeable(f, out);
  if (!fw) return;
  const Vendor vendor = build_vendor(*fw);
  const std::string list_text = fmt::format("[{}]", text::join(fw->arch_list, ", "));
  bool any = false;
  for (const auto& gpu : f.gpus) {
    if (gpu.vendor != vendor || gpu.arch().empty()) continue;
    any = true;
    if (integrated_beside_discrete(ctx, gpu)) {
      out.skip(gpu.subject(),
               "the processor's integrated GPU beside a discrete one: rocm.igpu-visible judges it");
      continue;
    }
    std::vector<std::string> evidence = {
        gpu_evidence(gpu),
        fmt::format("cmd python-gpu: PyTorch {} ({}) arch list {}", fw->version, build_name(*fw), list_text)};
    std::string arch = vendor == Vendor::nvidia ? gpu.arch() : effective_gfx(ctx, gpu, evidence);
    bool covered = false;
    for (const auto& entry : fw->arch_list)
      covered = covered || arch_rule::entry_runs_on(entry, arch);
    // A device op that failed for want of code says the same, whatever the list claims.
    bool op_failed = false;
    for (const auto& d : fw->devices)
      if (!d.op_ok && no_kernel_image(d.error) &&
          (d.pci_bus_id.empty() || pci_gpu_of(f, d.pci_bus_id) == &gpu)) {
        evidence.push_back(fmt::format("cmd python-gpu: device {}: {}", d.index, first_line(d.error)));
        op_failed = true;
      }
    if (fw->arch_list.empty() && !op_failed) {
      out.skip(gpu.subject(), fmt::format("PyTorch {} reported no arch list", fw->version));
      continue;
    }
    if (covered && !op_failed)
      out.pass(gpu.subject(), fmt::format("PyTorch {} carries code for {}", fw->version, arch), evidence);
    else if (covered)
      out.add(
          Status::error, gpu.subject(),
          fmt::format("PyTorch {} lists {}, yet a tensor op fails for want of code on this GPU: the runtime "
                      "was told another ISA than the GPU has (HSA_OVERRIDE_GFX_VERSION), or the build is "
                      "broken. Unset the override, or reinstall PyTorch.",
                      fw->version, arch),
          evidence);
    else
      out.add(
          Status::error, gpu.subject(),
          fmt::format("PyTorch {0} ({1}) has no code for this GPU's {2} (its arch list: {3}): kernels fail "
                      "with \"no kernel image is available\". Install a build that lists {2}.",
                      fw->version, build_name(*fw), arch, list_text),
          evidence);
  }
  if (!any)
    out.skip(subject_of(*fw), fmt::format("no {} GPU with a known arch for this build", vendor_name(vendor)));
}

void torch_no_device(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  const FrameworkProbe* fw = judgeable(f, out);
  if (!fw) return;
  const Vendor vendor = build_vendor(*fw);
  // The usable GPUs PyTorch was shown (--gpus shows it the chosen ones only).
  const std::size_t usable = std::count_if(f.gpus.begin(), f.gpus.end(), [&](const Gpu& gpu) {
    return gpu.vendor == vendor && has_compute_driver(gpu) && shown_to_probes(f, gpu) &&
           !mig_without_devices(f, gpu); // gpu.mig's finding
  });
  const std::string subject = subject_of(*fw);
  if (usable == 0)
    return out.skip(subject,
                    fmt::format("no usable {} GPU for this {} build", vendor_name(vendor), build_name(*fw)));
  std::vector<std::string> evidence = {run_evidence(fw->run)};
  evidence.push_back(fmt::format("cmd python-gpu: torch.cuda.is_available() = {}, device_count() = {}",
                                 fw->available.value_or(false) ? "True" : "False",
                                 fw->device_count.value_or(0)));
  for (const auto& w : fw->warnings)
    evidence.push_back(fmt::format("cmd python-gpu: warning: {}", w));
  if (!fw->init_error.empty()) evidence.push_back(fmt::format("cmd python-gpu: {}", fw->init_error));
  const int seen = fw->device_count.value_or(0);
  if (seen == 0) {
    std::string said = !fw->warnings.empty()     ? fmt::format(" It warned: {}", fw->warnings.front())
                       : !fw->init_error.empty() ? fmt::format(" It said: {}", fw->init_error)
                                                 : std::string();
    // A container started without its GPUs is one finding, the container check's.
    if (vendor == Vendor::nvidia && nvidia_devices_in_container(f).gpus_missing)
      return out.skip(subject, "the container was started without its GPUs (container.nvidia-devices)");
    if (vendor == Vendor::amd && rocm_devices_in_container(f).kfd_missing)
      return out.skip(subject, "the container was started without /dev/kfd (container.rocm-devices)");
    // CUDA_VISIBLE_DEVICES="" hides every GPU on purpose (or by mistake: env.visible-devices-empty says so).
    if (auto vars = visibility_vars(f, vendor); !vars.empty()) {
      evidence.insert(evidence.end(), vars.begin(), vars.end());
      return out.add(Status::info, subject,
                     fmt::format("PyTorch {} ({}) sees no GPU: {} hides the {} usable {} GPU{} (see "
                                 "env.visible-devices-empty).{}",
                                 fw->version, build_name(*fw), vars.front(), usable, vendor_name(vendor),
                                 usable == 1 ? "" : "s", said),
                     evidence);
    }
    return out.add(Status::error, subject,
                   fmt::format("PyTorch {} ({}) sees no GPU, though {} usable {} GPU{} on the PCI bus.{}",
                               fw->version, build_name(*fw), usable, vendor_name(vendor),
                               usable == 1 ? " is" : "s are", said),
                   evidence);
  }
  std::vector<std::string> broken;
  for (const auto& d : fw->devices) {
    evidence.push_back(fmt::format("cmd python-gpu: device {} {} {}: {}", d.index, d.name, d.arch,
                                   d.op_ok ? "tensor op ok" : first_line(d.error)));
    if (!d.op_ok && !no_kernel_image(d.error))
      broken.push_back(fmt::format("device {}: {}", d.index, first_line(d.error)));
  }
  if (!broken.empty())
    return out.add(
        Status::error, subject,
        fmt::format("PyTorch sees {} device(s) but a tensor op fails on {}", seen, text::join(broken, "; ")),
        evidence);
  bool no_code = false;
  for (const auto& d : fw->devices)
    no_code = no_code || (!d.op_ok && no_kernel_image(d.error));
  out.pass(subject,
           fmt::format("PyTorch {} sees {} device{}{}", fw->version, seen, seen == 1 ? "" : "s",
                       no_code ? " (tensor ops fail for want of code: see torch.arch-missing)"
                               : " and computes on each"),
           evidence);
}

} // namespace gpudoctor::checks
