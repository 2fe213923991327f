#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fnmatch.h>

namespace gpudoctor::text {

std::string trim(std::string_view s) {
  return std::string(trim_view(s));
}

std::vector<std::string> split(std::string_view s, char sep, bool keep_empty) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    if (keep_empty || end > start) out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<std::string> lines(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < s.size()) {
    auto end = s.find('\n', start);
    if (end == std::string_view::npos) end = s.size();
    std::string_view line = s.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.emplace_back(line);
    start = end + 1;
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::optional<long long> to_int(std::string_view s, int base) {
  std::string t = trim(s);
  if (t.empty() || t.size() > 40) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, base);
  if (errno != 0 || end == t.c_str() || *end != '\0') return std::nullopt;
  return v;
}

std::optional<double> to_double(std::string_view s) {
  std::string t = trim(s);
  if (t.empty() || t.size() > 60) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (errno != 0 || end == t.c_str() || *end != '\0') return std::nullopt;
  return v;
}

std::vector<std::pair<std::string, std::string>> key_values(std::string_view s, char sep) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& raw : lines(s)) {
    std::string line = trim(raw);
    if (line.empty() || line[0] == '#') continue;
    auto pos = line.find(sep);
    if (pos == std::string::npos) continue;
    std::string key = trim(line.substr(0, pos));
    std::string value = trim(line.substr(pos + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
      value = value.substr(1, value.size() - 2);
    out.emplace_back(key, value);
  }
  return out;
}

namespace {
std::vector<long long> numeric_parts(std::string_view v) {
  std::vector<long long> parts;
  std::size_t i = 0;
  while (i < v.size() && !std::isdigit(static_cast<unsigned char>(v[i])))
    ++i;
  while (i < v.size()) {
    long long n = 0;
    std::size_t digits = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])) && digits < 15) {
      n = n * 10 + (v[i] - '0');
      ++i;
      ++digits;
    }
    if (digits == 0) break;
    parts.push_back(n);
    if (i < v.size() && v[i] == '.' && i + 1 < v.size() && std::isdigit(static_cast<unsigned char>(v[i + 1])))
      ++i;
    else
      break;
  }
  return parts;
}
} // namespace

int compare_versions(std::string_view a, std::string_view b) {
  auto pa = numeric_parts(a), pb = numeric_parts(b);
  std::size_t n = std::max(pa.size(), pb.size());
  for (std::size_t i = 0; i < n; ++i) {
    long long x = i < pa.size() ? pa[i] : 0, y = i < pb.size() ? pb[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::string version_prefix(std::string_view v, int n) {
  auto parts = numeric_parts(v);
  std::string out;
  for (int i = 0; i < n && i < static_cast<int>(parts.size()); ++i) {
    if (i) out += '.';
    out += std::to_string(parts[i]);
  }
  return out;
}

std::string strip_ansi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\033' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !(s[i] >= '@' && s[i] <= '~'))
        ++i; // parameters up to the final byte
      continue;
    }
    out += s[i];
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows: the one before the previous is what a swap of neighbours reaches back to.
  std::vector<std::size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

bool stays_inside(std::string_view relative_path) {
  if (relative_path.empty() || relative_path.front() == '/') return false;
  for (const auto& part : split(relative_path, '/'))
    if (part == "..") return false;
  return true;
}

bool glob_match(const std::string& pattern, const std::string& name) {
  return ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

bool matches_any_glob(const std::vector<std::string>& globs, const std::string& name) {
  return std::any_of(globs.begin(), globs.end(), [&](const std::string& g) { return glob_match(g, name); });
}

} // namespace gpudoctor::text
