#include "util/diagnostics.hpp"

#include "util/escape.hpp"

#include <cstdio>

namespace gpudoctor {

std::unexpected<Failure> fail_with(Exit exit, std::string message, std::vector<std::string> commands) {
  return std::unexpected(Failure{exit, std::move(message), std::move(commands)});
}

namespace diag {

namespace {

constexpr std::string_view prefix(Kind kind) {
  switch (kind) {
  case Kind::plain:
    return "gpudoctor: ";
  case Kind::warning:
    return "gpudoctor: warning: ";
  case Kind::note:
    return "gpudoctor: note: ";
  case Kind::detail:
    return "    ";
  }
  return "gpudoctor: ";
}

// One write per line, so that lines of two threads (fleet's readers) never interleave inside a line.
void write(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
}

} // namespace

void line(Kind kind, std::string_view text) {
  write(fmt::format("{}{}\n", prefix(kind), escape::one_line(text)));
}

void block(std::string_view text) {
  std::string out = escape::terminal(text);
  if (!out.ends_with('\n')) out += '\n';
  write(out);
}

void progress(std::string_view text) {
  write(fmt::format("gpudoctor: {} ...", escape::one_line(text)));
}

void clear_progress() {
  write("\r\033[K");
}

int report(const Failure& failure) {
  line(Kind::plain, failure.message);
  for (const auto& command : failure.commands)
    line(Kind::detail, command);
  return exit_code(failure.exit);
}

int finish(const Outcome& outcome) {
  return outcome ? exit_code(*outcome) : report(outcome.error());
}

} // namespace diag

} // namespace gpudoctor
