// gpudoctor undo: the last apply's journal read back; its backups restored, what it removed listed.
#include "fix/apply.hpp"
#include "fix/apply_state.hpp"
#include "fix/journal.hpp"
#include "fix/script_text.hpp"
#include "system/machine_paths.hpp"
#include "util/atomic_file.hpp"
#include "util/escape.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <expected>
#include <filesystem>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

namespace gpudoctor::fix {

using escape::one_line;

namespace {

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words)
    out += " " + shell_quote(w);
  return out;
}

// Runs a package command as root (in `chroot ROOT` for tests), or prints it for the user to run. `shown`:
// how to print it when the argv is long (a hundred cached .debs).
int package_command(const std::vector<std::string>& argv, const std::string& root, const char* what,
                    const std::string& shown = {}) {
  std::string text = shown.empty() ? joined(argv).substr(1) : shown;
  if (::geteuid() != 0) {
    std::printf("\n%s; as root:\n  %s\n", what, joined(argv).c_str() + 1);
    return 0;
  }
  std::printf("\n%s:\n  %s\n", what, one_line(text).c_str());
  int status = run_attached(argv, root);
  if (status != 0) std::fprintf(stderr, "gpudoctor: that failed (exit status %d)\n", status);
  return status == 0 ? 0 : 1;
}

// The packages of the run: the old ones back first (from the script's cache: their repository may be gone),
// then what the run installed out (the old ones already satisfy what needs either), then the holds and locks.
int undo_packages(const RunEffects& fx, const std::string& root, bool rhel) {
  int failures = 0;
  std::vector<std::string> from_cache, by_name, purged_names;
  for (const auto& [name, version] : fx.purged) {
    purged_names.push_back(name);
    auto it = fx.cached.find(name);
    std::error_code ec;
    if (!rhel && it != fx.cached.end() && std::filesystem::exists(root + it->second, ec))
      from_cache.push_back(it->second);
    else
      by_name.push_back(name + (version.empty() ? "" : (rhel ? "-" : "=") + version));
  }
  if (!from_cache.empty()) {
    std::vector<std::string> argv = {"env",
                                     "DEBIAN_FRONTEND=noninteractive",
                                     "apt-get",
                                     "install",
                                     "-y",
                                     "-q",
                                     "--allow-downgrades",
                                     "--no-install-recommends"};
    argv.insert(argv.end(), from_cache.begin(), from_cache.end());
    std::string dir = from_cache.front().substr(0, from_cache.front().rfind('/'));
    failures += package_command(argv, root, "The run removed packages; they come back from its cache",
                                "apt-get install --allow-downgrades " + std::to_string(from_cache.size()) +
                                    " .deb files of " + dir);
    if (!fx.auto_marked.empty()) {
      std::vector<std::string> mark = {"apt-mark", "auto"};
      mark.insert(mark.end(), fx.auto_marked.begin(), fx.auto_marked.end());
      failures +=
          package_command(mark, root, "apt had installed some of them as dependencies; so marked again");
    }
  }
  if (!by_name.empty()) {
    std::string cmd = rhel ? "dnf install" : "apt-get install";
    std::printf("\nThe run removed packages that are not in its cache; this reinstalls them from their\n"
                "repositories (restored above, when the run removed them):\n  %s%s\n",
                cmd.c_str(), joined(by_name).c_str());
  }
  std::vector<std::string> installed;
  for (const auto& name : fx.installed)
    if (std::find(purged_names.begin(), purged_names.end(), name) == purged_names.end() &&
        std::find(installed.begin(), installed.end(), name) == installed.end())
      installed.push_back(name);
  if (!installed.empty()) {
    std::vector<std::string> argv =
        rhel ? std::vector<std::string>{"dnf", "remove", "-y"}
             : std::vector<std::string>{"env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "purge", "-y",
                                        "-q"};
    argv.insert(argv.end(), installed.begin(), installed.end());
    failures += package_command(argv, root, "The run installed packages; they go");
  }
  if (!fx.unheld.empty()) {
    std::vector<std::string> argv = {"apt-mark", "hold"};
    argv.insert(argv.end(), fx.unheld.begin(), fx.unheld.end());
    failures += package_command(argv, root, "The run released holds; they are held again");
  }
  for (const auto& entry : fx.versionlocks)
    failures += package_command({"dnf", "-q", "versionlock", "add", entry}, root,
                                "The run removed a version lock; it is back");
  for (const auto& s : fx.stopped)
    std::printf("The run stopped %s; start it again if it should run.\n", one_line(s).c_str());
  return failures;
}

