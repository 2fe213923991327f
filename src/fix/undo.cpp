// gpudoctor undo: the last apply's journal read back; its backups restored, what it removed listed.
#include "fix/apply.hpp"
#include "fix/apply_state.hpp"
#include "fix/journal.hpp"
#include "fix/script_text.hpp"
#include "util/atomic_file.hpp"
#include "util/escape.hpp"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

namespace gpudoctor::fix {

using escape::one_line;

int undo_last_apply(const std::string& root, bool yes) {
  std::string path = state_dir(root) + "/last-apply.json";
  auto doc = parse_json(read_text(path));
  if (!doc || !doc->is_object()) {
    std::fprintf(stderr, "gpudoctor: no apply to undo (%s)\n", one_line(path).c_str());
    return 2;
  }
  Record rec{*doc, path};
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
  if (!fx.purged.empty()) {
    std::string cmd = rhel ? "dnf install" : "apt-get install";
    for (const auto& [name, version] : fx.purged)
      cmd += " " + shell_quote(name + (version.empty() ? "" : (rhel ? "-" : "=") + version));
    std::printf(
        "\nThe run removed packages; this reinstalls them (from their repositories, which the run may have\n"
        "removed too: restored above):\n  %s\n",
        cmd.c_str());
  }
  if (!fx.installed.empty()) {
    std::string cmd = rhel ? "dnf remove" : "apt-get purge";
    for (const auto& name : fx.installed)
      cmd += " " + shell_quote(name);
    std::printf("\nThe run installed packages; this removes them:\n  %s\n", cmd.c_str());
  }
  for (const auto& t : fx.trees)
    std::printf("Not restored (removed without a backup): %s\n", one_line(t).c_str());
  for (const auto& [user, group] : fx.groups)
    std::printf("Added %s to %s; to undo: gpasswd -d %s %s\n", one_line(user).c_str(),
                one_line(group).c_str(), shell_quote(user).c_str(), shell_quote(group).c_str());
  for (const auto& p : fx.pip)
    std::printf("pip: %s\n", one_line(p).c_str());
  if (failures) return 1;
  {
    std::ofstream out(journal, std::ios::app);
    char stamp[32];
    std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    out << stamp << '\t' << run << "\t-\tundone\n";
  }
  rec.doc["status"] = "undone";
  rec.save();
  return 0;
}

} // namespace gpudoctor::fix
