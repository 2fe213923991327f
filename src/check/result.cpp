#include "check/result.hpp"

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

void Results::add(Status status, std::string subject, std::string message, std::vector<std::string> evidence,
                  std::vector<std::string> fixes) {
  Result r;
  r.status = status;
  r.subject = std::move(subject);
  r.message = std::move(message);
  r.evidence = std::move(evidence);
  r.fixes = std::move(fixes);
  m_items.push_back(std::move(r));
}

} // namespace gpudoctor
