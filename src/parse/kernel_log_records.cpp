// The line forms of the kernel log: what precedes the message (a time, a syslog host and tag) is read off,
// and lines that continue a message (indented, without a time) are joined to it.
#include "parse/kernel_log.hpp"
#include "parse/scan.hpp"

#include <array>
#include <functional>

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_message = 4096; // a record joined from many continuation lines stops growing

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!detail::is_digit(c)) return false;
  return true;
}

// "  1843.308145" (raw dmesg, seconds since boot).
bool boot_seconds(std::string_view inside) {
  inside = detail::trim_view(inside);
  std::size_t dot = inside.find('.');
  return dot != std::string_view::npos && all_digits(inside.substr(0, dot)) &&
         all_digits(inside.substr(dot + 1));
}

// "2024-05-11T13:59:53,123456+00:00": dmesg --time-format iso, journalctl -o short-iso[-precise].
bool iso_time(std::string_view token) {
  return token.size() >= 19 && all_digits(token.substr(0, 4)) && token[4] == '-' && token[7] == '-' &&
         token[10] == 'T' && token[13] == ':' && token[16] == ':';
}

// "May 11 13:59:53" or "May 11 13:59:53.123456" (journalctl short / short-precise, syslog files): the
// length of the time, 0 when `s` does not start with one.
std::size_t month_time(std::string_view s) {
  static constexpr std::array<std::string_view, 12> k_months = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                                "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (s.size() < 15) return 0;
  bool month = false;
  for (auto m : k_months)
    month = month || s.starts_with(m);
  if (!month || s[3] != ' ') return 0;
  std::size_t p = 4;
  while (p < s.size() && s[p] == ' ')
    ++p;
  std::size_t day = p;
  while (p < s.size() && detail::is_digit(s[p]))
    ++p;
  if (p == day || p - day > 2 || p + 9 > s.size() || s[p] != ' ') return 0;
  std::string_view clock = s.substr(p + 1, 8);
  if (clock[2] != ':' || clock[5] != ':' || !all_digits(clock.substr(0, 2)) ||
      !all_digits(clock.substr(3, 2)) || !all_digits(clock.substr(6, 2)))
    return 0;
  p += 9;
  if (p < s.size() && s[p] == '.') {
    ++p;
    while (p < s.size() && detail::is_digit(s[p]))
      ++p;
  }
  return p;
}

// After a wall-clock time, journalctl and syslog print "<host> <tag>: ": read both off.
std::string_view after_host_and_tag(std::string_view rest) {
  std::size_t p = 0;
  std::string_view host = detail::next_token(rest, p);
  std::string_view tag = detail::next_token(rest, p);
  if (host.empty() || tag.size() < 2 || tag.back() != ':') return rest;
  while (p < rest.size() && rest[p] == ' ')
    ++p;
  return rest.substr(p);
}

// "[ 2649.203914] msg" inside a syslog line (rsyslog keeps the kernel's own time): the message.
std::string_view without_boot_stamp(std::string_view msg) {
  if (!msg.starts_with('[')) return msg;
  std::size_t close = msg.find(']');
  if (close == std::string_view::npos || close > 24 || !boot_seconds(msg.substr(1, close - 1))) return msg;
  return detail::trim_view(msg.substr(close + 1));
}

// A line that starts a record: its time and message. Empty when the line has no prefix it knows.
std::optional<KernelRecord> record_of(std::string_view line) {
  std::string_view s = line;
  if (s.size() > 2 && s[0] == '<') { // dmesg -r, /dev/kmsg: "<4>"
    std::size_t close = s.find('>');
    if (close != std::string_view::npos && close < 6 && all_digits(s.substr(1, close - 1)))
      s.remove_prefix(close + 1);
  }
  KernelRecord r;
  if (s.starts_with('[')) {
    std::size_t close = s.find(']');
    if (close == std::string_view::npos || close > 40) return std::nullopt;
    std::string_view inside = s.substr(1, close - 1);
    r.boot_relative = boot_seconds(inside);
    if (!r.boot_relative && (inside.size() < 20 || !is_alpha(inside.front()))) return std::nullopt;
    r.time = std::string(detail::trim_view(inside));
    r.message = std::string(detail::trim_view(s.substr(close + 1)));
    return r;
  }
  std::size_t p = 0;
  std::string_view first = detail::next_token(s, p);
  std::string_view rest;
  if (iso_time(first)) {
    r.time = std::string(first);
    rest = detail::trim_view(s.substr(p));
    // dmesg --time-format iso prints the message right after the time; journalctl a host and a tag.
    std::size_t q = 0;
    detail::next_token(rest, q);
    std::string_view tag = detail::next_token(rest, q);
    if (tag.size() > 1 && tag.back() == ':' && tag.find('[') != 0) rest = after_host_and_tag(rest);
  } else if (std::size_t n = month_time(s); n > 0) {
    r.time = std::string(s.substr(0, n));
    rest = after_host_and_tag(detail::trim_view(s.substr(n)));
  } else {
    return std::nullopt;
  }
  r.message = std::string(without_boot_stamp(rest));
  return r;
}

// journalctl's own lines: "-- No entries --", "-- Boot 3c2... --", "-- Logs begin at ... --".
bool journal_marker(std::string_view t) {
  return t.starts_with("-- ") && t.ends_with(" --");
}

} // namespace

void for_each_kernel_record(std::string_view text, const std::function<void(const KernelRecord&)>& fn) {
  KernelRecord current; // held until its continuation lines are in (a plain record: GCC 12's
  bool held = false;    // maybe-uninitialized fires on an optional one in some unity batches)
  auto flush = [&] {
    if (held) fn(current);
    held = false;
  };
  bool open = false; // the current record may take continuation lines
  detail::for_each_line(text, [&](std::string_view line) {
    std::string_view t = detail::trim_view(line);
    if (t.empty() || journal_marker(t)) {
      open = false;
      return;
    }
    if (open && held && detail::indent_of(line) > 0 && !record_of(line)) {
      std::string& m = current.message; // a continuation: indented, no time of its own
      if (m.size() < k_max_message) m.append(" ").append(t.substr(0, k_max_message - m.size()));
      return;
    }
    flush();
    auto r = record_of(line);
    current = r ? std::move(*r) : KernelRecord{{}, false, std::string(t)}; // or pasted without its time
    held = true;
    open = true;
  });
  flush();
}

std::vector<KernelRecord> kernel_records(std::string_view text) {
  std::vector<KernelRecord> out;
  for_each_kernel_record(text, [&](const KernelRecord& r) { out.push_back(r); });
  return out;
}

} // namespace gpudoctor::parse
