#include "util/package_version.hpp"

#include <cstddef>

namespace gpudoctor {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// An epoch "N:" before the first colon, as a number compared digit-string-wise (no overflow on 30 digits):
// absent or not digits, 0.
std::string_view epoch_of(std::string_view& v) {
  std::size_t colon = v.find(':');
  if (colon == std::string_view::npos) return "0";
  std::string_view e = v.substr(0, colon);
  for (char c : e)
    if (!is_digit(c)) return "0";
  v.remove_prefix(colon + 1);
  return e;
}

// Two digit strings as numbers: leading zeros skipped, then the longer is larger, then the first difference.
int compare_numbers(std::string_view a, std::string_view b) {
  while (!a.empty() && a.front() == '0')
    a.remove_prefix(1);
  while (!b.empty() && b.front() == '0')
    b.remove_prefix(1);
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  int c = a.compare(b);
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

std::string_view digits_at(std::string_view s, std::size_t& i) {
  std::size_t start = i;
  while (i < s.size() && is_digit(s[i]))
    ++i;
  return s.substr(start, i - start);
}

// dpkg's weight of one character of a non-digit run: the end and digits 0, `~` below it, letters by their
// code, anything else after every letter.
int dpkg_weight(std::string_view s, std::size_t i) {
  if (i >= s.size() || is_digit(s[i])) return 0;
  char c = s[i];
  if (c == '~') return -1;
  if (is_alpha(c)) return static_cast<unsigned char>(c);
  return static_cast<unsigned char>(c) + 256;
}

// One part (upstream version or revision): runs of non-digits by weight, then runs of digits as numbers.
int dpkg_part_compare(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    while ((i < a.size() && !is_digit(a[i])) || (j < b.size() && !is_digit(b[j]))) {
      int wa = dpkg_weight(a, i), wb = dpkg_weight(b, j);
      if (wa != wb) return wa < wb ? -1 : 1;
      if (i < a.size() && !is_digit(a[i])) ++i;
      if (j < b.size() && !is_digit(b[j])) ++j;
    }
    if (int c = compare_numbers(digits_at(a, i), digits_at(b, j)); c != 0) return c;
  }
  return 0;
}

// "[epoch:]version[-revision]": the revision after the last '-', as both managers split it.
struct Evr {
  std::string_view epoch, version, revision;
};
Evr split_evr(std::string_view v) {
  Evr e;
  e.epoch = epoch_of(v);
  std::size_t dash = v.rfind('-');
  e.version = dash == std::string_view::npos ? v : v.substr(0, dash);
  e.revision = dash == std::string_view::npos ? std::string_view() : v.substr(dash + 1);
  return e;
}

} // namespace

std::string_view upstream_version(std::string_view v) {
  return split_evr(v).version;
}

int dpkg_version_compare(std::string_view a, std::string_view b) {
  Evr x = split_evr(a), y = split_evr(b);
  if (int c = compare_numbers(x.epoch, y.epoch); c != 0) return c;
  if (int c = dpkg_part_compare(x.version, y.version); c != 0) return c;
  return dpkg_part_compare(x.revision, y.revision);
}

int rpm_field_compare(std::string_view a, std::string_view b) {
  if (a == b) return 0;
  std::size_t i = 0, j = 0;
  auto separator = [](char c) { return !is_digit(c) && !is_alpha(c) && c != '~' && c != '^'; };
  while (i < a.size() || j < b.size()) {
    while (i < a.size() && separator(a[i]))
      ++i;
    while (j < b.size() && separator(b[j]))
      ++j;
    const bool ta = i < a.size() && a[i] == '~', tb = j < b.size() && b[j] == '~';
    if (ta || tb) { // `~` sorts before everything, the end included
      if (!ta) return 1;
      if (!tb) return -1;
      ++i, ++j;
      continue;
    }
    const bool ca = i < a.size() && a[i] == '^', cb = j < b.size() && b[j] == '^';
    if (ca || cb) { // `^` sorts after the end, before anything else
      if (i >= a.size()) return -1;
      if (j >= b.size()) return 1;
      if (!ca) return 1;
      if (!cb) return -1;
      ++i, ++j;
      continue;
    }
    if (i >= a.size() || j >= b.size()) break;
    const bool numeric = is_digit(a[i]);
    std::size_t si = i, sj = j;
    if (numeric) {
      digits_at(a, i);
      digits_at(b, j);
    } else {
      while (i < a.size() && is_alpha(a[i]))
        ++i;
      while (j < b.size() && is_alpha(b[j]))
        ++j;
    }
    std::string_view sa = a.substr(si, i - si), sb = b.substr(sj, j - sj);
    if (sb.empty()) return numeric ? 1 : -1; // segments of different kinds: a number is newer
    int c = numeric ? compare_numbers(sa, sb) : sa.compare(sb);
    if (c != 0) return c < 0 ? -1 : 1;
  }
  if (i >= a.size() && j >= b.size()) return 0;
  return i < a.size() ? 1 : -1;
}

int rpm_version_compare(std::string_view a, std::string_view b) {
  Evr x = split_evr(a), y = split_evr(b);
  if (int c = compare_numbers(x.epoch, y.epoch); c != 0) return c;
  if (int c = rpm_field_compare(x.version, y.version); c != 0) return c;
  if (x.revision.empty() || y.revision.empty()) return 0;
  return rpm_field_compare(x.revision, y.revision);
}

} // namespace gpudoctor
