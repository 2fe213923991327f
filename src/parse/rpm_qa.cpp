// `rpm -qa` output: gpudoctor's own --queryformat "%{NAME} %{VERSION}-%{RELEASE}\n", or rpm's default
// NEVRA lines "name-version-release.arch" (names may contain '-'; version and release may not).
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/package_version.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <array>

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_packages = 1'000'000;

constexpr std::array<std::string_view, 16> k_arches = {
    "x86_64", "noarch",  "aarch64", "i686", "i586",  "i386",    "ppc64le",   "ppc64",
    "s390x",  "armv7hl", "armhfp",  "src",  "nosrc", "riscv64", "x86_64_v2", "loongarch64"};

bool token_ok(std::string_view s) {
  if (s.empty() || s.size() > 512) return false;
  for (char c : s)
    if (detail::is_space(c) || static_cast<unsigned char>(c) < 0x20) return false;
  return true;
}

// "1:2.3" -> epoch "1", version "2.3".
void split_epoch(std::string_view& version, std::string& epoch) {
  std::size_t colon = version.find(':');
  if (colon == std::string_view::npos) return;
  std::string_view e = version.substr(0, colon);
  if (e.empty() || !std::all_of(e.begin(), e.end(), [](char c) { return detail::is_digit(c); })) return;
  epoch = std::string(e);
  version.remove_prefix(colon + 1);
}

// "version-release" (the last '-' separates them).
bool split_vr(std::string_view vr, RpmPackage& p) {
  std::size_t dash = vr.rfind('-');
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == vr.size()) return false;
  std::string_view version = vr.substr(0, dash);
  split_epoch(version, p.epoch);
  if (version.empty()) return false;
  p.version = std::string(version);
  p.release = std::string(vr.substr(dash + 1));
  return true;
}

std::optional<RpmPackage> query_format_line(std::string_view line) {
  std::size_t pos = 0;
  std::string_view name = detail::next_token(line, pos), vr = detail::next_token(line, pos);
  if (!token_ok(name) || !token_ok(vr) || !detail::next_token(line, pos).empty()) return std::nullopt;
  RpmPackage p{.name = std::string(name)};
  if (!split_vr(vr, p)) return std::nullopt;
  return p;
}

std::optional<RpmPackage> nevra_line(std::string_view line) {
  if (!token_ok(line)) return std::nullopt;
  RpmPackage p;
  std::size_t dot = line.rfind('.');
  if (dot != std::string_view::npos) {
    std::string_view arch = line.substr(dot + 1);
    if (std::find(k_arches.begin(), k_arches.end(), arch) != k_arches.end()) {
      p.arch = std::string(arch);
      line = line.substr(0, dot);
    }
  }
  std::size_t release_dash = line.rfind('-');
  if (release_dash == std::string_view::npos || release_dash == 0) return std::nullopt;
  std::size_t version_dash = line.rfind('-', release_dash - 1);
  if (version_dash == std::string_view::npos || version_dash == 0) return std::nullopt;
  p.name = std::string(line.substr(0, version_dash));
  if (!split_vr(line.substr(version_dash + 1), p)) return std::nullopt;
  // Versions start with a digit in practice ("foo-bar-baz" is no package line); gpg-pubkey's "version" is
  // a key id ("gpg-pubkey-d42d0685-62e9b6a2").
  if (!detail::is_digit(p.version.front()) && p.arch.empty() && p.name != "gpg-pubkey") return std::nullopt;
  return p;
}

} // namespace

std::string RpmPackage::evr() const {
  std::string vr = version + "-" + release;
  return epoch.empty() ? vr : epoch + ":" + vr;
}

std::vector<RpmPackage> rpm_qa(std::string_view text) {
  std::vector<RpmPackage> out;
  detail::for_each_line(text, [&](std::string_view raw) {
    std::string_view line = detail::trim_view(raw);
    if (line.empty() || out.size() >= k_max_packages) return;
    auto p = line.find_first_of(" \t") != std::string_view::npos ? query_format_line(line) : nevra_line(line);
    if (p) out.push_back(std::move(*p));
  });
  return out;
}

std::map<std::string, std::string> rpm_qa_versions(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto& p : rpm_qa(text)) {
    std::string vr = p.version + "-" + p.release;
    auto [it, added] = out.emplace(p.name, vr);
    if (added) continue;
    // Several installed (kernels): the newest in rpm's order, "5.14.0-503.el9" over "5.14.0-427.el9",
    // "2.1.0-1" over "2.1.0~rc1-1".
    if (rpm_version_compare(vr, it->second) > 0) it->second = vr;
  }
  return out;
}

} // namespace gpudoctor::parse
