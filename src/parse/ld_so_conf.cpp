// ld.so.conf(5) as glibc's ldconfig reads it: '#' starts a comment, "include" takes one or more glob
// patterns, "hwcap" lines are obsolete, any other line is one directory.
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"

namespace gpudoctor::parse {

namespace {
constexpr std::size_t k_max_conf_entries = 100000;
} // namespace

LdSoConf ld_so_conf(std::string_view text, std::string_view file) {
  LdSoConf out;
  int n = 0;
  detail::for_each_line(text, [&](std::string_view raw) {
    ++n;
    std::string_view line = detail::trim_view(raw.substr(0, raw.find('#')));
    if (line.empty() || out.dirs.size() + out.includes.size() >= k_max_conf_entries) return;
    std::size_t pos = 0;
    std::string_view first = detail::next_token(line, pos);
    if (first == "include" && pos < line.size()) {
      for (std::string_view p = detail::next_token(line, pos); !p.empty(); p = detail::next_token(line, pos))
        if (out.includes.size() < k_max_conf_entries)
          out.includes.push_back({std::string(file), n, std::string(p)});
      return;
    }
    if (first == "hwcap" && pos < line.size()) return;
    // Trailing slashes name the same directory ("/usr/local/lib/").
    while (line.size() > 1 && line.back() == '/')
      line.remove_suffix(1);
    out.dirs.push_back({std::string(file), n, std::string(line)});
  });
  return out;
}

} // namespace gpudoctor::parse
