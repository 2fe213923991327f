#include "engine/result.hpp"

#include "util/shell_word.hpp"

#include <algorithm>

namespace gpudoctor {

std::string status_name(Status s) {
  switch (s) {
  case Status::pass:
    return "pass";
  case Status::info:
    return "info";
  case Status::warn:
    return "warn";
  case Status::error:
    return "error";
  case Status::skip:
    return "skip";
  }
  return "skip";
}

int status_rank(Status s) {
  switch (s) {
  case Status::error:
    return 0;
  case Status::warn:
    return 1;
  case Status::info:
    return 2;
  case Status::pass:
    return 3;
  case Status::skip:
    return 4;
  }
  return 5;
}

Action Action::command(const std::vector<std::vector<std::string>>& commands) {
  // bash cannot hold a NUL byte (shell_quote throws on one, which would lose the whole check's results).
  for (const auto& words : commands)
    for (const auto& w : words)
      if (w.find('\0') != std::string::npos)
        return step(
            "The command for this holds a value with a NUL byte, which no shell can pass: correct the "
            "value by hand.");
  Action a{Kind::command, {}};
  for (const auto& words : commands) {
    if (!a.text.empty()) a.text += "; ";
    for (std::size_t i = 0; i < words.size(); ++i)
      a.text += (i ? " " : "") + shell_quote(words[i]);
  }
  return a;
}

std::string action_kind_name(Action::Kind kind) {
  return kind == Action::Kind::command ? "command" : "step";
}

void Results::add(Status status, std::string subject, std::string message, std::vector<std::string> evidence,
                  FixChoice fixes) {
  Result r;
  r.status = status;
  r.subject = std::move(subject);
  r.message = std::move(message);
  r.evidence = std::move(evidence);
  r.fixes = fixes.ids();
  m_items.push_back(std::move(r));
  m_fixes_from_catalogue.push_back(fixes.from_catalogue());
}

std::string Results::offer_fixes(const std::vector<std::string>& catalogue_fixes,
                                 const std::optional<Action>& catalogue_action) {
  m_fixes_from_catalogue.resize(m_items.size(), true); // items() may have been edited directly
  for (std::size_t i = 0; i < m_items.size(); ++i) {
    Result& r = m_items[i];
    if (!m_fixes_from_catalogue[i]) {
      for (const auto& id : r.fixes)
        if (std::find(catalogue_fixes.begin(), catalogue_fixes.end(), id) == catalogue_fixes.end()) return id;
    } else if (r.status == Status::warn || r.status == Status::error) {
      r.fixes = catalogue_fixes;
    }
    if ((r.status == Status::warn || r.status == Status::error) && r.fixes.empty() && !r.action)
      r.action = catalogue_action;
  }
  return {};
}

} // namespace gpudoctor
