#include "fix/journal.hpp"

#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor::fix {

namespace {

// A field as gd_journal escaped it: \\, \t, \r and \n stand for a backslash, tab, CR and line feed.
std::string unescape(const std::string& field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '\\' || i + 1 == field.size()) {
      out += field[i];
      continue;
    }
    char c = field[++i];
    out += c == 't' ? '\t' : c == 'r' ? '\r' : c == 'n' ? '\n' : c;
  }
  return out;
}

} // namespace

std::vector<JournalEntry> parse_journal(const std::string& text) {
  std::vector<JournalEntry> out;
  for (const auto& line : text::lines(text)) {
    // bash cannot write a NUL byte, so a line holding one is damage, not an entry (and would reach undo's
    // shell quoting, which cannot quote it).
    if (line.find('\0') != std::string::npos) continue;
    auto f = text::split(line, '\t', true);
    for (auto& field : f)
      field = unescape(field);
    if (f.size() < 4) continue;
    JournalEntry e{f[0], f[1], f[2], f[3], {f.begin() + 4, f.end()}};
    out.push_back(std::move(e));
  }
  return out;
}

RunEffects run_effects(const std::vector<JournalEntry>& journal, const std::vector<std::string>& runs) {
  RunEffects fx;
  auto arg = [](const JournalEntry& e, std::size_t i) {
    return i < e.args.size() ? e.args[i] : std::string{};
  };
  auto add_once = [](std::vector<std::string>& list, const std::string& value) {
    if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
  };
  // A package's first event across the runs says what it was before them: purged (it was installed) or
  // installed (it was not).
  struct FirstTouch {
    bool purged;
    std::string version;
    bool automatic;
  };
  std::map<std::string, FirstTouch> packages;
  std::vector<std::string> package_order, with_entries;
  for (const auto& e : journal) {
    if (std::find(runs.begin(), runs.end(), e.run) == runs.end()) continue;
    fx.found = true;
    add_once(with_entries, e.run);
    if ((e.event == "backup" || e.event == "removed-file") && e.args.size() >= 2) {
      bool known = std::any_of(fx.backups.begin(), fx.backups.end(),
                               [&](const Backup& b) { return b.file == e.args[0]; });
      bool created = std::find(fx.created.begin(), fx.created.end(), e.args[0]) != fx.created.end();
      if (!known && !created) fx.backups.push_back({e.args[0], e.args[1], e.run});
    } else if (e.event == "created" || e.event == "temp-file") { // temp-file: an atomic write's, if left
      bool known = std::any_of(fx.backups.begin(), fx.backups.end(),
                               [&](const Backup& b) { return b.file == arg(e, 0); });
      if (!known) add_once(fx.created, arg(e, 0));
    } else if (e.event == "purge-package" || e.event == "installed-package" || e.event == "install-planned") {
      if (packages.emplace(arg(e, 0), FirstTouch{e.event == "purge-package", arg(e, 1), arg(e, 2) == "auto"})
              .second)
        package_order.push_back(arg(e, 0));
    } else if (e.event == "install-planned-version" && e.args.size() >= 2) {
      add_once(fx.planned_versions, e.args[0] + "-" + e.args[1]);
    } else if (e.event == "removed-tree" || e.event == "removed-link") {
      fx.trees.push_back(arg(e, 0));
    } else if (e.event == "added-group") {
      fx.groups.emplace_back(arg(e, 0), arg(e, 1));
    } else if (e.event == "pip-install" || e.event == "pip-uninstall") {
      fx.pip.push_back(arg(e, 0) + ": " + e.event.substr(4) + " " + arg(e, 1));
    } else if (e.event == "cached-package" && e.args.size() >= 3) {
      fx.cached.emplace(e.args[0], e.args[2]);
    } else if (e.event == "replaced-by-install") {
      fx.replaced = true;
    } else if (e.event == "unheld") {
      add_once(fx.unheld, arg(e, 0));
    } else if (e.event == "versionlock-removed") {
      add_once(fx.versionlocks, arg(e, 0));
    } else if (e.event == "module-reset" || e.event == "module-enabled") {
      // A reset names the stream that was enabled; an enable with no reset before it: none was.
      bool known = std::any_of(fx.module_streams.begin(), fx.module_streams.end(),
                               [&](const auto& m) { return m.first == arg(e, 0); });
      if (!known) fx.module_streams.emplace_back(arg(e, 0), e.event == "module-reset" ? arg(e, 1) : "");
    } else if (e.event == "stopped-service" || e.event == "stopped-process") {
      fx.stopped.push_back(arg(e, 0) + (e.args.size() > 1 ? " (" + arg(e, 1) + ")" : ""));
    } else if (e.event == "start" && e.args.size() >= 2 && fx.family.empty()) {
      fx.family = arg(e, 1);
    } else if (e.event == "undone") {
      add_once(fx.undone_runs, e.run);
    } else if (e.event == "rolled-back") {
      add_once(fx.rolled_back_runs, e.run);
      for (const auto& covered : e.args)
        add_once(fx.rolled_back_runs, covered);
    }
  }
  for (const auto& name : package_order) {
    const FirstTouch& t = packages[name];
    if (t.purged) {
      fx.purged.emplace_back(name, t.version);
      if (t.automatic) fx.auto_marked.push_back(name);
    } else {
      fx.installed.push_back(name);
    }
  }
  fx.undone = fx.found && std::all_of(with_entries.begin(), with_entries.end(), [&](const std::string& r) {
                return std::find(fx.undone_runs.begin(), fx.undone_runs.end(), r) != fx.undone_runs.end();
              });
  return fx;
}

RunEffects run_effects(const std::vector<JournalEntry>& journal, const std::string& run) {
  return run_effects(journal, std::vector<std::string>{run});
}

bool changed_anything(const RunEffects& fx) {
  return !fx.backups.empty() || !fx.created.empty() || !fx.purged.empty() || !fx.installed.empty() ||
         !fx.planned_versions.empty() || !fx.trees.empty() || !fx.groups.empty() || !fx.pip.empty() ||
         !fx.unheld.empty() || !fx.versionlocks.empty() || !fx.module_streams.empty() || !fx.stopped.empty();
}

std::vector<std::string> journal_runs(const std::vector<JournalEntry>& journal) {
  std::vector<std::string> out;
  for (const auto& e : journal)
    if (std::find(out.begin(), out.end(), e.run) == out.end()) out.push_back(e.run);
  return out;
}

} // namespace gpudoctor::fix
