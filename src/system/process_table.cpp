#include "system/process_table.hpp"

#include "system/machine_paths.hpp"
#include "util/file_text.hpp"

#include <cctype>
#include <charconv>
#include <dirent.h>

namespace gpudoctor::proc {

namespace {

// /proc/<pid>/environ can be large; the tag gpudoctor looks for is set last, so all of it is read, up to
// this.
constexpr std::size_t k_max_environ_bytes = 4 << 20;

std::string proc_file(int pid, const char* name) {
  return std::string(paths::proc_root) + "/" + std::to_string(pid) + "/" + name;
}

template <typename T> bool to_number(std::string_view s, T& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && end == s.data() + s.size();
}

} // namespace

std::optional<ProcessInfo> parse_stat(std::string_view stat) {
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so fields start after the last
  // ')'.
  auto open = stat.find(" (");
  auto close = stat.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  ProcessInfo p;
  if (!to_number(stat.substr(0, open), p.pid)) return std::nullopt;
  std::vector<std::string_view> fields; // fields[0] is the state (field 3 of proc(5))
  for (std::size_t i = close + 1; i < stat.size();) {
    while (i < stat.size() && stat[i] == ' ')
      ++i;
    auto end = stat.find(' ', i);
    if (end == std::string_view::npos) end = stat.size();
    if (end > i) fields.push_back(stat.substr(i, end - i));
    i = end;
  }
  if (fields.size() < 20 || fields[0].size() != 1) return std::nullopt;
  p.state = fields[0][0];
  std::string_view start = fields[19];
  if (!start.empty() && start.back() == '\n') start.remove_suffix(1);
  if (!to_number(fields[1], p.ppid) || !to_number(fields[2], p.pgid) || !to_number(start, p.start_time))
    return std::nullopt;
  return p;
}

std::optional<ProcessInfo> process_info(int pid) {
  if (pid <= 0) return std::nullopt;
  auto text = read_whole_file(proc_file(pid, "stat"));
  if (!text) return std::nullopt;
  return parse_stat(*text);
}

std::vector<ProcessInfo> all_processes() {
  std::vector<ProcessInfo> out;
  DIR* dir = ::opendir(paths::proc_root);
  if (!dir) return out;
  while (struct dirent* entry = ::readdir(dir)) {
    int pid = 0;
    std::string_view name = entry->d_name;
    if (!to_number(name, pid)) continue;
    if (auto p = process_info(pid)) out.push_back(*p);
  }
  ::closedir(dir);
  return out;
}

std::optional<std::string> environment_of(int pid) {
  auto text = read_whole_file(proc_file(pid, "environ"));
  if (!text || text->size() > k_max_environ_bytes) return std::nullopt;
  return text;
}

std::optional<std::string> environment_entry(std::string_view all, std::string_view name) {
  for (std::size_t i = 0; i < all.size();) {
    auto end = all.find('\0', i);
    if (end == std::string_view::npos) end = all.size();
    std::string_view entry = all.substr(i, end - i);
    if (entry.size() > name.size() && entry.substr(0, name.size()) == name && entry[name.size()] == '=')
      return std::string(entry.substr(name.size() + 1));
    i = end + 1;
  }
  return std::nullopt;
}

std::string boot_id() {
  auto text = read_whole_file(paths::boot_id);
  if (!text) return {};
  std::string id;
  for (char c : *text)
    if (std::isxdigit(static_cast<unsigned char>(c))) id += c;
  return id;
}

} // namespace gpudoctor::proc
