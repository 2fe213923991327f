// What a check concludes (shared/spec/report-v1.md): one Result per check and subject.
#pragma once

#include <string>
#include <vector>

namespace gpudoctor {

enum class Status { pass, info, warn, error, skip };
std::string status_name(Status s);
// Severity order for sorting: error first.
int status_rank(Status s);

struct Result {
  std::string id;
  Status status = Status::pass;
  std::string subject; // "gpu0 (0000:01:00.0)", "python3 (PATH)", or "" for the machine
  std::string title;
  std::string message;
  std::vector<std::string> evidence;
  std::vector<std::string> fixes;
};

// Collects one check's results; the runner fills in id, and the catalogue's title where the check gave none.
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
           std::vector<std::string> fixes = {});
  void pass(std::string subject, std::string message, std::vector<std::string> evidence = {}) {
    add(Status::pass, std::move(subject), std::move(message), std::move(evidence));
  }
  void skip(std::string subject, std::string message) {
    add(Status::skip, std::move(subject), std::move(message));
  }
  const std::vector<Result>& items() const { return m_items; }
  std::vector<Result>& items() { return m_items; }

private:
  std::vector<Result> m_items;
};

} // namespace gpudoctor
