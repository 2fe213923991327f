// python.libs-shadowed: libraries that shadow those of the nvidia-* wheels PyTorch depends on. The wheels'
// own libraries find each other through RUNPATH, which LD_LIBRARY_PATH comes before: a system CUDA's
// libnvJitLink, libcusparse or libnccl there is loaded instead, and an older one fails with "undefined
// symbol" (the classic after a toolkit upgrade). Mixed cu11 / cu12 / cu13 nvidia-* wheels in one environment
// are another major's libraries beside the ones PyTorch needs.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

// "nvidia-cublas-cu12" -> "cu12".
std::string major_tag(const std::string& dist) {
  auto dash = dist.rfind('-');
  if (dash == std::string::npos) return {};
  std::string tag = dist.substr(dash + 1);
  bool digits =
      tag.size() > 2 && std::all_of(tag.begin() + 2, tag.end(), [](char c) { return c >= '0' && c <= '9'; });
  return text::starts_with(tag, "cu") && digits ? tag : std::string();
}

} // namespace

void python_libs_shadowed(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  bool any = false;
  for (const auto& env : f.python.envs) {
    std::map<std::string, std::vector<std::string>> by_major; // cu11 -> dists
    std::vector<std::string> leftovers; // the nvidia-* wheels of a major this PyTorch was not built with
    std::string own =
        env.torch && env.torch->cuda ? "cu" + env.torch->cuda->substr(0, env.torch->cuda->find('.')) : "";
    for (const auto& d : env.distributions)
      if (text::starts_with(d.name, "nvidia-"))
        if (auto tag = major_tag(d.name); !tag.empty()) {
          by_major[tag].push_back(fmt::format("{} {}", d.name, d.version));
          if (!own.empty() && tag != own) leftovers.push_back(d.name);
        }
    if (env.wheel_libs.empty() && by_major.empty()) continue;
    any = true;
    std::vector<std::string> findings, evidence;
    if (by_major.size() > 1) {
      std::vector<std::string> parts;
      for (const auto& [tag, dists] : by_major) {
        parts.push_back(fmt::format("{} ({})", tag, dists.size()));
        evidence.push_back(fmt::format("{} wheels: {}", tag, text::join(dists, ", ")));
      }
      findings.push_back(
          fmt::format("nvidia-* wheels of several CUDA majors are installed together ({}): the ones "
                      "PyTorch was not built with are leftovers, and whichever loads first wins",
                      text::join(parts, ", ")));
    }
    // The wheels' libraries by file name.
    std::map<std::string, std::string> wheel_file; // libnvJitLink.so.12 -> .../nvidia/nvjitlink/lib
    for (const auto& [dir, names] : env.wheel_libs)
      for (const auto& n : names)
        if (text::contains(n, ".so")) wheel_file.emplace(n, dir);
    std::set<std::string> reported, shadowing_dirs;
    for (const auto& d : f.host.loader_dirs) {
      if (d.origin != "env LD_LIBRARY_PATH" || !d.files) continue;
      std::vector<std::string> shadowing;
      for (const auto& n : *d.files) {
        auto it = wheel_file.find(n);
        if (it == wheel_file.end() || text::starts_with(d.dir, it->second) || !reported.insert(n).second)
          continue;
        shadowing.push_back(n);
        evidence.push_back(
            fmt::format("env LD_LIBRARY_PATH: {} holds {} (the wheel's: {})", d.dir, n, it->second));
      }
      if (!shadowing.empty()) shadowing_dirs.insert(d.dir);
      if (!shadowing.empty())
        findings.push_back(
            fmt::format("{} on LD_LIBRARY_PATH holds {}, loaded instead of the nvidia-* wheels' "
                        "copies",
                        d.dir, text::join(shadowing, ", ")));
    }
    if (findings.empty()) {
      out.pass(
          python_subject(env),
          fmt::format("{} nvidia-* wheel libraries, none shadowed on LD_LIBRARY_PATH", wheel_file.size()));
      continue;
    }
    out.add(
        Status::warn, python_subject(env),
        fmt::format("{}. Libraries of another CUDA release than the wheels' end in \"undefined symbol\" "
                    "errors (such as __nvJitLinkComplete_12_4) when torch or its extensions load. Take the "
                    "toolkit's lib64 off LD_LIBRARY_PATH for this environment, and uninstall the nvidia-* "
                    "wheels of the other major.",
                    text::join(findings, "; ")),
        evidence);
    // LD_LIBRARY_PATH without the folders that shadow the wheels, and the other majors' wheels gone where
    // this PyTorch's CUDA says which those are.
    std::vector<std::vector<std::string>> commands;
    if (!shadowing_dirs.empty()) {
      std::vector<std::string> kept;
      if (auto it = f.env.all.find("LD_LIBRARY_PATH"); it != f.env.all.end())
        for (const auto& dir : text::split(it->second, ':'))
          if (!shadowing_dirs.count(dir)) kept.push_back(dir);
      commands.push_back(
          kept.empty() ? std::vector<std::string>{"unset", "LD_LIBRARY_PATH"}
                       : std::vector<std::string>{"export", "LD_LIBRARY_PATH=" + text::join(kept, ":")});
    }
    if (by_major.size() > 1)
      if (auto words = pip_uninstall(env, leftovers); !words.empty()) commands.push_back(words);
    if (!commands.empty())
      out.act(Action::command(commands));
    else
      out.act(
          Action::step("Uninstall the nvidia-* wheels of the CUDA major this environment's PyTorch was not "
                       "built with (python -m pip list | grep nvidia-)."));
  }
  if (!any) out.skip("", "no environment with nvidia-* wheels found");
}

} // namespace gpudoctor::checks
