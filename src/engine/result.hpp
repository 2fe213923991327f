// What a check concludes (shared/spec/report-v1.md): one Result per check and subject.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

enum class Status { pass, info, warn, error, skip };
std::string status_name(Status s);
// Severity order for sorting: error first.
int status_rank(Status s);

// What to do where no recipe of the fix catalogue can (docs/checks.md, "How results are shaped"): a command
// line to run, its words quoted as bash reads them back (they may come from a stranger's snapshot), or a step
// only a person can take (reseat a card, a firmware setting, a container's flag).
struct Action {
  enum class Kind { command, step };
  Kind kind = Kind::step;
  std::string text;
  // Commands run one after the other ("unset A; export B=1"), each a list of words quoted here; a word with
  // a NUL byte makes it a step instead.
  static Action command(const std::vector<std::vector<std::string>>& commands);
  static Action step(std::string text) { return {Kind::step, std::move(text)}; }
};
std::string action_kind_name(Action::Kind kind);

struct Result {
  std::string id;
  Status status = Status::pass;
  std::string subject; // "gpu0 (0000:01:00.0)", "python3 (PATH)", or "" for the machine
  std::string title;
  std::string message;
  std::vector<std::string> evidence;
  std::vector<std::string> fixes;
  std::optional<Action> action;
  // What tells apart several results of one check about one subject (the Xid code): stable from run to
  // run, so that a series, a JUnit test case and a diff's row follow it. "" where a check gives one result a
  // subject (shared/spec/report-v1.md, docs/checks.md).
  std::string key;
};

// The fixes a result offers. checks/catalogue.yaml's `fixes:` is the one place a check is linked to its
// fixes: a warn or error result offers its entry's, unless the check chose some of them (where the entry
// lists several and the machine decides which apply) or none (`no_fix`: none applies to this result).
class FixChoice {
public:
  FixChoice() = default; // the catalogue entry's
  FixChoice(std::initializer_list<std::string> ids) : m_chosen(true), m_ids(ids) {}
  static FixChoice none() { return FixChoice(true); }
  bool from_catalogue() const { return !m_chosen; }
  const std::vector<std::string>& ids() const { return m_ids; }

private:
  explicit FixChoice(bool chosen) : m_chosen(chosen) {}
  bool m_chosen = false;
  std::vector<std::string> m_ids;
};
inline const FixChoice no_fix = FixChoice::none();

// Collects one check's results; the runner fills in id, the catalogue's title where the check gave none, and
// the catalogue's fixes where it chose none.
class Results {
public:
  // A result whose own title replaces the catalogue's, which names the check's problem: for an info result
  // that is not that problem (a title must be true for the result it heads).
  void add_titled(Status status, std::string subject, std::string title, std::string message,
                  std::vector<std::string> evidence = {}) {
    add(status, std::move(subject), std::move(message), std::move(evidence));
    m_items.back().title = std::move(title);
  }
  void add(Status status, std::string subject, std::string message, std::vector<std::string> evidence = {},
           FixChoice fixes = {});
  void pass(std::string subject, std::string message, std::vector<std::string> evidence = {}) {
    add(Status::pass, std::move(subject), std::move(message), std::move(evidence));
  }
  void skip(std::string subject, std::string message) {
    add(Status::skip, std::move(subject), std::move(message));
  }
  // What to do about the result added last, where no fix recipe can do it.
  void act(Action action) { m_items.back().action = std::move(action); }
  // The key of the result added last: what tells it from the check's other results about its subject.
  void key(std::string key) { m_items.back().key = std::move(key); }
  const std::vector<Result>& items() const { return m_items; }
  std::vector<Result>& items() { return m_items; }
  // The runner: each warn and error result that chose no fixes offers `catalogue_fixes` (its entry's), and
  // one left with neither a fix nor an action of its own takes `catalogue_action` (its entry's). The first
  // fix a result chose that is not among them, or "" when there is none.
  std::string offer_fixes(const std::vector<std::string>& catalogue_fixes,
                          const std::optional<Action>& catalogue_action = std::nullopt);

private:
  std::vector<Result> m_items;
  std::vector<bool> m_fixes_from_catalogue; // one per item
};

} // namespace gpudoctor
