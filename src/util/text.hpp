// Small string helpers shared by parsers. All are pure and never throw.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::text {

// The blanks of every parser and of the bundle's excerpts (which must split lines exactly as the parsers
// do): space, tab, CR, LF, VT and FF.
inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}
// `s` without its leading and trailing blanks (a view into `s`).
inline std::string_view trim_view(std::string_view s) {
  while (!s.empty() && is_blank(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back()))
    s.remove_suffix(1);
  return s;
}
std::string trim(std::string_view s);
std::vector<std::string> split(std::string_view s, char sep, bool keep_empty = false);
std::vector<std::string> lines(std::string_view s);
bool starts_with(std::string_view s, std::string_view prefix);
bool ends_with(std::string_view s, std::string_view suffix);
bool contains(std::string_view s, std::string_view part);
std::string lower(std::string_view s);
std::string join(const std::vector<std::string>& parts, std::string_view sep);

// Integers: decimal, or hex with a 0x prefix when `base` is 0. Empty on garbage or overflow.
std::optional<long long> to_int(std::string_view s, int base = 10);
std::optional<double> to_double(std::string_view s);

// "KEY=VALUE" lines (os-release style, quotes removed); later keys win.
std::vector<std::pair<std::string, std::string>> key_values(std::string_view s, char sep = '=');

// Compares dotted versions numerically component by component ("570.124.06" > "570.26"); a missing
// component counts as 0 and a non-numeric tail is ignored. Returns <0, 0 or >0.
int compare_versions(std::string_view a, std::string_view b);
// The first `n` numeric components of a version, joined by '.', e.g. major_minor("12.4.131", 2) = "12.4".
std::string version_prefix(std::string_view v, int n);

// Removes terminal escape sequences (rocminfo colours its errors even into a pipe).
std::string strip_ansi(std::string_view s);

// A relative path whose names cannot climb out of the folder it is taken in: not empty, not absolute, no
// ".." part (links are the reader's business). An archive member's name, a snapshot's recorded file.
bool stays_inside(std::string_view relative_path);

// Shell-style globs (fnmatch, no flags): "rocm-*", "libnvidia-*-580".
bool glob_match(const std::string& pattern, const std::string& name);
bool matches_any_glob(const std::vector<std::string>& globs, const std::string& name);

// Edit distance for "did you mean": insertions, deletions, substitutions and swaps of neighbours, one each
// (optimal string alignment).
std::size_t edit_distance(std::string_view a, std::string_view b);

} // namespace gpudoctor::text
