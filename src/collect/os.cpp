#include "collect/collectors.hpp"
#include "parse/parsers.hpp"
#include "system/machine_paths.hpp"
#include "util/text.hpp"

namespace gpudoctor {

void collect_os(SystemView& view, OsFacts& os) {
  for (const char* path : {"/etc/os-release", "/usr/lib/os-release"}) {
    auto text = view.read_file(path);
    if (!text) continue;
    auto rel = parse::os_release(*text);
    std::string src = file_source(path);
    if (!rel.id.empty()) os.id = {rel.id, src};
    if (!rel.version_id.empty()) os.version_id = {rel.version_id, src};
    if (!rel.codename.empty()) os.codename = {rel.codename, src};
    if (!rel.pretty_name.empty()) os.pretty_name = {rel.pretty_name, src};
    os.id_like = rel.id_like;
    break;
  }
  // The kernel's own files; `uname -r` would give the same and cost a process.
  if (auto release = view.read_file(paths::kernel_release))
    os.kernel_release = {text::trim(*release), paths::kernel_release};
  if (auto cmdline = view.read_file(paths::kernel_cmdline))
    os.kernel_cmdline = {text::trim(*cmdline), paths::kernel_cmdline};
  if (auto arch = view.read_file(paths::kernel_arch))
    os.architecture = {text::trim(*arch), paths::kernel_arch};
  if (os.kernel_release && text::contains(text::lower(*os.kernel_release), "microsoft")) os.wsl = true;

  if (view.exists("/.dockerenv")) {
    os.in_container = true;
    os.container_evidence = "/.dockerenv exists";
  } else if (view.exists("/run/.containerenv")) {
    os.in_container = true;
    os.container_evidence = "/run/.containerenv exists";
  } else if (auto cgroup = view.read_file(paths::init_cgroup)) {
    for (const char* marker : {"docker", "kubepods", "containerd", "lxc", "libpod"})
      if (text::contains(*cgroup, marker)) {
        os.in_container = true;
        os.container_evidence = std::string(paths::init_cgroup) + " mentions " + marker;
        break;
      }
  }
}

} // namespace gpudoctor
