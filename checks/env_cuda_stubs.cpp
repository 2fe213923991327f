// env.cuda-stubs: a CUDA toolkit's stubs folder (lib64/stubs: link-time stand-ins for the driver's libraries)
// on the path the dynamic loader searches. Programs then load the stub instead of the driver's libcuda.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

bool is_stubs(const std::string& dir) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/')
    d.pop_back();
  return text::ends_with(d, "/stubs");
}

bool has(const LoaderDir& d, const std::string& name) {
  return d.files && std::ranges::find(*d.files, name) != d.files->end();
}

// The LIBRARY_PATH stubs folders: the linker's, which programs never load (NVIDIA's devel images set it).
std::vector<std::string> link_time_stubs(const Facts& f) {
  std::vector<std::string> out;
  if (auto it = f.env.all.find("LIBRARY_PATH"); it != f.env.all.end())
    for (const auto& e : text::split(it->second, ':'))
      if (is_stubs(e)) out.push_back(e);
  return out;
}

} // namespace

void env_cuda_stubs(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  bool any = false;
  for (const auto& d : f.host.loader_dirs) {
    if (!is_stubs(d.dir)) continue;
    any = true;
    std::vector<std::string> stubs;
    if (d.files)
      for (const auto& name : *d.files)
        if (text::starts_with(name, "libcuda.so") || text::starts_with(name, "libnvidia-ml.so"))
          stubs.push_back(name);
    std::vector<std::string> evidence = {
        fmt::format("{}: {}", d.origin, d.dir),
        fmt::format("{}: {}", d.dir, stubs.empty() ? std::string("(no libcuda)") : text::join(stubs, " "))};
    if (has(d, "libcuda.so.1")) {
      out.add(
          Status::error, d.dir,
          fmt::format("{} ({}) is a CUDA toolkit's stubs folder holding a libcuda.so.1: every CUDA program "
                      "loads this stub instead of the driver and fails with \"CUDA driver version is "
                      "insufficient\" or error 34 (stub library). Remove the folder from the loader's path "
                      "(and the libcuda.so.1 someone linked into it).",
                      d.dir, d.origin),
          evidence);
    } else {
      out.add(Status::warn, d.dir,
              fmt::format("{} ({}) is a CUDA toolkit's stubs folder: programs that dlopen(\"libcuda.so\") "
                          "(Triton, torch.compile, JAX) load the stub instead of the driver{}. Stubs are for "
                          "linking (LIBRARY_PATH), not for running: remove it from the loader's path.",
                          d.dir, d.origin, has(d, "libcuda.so") ? "" : " when it holds one"),
              evidence);
    }
  }
  if (any) return;
  auto linker = link_time_stubs(f);
  if (!linker.empty())
    return out.pass(
        "",
        fmt::format("only LIBRARY_PATH names a stubs folder ({}): the linker's path, which programs "
                    "never load",
                    text::join(linker, ", ")),
        {fmt::format("env LIBRARY_PATH={}", f.env.all.at("LIBRARY_PATH"))});
  out.pass("", "no stubs folder on LD_LIBRARY_PATH or in ld.so.conf");
}

} // namespace gpudoctor::checks
