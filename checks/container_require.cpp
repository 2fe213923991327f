// container.cuda-require: an image's NVIDIA_REQUIRE_* against the host driver it runs on, evaluated as the
// NVIDIA container toolkit does (libnvidia-container src/cli/dsl.c and configure.c at 63d366ee): every
// variable must hold; a variable holds when one of its space-separated alternatives has all its constraints
// true, on each GPU the container sees (once without a GPU when it sees none); a value the host does not
// report counts as true. In legacy mode the toolkit refuses to start a container that fails; one that runs
// anyway was started with NVIDIA_DISABLE_REQUIRE or through CDI, which does not check, and its CUDA programs
// fail.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

// What the toolkit compares a constraint with: the host driver's CUDA version (cuDriverGetVersion) and driver
// version, a GPU's compute capability and NVML brand; empty: not known, which passes.
struct Host {
  std::string cuda, driver, arch, brand;
};

// "sm_90" -> "9.0", "sm_100" -> "10.0": the compute capability the toolkit's arch= compares; "" otherwise.
std::string capability_of(const std::string& arch) {
  if (!text::starts_with(arch, "sm_") || arch.size() < 5) return {};
  return arch.substr(3, arch.size() - 4) + "." + arch.back();
}

bool holds(const NvidiaRequireConstraint& c, const Host& host) {
  const std::string& have = c.key == "cuda"     ? host.cuda
                            : c.key == "driver" ? host.driver
                            : c.key == "arch"   ? host.arch
                                                : host.brand;
  if (have.empty()) return true;
  if (c.key == "brand") return (text::lower(have) == text::lower(c.value)) == (c.op == "=");
  int cmp = text::compare_versions(have, c.value); // a missing part counts as 0: 12.4 == 12.4.0
  return c.op == "="    ? cmp == 0
         : c.op == "!=" ? cmp != 0
         : c.op == "<"  ? cmp < 0
         : c.op == "<=" ? cmp <= 0
         : c.op == ">"  ? cmp > 0
                        : cmp >= 0;
}

// The index of the first alternative that holds; -1 when none does.
int satisfied_by(const NvidiaRequirement& r, const Host& host) {
  for (std::size_t i = 0; i < r.size(); ++i)
    if (std::ranges::all_of(r[i], [&](const NvidiaRequireConstraint& c) { return holds(c, host); }))
      return static_cast<int>(i);
  return -1;
}

std::string shown(const std::string& value) {
  return value.size() > 120 ? value.substr(0, 120) + "..." : value;
}

} // namespace

void container_cuda_require(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (!f.os.in_container) return out.skip("", "not inside a container: the host has no image requirement");
  const auto& vars = f.containers.nvidia_requirements;
  if (vars.empty()) return out.skip("", "the image sets no NVIDIA_REQUIRE_* (and no CUDA_VERSION)");
  const auto& nv = f.nvidia;
  const std::string driver = nv.smi_driver_version      ? *nv.smi_driver_version
                             : nv.kernel_module_version ? *nv.kernel_module_version
                                                        : std::string();
  if (driver.empty()) return out.skip("", "no NVIDIA driver is visible in this container");
  const std::string cuda = nv.smi_cuda_version ? *nv.smi_cuda_version : std::string();
  std::vector<Host> hosts;
  for (const auto& s : nv.smi_gpus) {
    const Gpu* gpu = f.gpu_of(s);
    hosts.push_back({cuda, driver, gpu ? capability_of(gpu->arch()) : std::string(), s.brand});
  }
  if (hosts.empty()) hosts.push_back({cuda, driver, "", ""}); // no GPU: arch and brand pass
  std::vector<std::string> evidence = {
      fmt::format("{}: driver {}, CUDA {}",
                  nv.smi_driver_version ? nv.smi_driver_version.source : nv.kernel_module_version.source,
                  driver, cuda.empty() ? "unknown" : cuda)};
  for (const auto& v : vars)
    evidence.push_back(fmt::format("env {}={}", v.name, shown(v.value)));
  if (f.containers.nvidia_disable_require) evidence.push_back("env NVIDIA_DISABLE_REQUIRE (true)");
  bool compat = false;
  for (const auto& v : vars) {
    if (!v.parsed) {
      out.add(Status::warn, v.name,
              fmt::format(
                  "{}={} is no expression the NVIDIA container toolkit can read (\"invalid expression\"): "
                  "in its legacy mode it refuses to start the container. Fix the image's {} (terms like "
                  "cuda>=12.4, comma for AND, space for OR).",
                  v.name, shown(v.value), v.name),
              evidence);
      out.act(
          Action::step(fmt::format("Correct or remove {} in the image (its Dockerfile's ENV line)", v.name)));
      return;
    }
    for (const auto& host : hosts) {
      int by = satisfied_by(*v.parsed, host);
      if (by > 0) compat = true;
      if (by >= 0) continue;
      std::string first = v.value.substr(0, v.value.find(' '));
      std::string how = f.containers.nvidia_disable_require
                            ? "NVIDIA_DISABLE_REQUIRE let the container start anyway"
                            : "the toolkit did not check it (CDI mode checks no requirement)";
      out.add(Status::error, v.name,
              fmt::format(
                  "The image requires {} ({}) but the host's driver {} supports CUDA {}{}: {}, and CUDA "
                  "programs here fail (\"CUDA driver version is insufficient for CUDA runtime version\"). "
                  "Update the host's driver to one for that CUDA, or run an image built for CUDA {} or "
                  "older.",
                  first, v.name, driver, host.cuda.empty() ? "?" : host.cuda,
                  host.brand.empty() ? "" : fmt::format(" (GPU brand {})", host.brand), how,
                  host.cuda.empty() ? "?" : host.cuda),
              evidence);
      out.act(Action::step(
          fmt::format("Install a host driver that supports the image's CUDA ({}), or use an image "
                      "built for CUDA {} or older",
                      first, host.cuda.empty() ? "?" : host.cuda)));
      return;
    }
  }
  out.pass("",
           compat
               ? fmt::format(
                     "the host's driver {} meets the image's requirements through its forward-compatibility "
                     "terms (brand and driver branch: the image's cuda-compat libraries)",
                     driver)
               : fmt::format("the host's driver {} meets the image's requirements", driver),
           evidence);
}

} // namespace gpudoctor::checks
