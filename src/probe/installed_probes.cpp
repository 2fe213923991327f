// The live probe source: programs built with gpudoctor, else compiled from its installed sources.
#include "probe/probe_compile.hpp"
#include "probe/probe_source.hpp"
#include "system/machine_paths.hpp"

#include <algorithm>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

bool executable(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

std::vector<fs::path> beside(const fs::path& exe_dir, const fs::path& relative) {
  return {exe_dir / relative, exe_dir.parent_path() / relative};
}

} // namespace

fs::path own_folder() {
  std::error_code ec;
  fs::path exe = fs::read_symlink(paths::self_exe, ec);
  return ec ? fs::path() : exe.parent_path();
}

InstalledProbes::InstalledProbes(fs::path exe_dir, ProbeSay say, std::vector<std::string> forced)
    : m_exe_dir(std::move(exe_dir)), m_say(std::move(say)), m_forced(std::move(forced)) {}

std::expected<ProbePrograms, std::string> InstalledProbes::programs(const std::string& backend,
                                                                    SystemView& view, const Facts& facts) {
  if (m_exe_dir.empty()) return std::unexpected("cannot tell where the gpudoctor binary is (/proc/self/exe)");
  const std::string host = "gpudoctor-probe-" + backend, kernels = host + "-kernels";
  for (const auto& dir : beside(m_exe_dir, "libexec/gpudoctor"))
    if (executable(dir / host) && executable(dir / kernels))
      return ProbePrograms{(dir / host).string(), (dir / kernels).string(),
                           "built with gpudoctor (" + dir.lexically_normal().string() + ")", true};
  // Prebuilt probes cost nothing to run; compiling costs tens of seconds, to learn that there is no device.
  if (std::ranges::find(m_forced, backend) == m_forced.end())
    if (auto why = probe::nothing_to_probe(backend, facts); !why.empty())
      return std::unexpected(fmt::format("{} (`--backend {}` compiles them anyway)", why, backend));
  return compiled(backend, view, facts);
}

std::expected<ProbePrograms, std::string> InstalledProbes::compiled(const std::string& backend,
                                                                    SystemView& view, const Facts& facts) {
  if (m_exe_dir.empty()) return std::unexpected("cannot tell where the gpudoctor binary is (/proc/self/exe)");
  for (const auto& dir : beside(m_exe_dir, "share/gpudoctor/probes")) {
    std::error_code ec;
    if (fs::is_regular_file(dir / "sources.txt", ec))
      return probe::compile_probes(backend, view, facts, dir.lexically_normal(), m_say);
  }
  return std::unexpected("no prebuilt probes and no probe sources beside gpudoctor (" + m_exe_dir.string() +
                         "/../libexec/gpudoctor, ../share/gpudoctor/probes)");
}

} // namespace gpudoctor
