#include "parse/parsers_system.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor::parse {

std::string PasswdEntry::full_name() const {
  return text::trim(std::string_view(gecos).substr(0, gecos.find(',')));
}

std::vector<PasswdEntry> passwd(std::string_view text) {
  std::vector<PasswdEntry> out;
  for (const auto& line : text::lines(text)) {
    auto f = text::split(line, ':', true);
    if (f.size() < 7 || f[0].empty()) continue;
    out.push_back({f[0], text::to_int(f[2], 10), f[4], f[5], f[6]});
  }
  return out;
}

std::pair<long long, long long> login_defs_uid_range(std::string_view text) {
  std::pair<long long, long long> range{1000, 60000};
  for (auto line : text::lines(text)) {
    std::replace(line.begin(), line.end(), '\t', ' ');
    auto words = text::split(line, ' ');
    if (words.size() < 2) continue;
    auto value = text::to_int(words[1], 10);
    if (!value) continue;
    if (words[0] == "UID_MIN") range.first = *value;
    if (words[0] == "UID_MAX") range.second = *value;
  }
  return range;
}

} // namespace gpudoctor::parse
