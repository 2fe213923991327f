#include "app/rooted_view.hpp"

#include "system/process.hpp"
#include "system/root_exec.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <unistd.h>

namespace gpudoctor {

std::optional<std::string> RootedView::resolve(const std::string& path, bool follow_last) {
  std::vector<std::string> todo = text::split(path, '/');
  std::reverse(todo.begin(), todo.end());
  std::vector<std::string> done;
  int hops = 0;
  while (!todo.empty()) {
    std::string part = todo.back();
    todo.pop_back();
    if (part == ".") continue;
    if (part == "..") {
      if (!done.empty()) done.pop_back(); // ".." stops at the root
      continue;
    }
    std::string here = "/" + text::join(done, "/") + (done.empty() ? "" : "/") + part;
    auto target = (todo.empty() && !follow_last) ? std::nullopt : LiveView::read_link(here);
    if (!target) {
      done.push_back(part);
      continue;
    }
    if (++hops > 40) return std::nullopt; // a loop, as ELOOP
    auto more = text::split(*target, '/');
    todo.insert(todo.end(), more.rbegin(), more.rend());
    if (!target->empty() && target->front() == '/') done.clear();
  }
  return "/" + text::join(done, "/");
}

std::optional<std::string> RootedView::read_file(const std::string& path) {
  auto p = resolve(path, true);
  return p ? LiveView::read_file(*p) : std::nullopt;
}

std::optional<std::vector<std::string>> RootedView::list_dir(const std::string& path) {
  auto p = resolve(path, true);
  return p ? LiveView::list_dir(*p) : std::nullopt;
}

std::optional<std::string> RootedView::read_link(const std::string& path) {
  auto p = resolve(path, false);
  return p ? LiveView::read_link(*p) : std::nullopt;
}

std::optional<FileStat> RootedView::stat(const std::string& path) {
  auto p = resolve(path, true);
  return p ? LiveView::stat(*p) : std::nullopt;
}

CommandResult RootedView::run(const CommandSpec& spec) {
  // The Pythons' sys.path probes, and mokutil's Secure Boot state (a test root holds a fake mokutil).
  bool in_dir = spec.key.starts_with("python-env@") || spec.key == "mokutil-sb-state";
  if (in_dir && running_as_root() && !spec.argv.empty()) {
    auto env = environment();
    env["LC_ALL"] = "C";
    // The rule root applies to what it runs, judged below DIR: the program must be DIR's root's.
    ProgramChoice choice = choose_program(spec.argv[0], env["PATH"], spec.as_owner_when_untrusted, m_dir);
    if (choice.path.empty()) {
      CommandResult r;
      r.key = spec.key;
      r.argv = spec.argv;
      r.exit_code = 127; // not found, as on a machine without it
      r.untrusted = std::move(choice.untrusted);
      note_untrusted(r);
      return r;
    }
    CommandSpec in_root = spec;
    in_root.argv = {"chroot", m_dir, choice.path};
    in_root.argv.insert(in_root.argv.end(), spec.argv.begin() + 1, spec.argv.end());
    CommandResult r = run_process(in_root, root_child_environment(env, m_dir));
    r.argv = spec.argv;
    // chroot says 127 when the program is not in DIR (a link out of it): "not found", as on a machine without
    // it.
    if (r.exit_code == 127 && r.err.find("chroot: failed to run command") != std::string::npos)
      r.found = false;
    r.untrusted.insert(r.untrusted.end(), choice.untrusted.begin(), choice.untrusted.end());
    note_untrusted(r);
    return r;
  }
  // rpm reads an RPM root from outside (rpm --root DIR): such a root, made by dnf --installroot on another
  // distribution, has no rpm (nor bash) to chroot into. Its database is where the RHEL family keeps it (the
  // host's rpm may default elsewhere: Debian's to ~/.rpmdb).
  if (!spec.argv.empty() && spec.argv.front() == "rpm") {
    CommandSpec rooted = spec;
    rooted.argv = {"rpm", "--root", m_dir, "--dbpath", "/var/lib/rpm"};
    rooted.argv.insert(rooted.argv.end(), spec.argv.begin() + 1, spec.argv.end());
    auto env = environment();
    env["LC_ALL"] = "C";
    CommandResult r = run_process(rooted, env);
    r.argv = spec.argv;
    note_untrusted(r);
    return r;
  }
  CommandResult r;
  r.key = spec.key;
  r.argv = spec.argv;
  r.found = false; // not run: replayed as "command not found"
  return r;
}

std::map<std::string, std::string> RootedView::environment() {
  auto id = identity();
  return {{"PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
          {"HOME", id.home.empty() ? "/root" : id.home},
          {"USER", id.user},
          {"LANG", "C.UTF-8"}};
}

} // namespace gpudoctor
