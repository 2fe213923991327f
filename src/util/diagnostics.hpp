// gpudoctor's own messages on stderr and its exit statuses (shared/spec/report-v1.md: one rule for every
// subcommand). Every message is one line, "gpudoctor: ...", formatted with fmt and escaped whole
// (escape::one_line), so nothing it quotes (a path from the command line, a value from a snapshot) can end
// the line or reach the terminal as a control. This file is the one writer of them:
// tests/lint/source_rules.py fails a write to stderr anywhere else (named exceptions there: the signal path's
// write(2), and child output passed through on purpose).
#pragma once

#include <cstddef>
#include <expected>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace gpudoctor {

enum class Exit : int {
  ok = 0,            // done; check: no error result (with --strict: no warning either)
  findings = 1,      // check: an error result (with --strict: or a warning); diff: the two differ; fix
                     // --apply: a step failed (said with what recovers); undo: one of its actions failed
  usage = 2,         // bad usage or unreadable input, or an output that cannot be written
  internal = 3,      // gpudoctor itself failed
  upload_failed = 4, // bundle --upload: the bundle is written, the upload failed
  interrupted = 130, // SIGINT (SIGTERM: 143); system/lifecycle exits with it from the signal path
};

constexpr int exit_code(Exit e) {
  return static_cast<int>(e);
}

// What stopped a subcommand: its exit status, the one line that says why (without "gpudoctor: "), and the
// commands that recover from it, each said on a line of its own ("    gpudoctor undo").
struct Failure {
  Exit exit = Exit::internal;
  std::string message;
  std::vector<std::string> commands;
};

// A subcommand's end: the status it exits with, or the failure that stopped it (main says it, once).
using Outcome = std::expected<Exit, Failure>;

// The status an outcome exits with (its failure's, if it is one), without saying anything.
inline int exit_code(const Outcome& outcome) {
  return exit_code(outcome ? *outcome : outcome.error().exit);
}

template <class... Args>
std::unexpected<Failure> fail(Exit exit, fmt::format_string<Args...> format, Args&&... args) {
  return std::unexpected(Failure{exit, fmt::format(format, std::forward<Args>(args)...), {}});
}

// A failure with the commands that recover from it.
std::unexpected<Failure> fail_with(Exit exit, std::string message, std::vector<std::string> commands);

namespace diag {

enum class Kind { plain, warning, note, detail };

// Writes one line: "gpudoctor: TEXT", "gpudoctor: warning: TEXT", "gpudoctor: note: TEXT", or for `detail`
// (what continues the line before: a command to run, a reason) "    TEXT". TEXT is escaped to one line.
void line(Kind kind, std::string_view text);

// Text that is several lines by design (a fix's gate, CLI11's usage): escaped for a terminal, lines kept.
void block(std::string_view text);

// Says that stderr is a terminal, `columns` wide (0: its width is unknown), which main learns once
// (system/terminal.hpp): then messages wrap to the width, continued under four spaces, and progress lines
// show. Until it is said, stderr is taken for a log or a pipe: lines as they are, no progress.
void to_terminal(std::size_t columns);

// A progress line, left open on a terminal ("gpudoctor: recording this machine ..."), cut to one terminal
// line: the next progress line or message erases it first (carriage return, erase to the end of the line),
// and clear_progress() at the end of a stage. Nothing on a log or a pipe: it keeps only what happened.
void progress(std::string_view text);
void clear_progress();
// Whether progress() shows anything: stderr is a terminal.
bool shows_progress();

template <class... Args> void error(fmt::format_string<Args...> format, Args&&... args) {
  line(Kind::plain, fmt::format(format, std::forward<Args>(args)...));
}
// What gpudoctor did or found, not a problem ("wrote node07.tar.gz"): the same "gpudoctor: " line.
template <class... Args> void say(fmt::format_string<Args...> format, Args&&... args) {
  line(Kind::plain, fmt::format(format, std::forward<Args>(args)...));
}
template <class... Args> void warning(fmt::format_string<Args...> format, Args&&... args) {
  line(Kind::warning, fmt::format(format, std::forward<Args>(args)...));
}
template <class... Args> void note(fmt::format_string<Args...> format, Args&&... args) {
  line(Kind::note, fmt::format(format, std::forward<Args>(args)...));
}
template <class... Args> void detail(fmt::format_string<Args...> format, Args&&... args) {
  line(Kind::detail, fmt::format(format, std::forward<Args>(args)...));
}

// Says the failure (its line, then each command indented) and gives its exit status.
int report(const Failure& failure);

// The exit status of an outcome, saying its failure if it is one.
int finish(const Outcome& outcome);

} // namespace diag

} // namespace gpudoctor
