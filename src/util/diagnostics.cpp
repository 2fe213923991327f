#include "util/diagnostics.hpp"

#include "util/escape.hpp"
#include "util/wrap.hpp"

#include <cstdio>
#include <mutex>

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

// One write per line under one lock, so that lines of two threads (fleet's readers, the framework probe)
// never interleave inside a line, and a progress line is erased once, by whoever writes next.
std::mutex g_mutex;
bool g_progress_open = false;
bool g_terminal = false;
std::size_t g_columns = 0;

void write_locked(std::string_view text) {
  if (g_progress_open) {
    std::fputs("\r\033[K", stderr);
    g_progress_open = false;
  }
  std::fwrite(text.data(), 1, text.size(), stderr);
}

void write(std::string_view text) {
  std::lock_guard lock(g_mutex);
  write_locked(text);
}

} // namespace

void line(Kind kind, std::string_view text) {
  std::string shown = fmt::format("{}{}", prefix(kind), escape::one_line(text));
  write(wrap_line_with_hang(shown, g_columns, 4) + "\n");
}

void block(std::string_view text) {
  std::string out = escape::terminal(text);
  if (!out.ends_with('\n')) out += '\n';
  write(out);
}

void to_terminal(std::size_t columns) {
  std::lock_guard lock(g_mutex);
  g_terminal = true;
  g_columns = columns;
}

bool shows_progress() {
  std::lock_guard lock(g_mutex);
  return g_terminal;
}

void progress(std::string_view text) {
  std::string shown = fmt::format("gpudoctor: {} ...", escape::one_line(text));
  std::lock_guard lock(g_mutex);
  if (!g_terminal) return;
  write_locked(cut_to_width(shown, g_columns > 0 ? g_columns - 1 : 0));
  std::fflush(stderr);
  g_progress_open = true;
}

void clear_progress() {
  std::lock_guard lock(g_mutex);
  write_locked("");
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
