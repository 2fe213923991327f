// `apt-cache policy NAME...` (snapshot key apt-cache-policy): where apt has each package's installed version
// from. A package's block starts at an unindented "NAME:" line; in its version table, the installed version's
// line is " *** VERSION PRIORITY", and the lines below it that are more indented name its sources
// ("500 http://deb.debian.org/debian trixie/non-free amd64 Packages", "100 /var/lib/dpkg/status"). Only the
// hosts of URL sources are kept; a linear scan that skips what it cannot read.
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/url_text.hpp"

#include <algorithm>

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_packages = 100'000;
constexpr std::size_t k_max_hosts = 16; // per package: more sources of one version are noise

} // namespace

std::map<std::string, std::vector<std::string>> apt_policy_sources(std::string_view text) {
  std::map<std::string, std::vector<std::string>> out;
  std::string name;
  std::size_t version_indent = 0;
  bool in_installed = false;
  detail::for_each_line(text, [&](std::string_view line) {
    std::string_view trimmed = detail::trim_view(line);
    if (trimmed.empty()) return;
    std::size_t indent = detail::indent_of(line);
    if (indent == 0) {
      in_installed = false;
      name.clear();
      // "nvidia-driver:" or "libc6:amd64:" (a multi-arch name): the package, without the architecture.
      if (trimmed.back() != ':' || out.size() >= k_max_packages) return;
      std::string_view n = trimmed.substr(0, trimmed.size() - 1);
      n = n.substr(0, n.find(':'));
      if (!n.empty() && n.find(' ') == std::string_view::npos) name = std::string(n);
      return;
    }
    if (name.empty()) return;
    if (trimmed.starts_with("***")) {
      in_installed = true;
      version_indent = indent;
      return;
    }
    if (!in_installed) return;
    // Another version's line ("     535.247.01-1 500": its version where the installed one's follows "*** ")
    // ends the installed version's sources, which are indented deeper.
    if (indent <= version_indent + 4) {
      in_installed = false;
      return;
    }
    std::size_t pos = 0;
    detail::next_token(trimmed, pos); // the priority
    std::string_view source = detail::next_token(trimmed, pos);
    std::string host = source.find("://") == std::string_view::npos ? std::string() : url_host(source);
    auto& hosts = out[name];
    if (!host.empty() && hosts.size() < k_max_hosts &&
        std::find(hosts.begin(), hosts.end(), host) == hosts.end())
      hosts.push_back(host);
  });
  return out;
}

} // namespace gpudoctor::parse