std::expected<void, std::string> append_line(const std::string& file, const std::string& line) {
  std::FILE* out = std::fopen(file.c_str(), "ae");
  if (!out) return std::unexpected(fmt::format("cannot write {}: {}", file, std::strerror(errno)));
  bool written = std::fputs(line.c_str(), out) >= 0;
  int err = errno;
  if (std::fclose(out) != 0 && written) {
    written = false;
    err = errno;
  }
  if (!written) return std::unexpected(fmt::format("cannot write {}: {}", file, std::strerror(err)));
  return {};
}

// The steps of this apply ran through sudo: the journal and the backups are root's, so root undoes it, from
// this user's state file (which sudo's root would not find in its own state folder).
int undo_as_root(const std::string& state_file, bool yes) {
  std::error_code ec;
  std::string self = std::filesystem::read_symlink(paths::self_exe, ec).string();
  std::vector<std::string> argv = {"sudo", "--",      self.empty() ? "gpudoctor" : self,
                                   "undo", "--state", state_file};
  if (yes) argv.push_back("--yes");
  if (!have_sudo()) {
    std::fprintf(stderr,
                 "gpudoctor: the last apply ran its steps as root, so its journal and backups are root's; "
                 "as root, run:\n  %s\n",
                 joined({"gpudoctor", "undo", "--state", state_file}).c_str() + 1);
    return 2;
  }
  std::printf("The last apply ran its steps as root: undoing it through sudo.\n");
  std::fflush(stdout);
  return run_attached(argv);
}

} // namespace

int undo_last_apply(const std::string& root, bool yes, const std::string& state_file) {
  std::string path = state_file.empty() ? state_dir(root) + "/last-apply.json" : state_file;
  auto doc = parse_json(read_text(path));
  if (!doc || !doc->is_object()) {
    std::fprintf(stderr, "gpudoctor: no apply to undo (%s)\n", one_line(path).c_str());
    return 2;
  }
  Record rec{*doc, path};
  if (rec.doc.value("needs_root", false) && root.empty() && ::geteuid() != 0) return undo_as_root(path, yes);
  std::string journal = rec.doc.value("journal", ""), run = rec.doc.value("run", "");
  RunEffects fx = run_effects(parse_journal(read_text(journal)), run);
  if (rec.doc.value("status", "") == "undone" || fx.undone) {
    std::printf("The last apply (%s) was undone already.\n",
                one_line(rec.doc.value("script_id", "")).c_str());
    return 0;
  }
  if (!fx.found) {
    std::printf("The journal %s has nothing of run %s: nothing to undo.\n", one_line(journal).c_str(),
                one_line(run).c_str());
    return 0;
  }
  if (!yes && !confirm("Restore " + std::to_string(fx.backups.size()) + " files and remove " +
                       std::to_string(fx.created.size()) + " that run " + one_line(run) + " created?")) {
    std::fprintf(stderr, "gpudoctor: nothing was undone%s\n", ::isatty(STDIN_FILENO) ? "" : " (pass --yes)");
    return 2;
  }
  int failures = 0;
  for (auto it = fx.backups.rbegin(); it != fx.backups.rend(); ++it) {
    auto r = atomic_copy(root + it->second, root + it->first);
    std::printf("%s %s\n", r ? "restored" : "could not restore", one_line(it->first).c_str());
    if (!r) {
      std::fprintf(stderr, "  %s\n", one_line(r.error()).c_str());
      ++failures;
    }
  }
  for (const auto& f : fx.created) {
    std::error_code ec;
    if (std::filesystem::remove(root + f, ec))
      std::printf("removed %s (the run created it)\n", one_line(f).c_str());
  }
  bool rhel = rec.doc.value("family", "") == "rhel";
  failures += undo_packages(fx, root, rhel);
  for (const auto& t : fx.trees)
    std::printf("Not restored (removed without a backup): %s\n", one_line(t).c_str());
  for (const auto& [user, group] : fx.groups)
    std::printf("Added %s to %s; to undo: gpasswd -d %s %s\n", one_line(user).c_str(),
                one_line(group).c_str(), shell_quote(user).c_str(), shell_quote(group).c_str());
  for (const auto& p : fx.pip)
    std::printf("pip: %s\n", one_line(p).c_str());
  if (failures) return 1;
  char stamp[32];
  std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  // Unrecorded, a second undo would restore the same backups over what came after: say so, exit 2.
  if (auto noted = append_line(journal, fmt::format("{}\t{}\t-\tundone\n", stamp, run)); !noted) {
    std::fprintf(stderr, "gpudoctor: the files are restored, but %s\n", one_line(noted.error()).c_str());
    return 2;
  }
  rec.doc["status"] = "undone";
  return rec.save() ? 0 : 2;
}

} // namespace gpudoctor::fix
