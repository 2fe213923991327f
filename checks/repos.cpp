// repo.codename-mismatch, repo.unreachable: the GPU vendor repositories and wheel indexes configured here.
#include "checks/common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"
#include "util/url_text.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

// The OS release a repository source names.
struct NamedRelease {
  std::string family;  // "ubuntu", "debian", "el", "fedora", "sles"
  std::string version; // "22.04", "12", "9", "9.4"
  std::string how;     // "suite jammy", "directory ubuntu2204", "directory el/9.4"
};

bool all_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// A path component such as "ubuntu2204", "ubuntu22.04", "debian12", "rhel9", "el9", "fedora39", "sles15".
std::optional<NamedRelease> release_dir(const std::string& c) {
  static const std::pair<const char*, const char*> prefixes[] = {
      {"ubuntu", "ubuntu"}, {"debian", "debian"}, {"rhel", "el"},      {"el", "el"},
      {"fedora", "fedora"}, {"sles", "sles"},     {"opensuse", "sles"}};
  for (const auto& [prefix, family] : prefixes) {
    if (!text::starts_with(c, prefix)) continue;
    std::string rest = c.substr(std::string(prefix).size());
    std::string version;
    if (std::string(family) == "ubuntu" && rest.size() == 4 && all_digits(rest))
      version = fmt::format("{}.{}", rest.substr(0, 2), rest.substr(2)); // NVIDIA's ubuntu2204
    else if (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest[0])) &&
             std::all_of(rest.begin(), rest.end(),
                         [](char x) { return std::isdigit(static_cast<unsigned char>(x)) || x == '.'; }))
      version = rest;
    if (version.empty()) continue;
    return NamedRelease{family, version, fmt::format("directory {}", c)};
  }
  return std::nullopt;
}

std::optional<NamedRelease> release_named(const RepoSource& s, const Knowledge& kb) {
  if (s.kind == "apt" && !s.suite.empty() && !text::ends_with(s.suite, "/")) {
    std::string suite = text::lower(s.suite.substr(0, s.suite.find_first_of("-/")));
    if (auto d = kb.distro_by_codename("ubuntu", suite))
      return NamedRelease{"ubuntu", d->version, fmt::format("suite {}", s.suite)};
  }
  std::string uri = text::lower(s.uri);
  if (auto scheme = uri.find("://"); scheme != std::string::npos) uri = uri.substr(scheme + 3);
  auto parts = text::split(uri, '/');
  for (std::size_t i = 1; i < parts.size(); ++i) {
    // AMD's dnf trees: .../amdgpu/6.2/rhel/9.4/main, .../el/9.6/...
    if ((parts[i] == "rhel" || parts[i] == "el" || parts[i] == "sle") && i + 1 < parts.size() &&
        !parts[i + 1].empty() && std::isdigit(static_cast<unsigned char>(parts[i + 1][0])))
      return NamedRelease{parts[i] == "sle" ? "sles" : "el", parts[i + 1],
                          fmt::format("directory {}/{}", parts[i], parts[i + 1])};
    if (auto r = release_dir(parts[i])) return r;
  }
  return std::nullopt;
}

struct OsRelease {
  std::string family;  // as NamedRelease
  std::string version; // the version a repository should name
  std::string name;    // for messages: "Ubuntu 24.04 (noble)"
};

std::optional<OsRelease> repo_os_release(const Facts& f, const Knowledge& kb) {
  if (!f.os.id) return std::nullopt;
  std::string id = *f.os.id;
  auto like = [&](const char* base) {
    return std::find(f.os.id_like.begin(), f.os.id_like.end(), base) != f.os.id_like.end();
  };
  std::string version = f.os.version_id ? *f.os.version_id : "";
  if (id == "ubuntu" || (like("ubuntu") && f.repos.ubuntu_codename)) {
    std::string codename = id == "ubuntu" && f.os.codename ? *f.os.codename
                           : f.repos.ubuntu_codename       ? *f.repos.ubuntu_codename
                                                           : "";
    std::string base = id == "ubuntu" ? version : "";
    if (auto d = kb.distro_by_codename("ubuntu", codename)) base = d->version;
    if (base.empty()) return std::nullopt;
    std::string name =
        codename.empty() ? fmt::format("Ubuntu {}", base) : fmt::format("Ubuntu {} ({})", base, codename);
    if (id != "ubuntu")
      name = fmt::format("{}, based on {}", f.os.pretty_name ? *f.os.pretty_name : id, name);
    return OsRelease{"ubuntu", base, name};
  }
  if (version.empty()) return std::nullopt;
  std::string pretty = f.os.pretty_name ? *f.os.pretty_name : fmt::format("{} {}", id, version);
  if (id == "debian") return OsRelease{"debian", text::version_prefix(version, 1), pretty};
  if (id == "fedora") return OsRelease{"fedora", version, pretty};
  if (id == "sles" || id == "opensuse-leap") return OsRelease{"sles", version, pretty};
  if (id == "rhel" || id == "centos" || id == "rocky" || id == "almalinux" || id == "ol" || like("rhel"))
    return OsRelease{"el", version, pretty};
  return std::nullopt;
}

std::string repo_family_name(const std::string& family) {
  return family == "ubuntu"   ? "Ubuntu"
         : family == "debian" ? "Debian"
         : family == "el"     ? "RHEL"
         : family == "fedora" ? "Fedora"
                              : "SLES";
}

