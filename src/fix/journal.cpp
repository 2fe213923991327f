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

RunEffects run_effects(const std::vector<JournalEntry>& journal, const std::string& run) {
  RunEffects fx;
  auto arg = [](const JournalEntry& e, std::size_t i) {
    return i < e.args.size() ? e.args[i] : std::string{};
  };
  for (const auto& e : journal) {
    if (e.run != run) continue;
    fx.found = true;
    if ((e.event == "backup" || e.event == "removed-file") && e.args.size() >= 2) {
      bool known = std::any_of(fx.backups.begin(), fx.backups.end(),
                               [&](const auto& b) { return b.first == e.args[0]; });
      bool created = std::find(fx.created.begin(), fx.created.end(), e.args[0]) != fx.created.end();
      if (!known && !created) fx.backups.emplace_back(e.args[0], e.args[1]);
    } else if (e.event == "created") {
      bool known = std::any_of(fx.backups.begin(), fx.backups.end(),
                               [&](const auto& b) { return b.first == arg(e, 0); });
      if (!known) fx.created.push_back(arg(e, 0));
    } else if (e.event == "purge-package") {
      fx.purged.emplace_back(arg(e, 0), arg(e, 1));
      if (arg(e, 2) == "auto") fx.auto_marked.push_back(arg(e, 0));
    } else if (e.event == "installed-package") {
      fx.installed.push_back(arg(e, 0));
    } else if (e.event == "removed-tree" || e.event == "removed-link") {
      fx.trees.push_back(arg(e, 0));
    } else if (e.event == "added-group") {
      fx.groups.emplace_back(arg(e, 0), arg(e, 1));
    } else if (e.event == "pip-install" || e.event == "pip-uninstall") {
      fx.pip.push_back(arg(e, 0) + ": " + e.event.substr(4) + " " + arg(e, 1));
    } else if (e.event == "cached-package" && e.args.size() >= 3) {
      fx.cached[e.args[0]] = e.args[2];
    } else if (e.event == "unheld") {
      fx.unheld.push_back(arg(e, 0));
    } else if (e.event == "versionlock-removed") {
      fx.versionlocks.push_back(arg(e, 0));
    } else if (e.event == "stopped-service" || e.event == "stopped-process") {
      fx.stopped.push_back(arg(e, 0) + (e.args.size() > 1 ? " (" + arg(e, 1) + ")" : ""));
    } else if (e.event == "undone") {
      fx.undone = true;
    }
  }
  return fx;
}

} // namespace gpudoctor::fix