std::string vendor_title(const std::string& v) {
  return v == "amd" ? "AMD" : v == "nvidia" ? "NVIDIA" : "PyTorch";
}

// Whether `named` (9) matches `os` (9.4): the components the repository names must agree.
bool same_release(const std::string& named, const std::string& os) {
  auto a = text::split(named, '.'), b = text::split(os, '.');
  std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    auto x = text::to_int(a[i]), y = text::to_int(b[i]);
    if (!x || !y || *x != *y) return false;
  }
  return n > 0;
}

} // namespace

void repo_codename_mismatch(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  bool any = false;
  auto os = repo_os_release(f, ctx.kb);
  for (const auto& s : f.repos.sources) {
    if (!s.enabled || s.kind == "pip") continue;
    any = true;
    std::vector<std::string> evidence = {s.suite.empty()
                                             ? fmt::format("{}: {}", s.origin, s.uri)
                                             : fmt::format("{}: {} {}", s.origin, s.uri, s.suite)};
    if (!s.release_specific) {
      out.pass(s.origin,
               fmt::format("{}'s repository {} serves every OS release", vendor_title(s.vendor), s.uri),
               evidence);
      continue;
    }
    auto named = release_named(s, ctx.kb);
    if (!named) {
      out.pass(s.origin,
               fmt::format("names no OS release gpudoctor knows ({})", s.suite.empty() ? s.uri : s.suite),
               evidence);
      continue;
    }
    if (!os) {
      out.skip(s.origin, "the OS release is unknown");
      continue;
    }
    evidence.push_back(fmt::format("{}: {}", f.os.id.source, os->name));
    // AMD publishes Ubuntu suites only; which one a Debian release should use is not in the tables.
    if (named->family == "ubuntu" && os->family != "ubuntu" && s.vendor == "amd" &&
        named->how.rfind("suite", 0) == 0) {
      out.pass(
          s.origin,
          fmt::format("an Ubuntu suite ({}) of AMD's repository on {}: AMD has no suites of its own for it",
                      s.suite, os->name),
          evidence);
      continue;
    }
    std::string named_text =
        fmt::format("{} {} ({})", repo_family_name(named->family), named->version, named->how);
    if (named->family == os->family && same_release(named->version, os->version)) {
      out.pass(s.origin, fmt::format("names {}, this OS's release", named_text), evidence);
      continue;
    }
    std::string fix;
    if (os->family == "ubuntu" && named->how.rfind("suite", 0) == 0) {
      auto d = ctx.kb.distro_by_version("ubuntu", os->version);
      if (d)
        fix =
            fmt::format(" Replace {} by {}, if {} publishes this release for it (otherwise install a release "
                        "that does).",
                        s.suite, d->codename, vendor_title(s.vendor));
    } else if (os->family == "ubuntu" && named->family == "ubuntu") {
      std::string dir = fmt::format("ubuntu{}", os->version);
      std::erase(dir, '.');
      fix = fmt::format(" Use the {} directory instead.", dir);
    }
    if (fix.empty()) fix = fmt::format(" Point it at the repository for {}.", os->name);
    out.add(
        Status::error, s.origin,
        fmt::format("{} points {}'s repository at {}, but this is {}: {} then installs packages built for "
                    "another release (broken dependencies, a kernel driver that does not build) or finds "
                    "none.{}",
                    s.origin, vendor_title(s.vendor), named_text, os->name, s.kind, fix),
        evidence);
  }
  if (!any) out.skip("", "no GPU vendor apt or dnf repository configured");
}

void repo_unreachable(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  if (f.repos.sources.empty()) return out.skip("", "no GPU vendor repository or wheel index configured");
  if (!f.repos.online)
    return out.skip("", "not checked: run gpudoctor check --online on the machine to fetch them");
  if (f.repos.probes.empty()) return out.skip("", "no enabled repository with a URL gpudoctor can fetch");
  std::vector<std::string> proxies;
  for (const char* var : {"https_proxy", "HTTPS_PROXY", "http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY"})
    if (auto it = f.env.all.find(var); it != f.env.all.end())
      proxies.push_back(env_evidence(ctx.facts, var, url_without_credentials(it->second)));
  for (const auto& p : f.repos.probes) {
    std::string url = url_without_credentials(p.url);
    std::vector<std::string> evidence = {fmt::format("{}: fetched {}", p.origin, url)};
    if (p.reached) {
      out.pass(url, fmt::format("answered HTTP {} in {} ms", p.http_status.value_or(0), p.duration_ms),
               evidence);
      continue;
    }
    std::string why = p.http_status ? fmt::format("answered HTTP {}", *p.http_status) : p.error;
    evidence.push_back(fmt::format("http: {}", why));
    evidence.insert(evidence.end(), proxies.begin(), proxies.end());
    std::string hint = p.http_status
                           ? "the path does not exist there (a wrong release or version in the source) or a "
                             "proxy refuses it"
                           : "check the proxy settings (https_proxy, no_proxy), DNS, a firewall, and the "
                             "clock (TLS certificates)";
    out.add(
        Status::warn, url,
        fmt::format("{} (configured in {}) cannot be fetched: {}. Package installs and updates from it fail "
                    "the same way; {}.",
                    url, p.origin, why, hint),
        evidence);
  }
}

} // namespace gpudoctor::checks
