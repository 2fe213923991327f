// `check --online`: fetches what apt, dnf and pip would fetch first from each configured GPU vendor
// repository and wheel index (an apt InRelease, a dnf repomd.xml, a pip project page), in parallel, each with
// its own time limit. Only on a live machine: a replayed snapshot would test this machine's network, not the
// recorded one.
#include "collect/collectors.hpp"
#include "util/http.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <future>

namespace gpudoctor {

namespace {

constexpr std::size_t k_max_probes = 16;

std::string without_trailing_slash(std::string s) {
  while (!s.empty() && s.back() == '/')
    s.pop_back();
  return s;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// The URL apt/dnf/pip fetch first for a source; empty when it still names a variable gpudoctor cannot fill.
std::string first_fetch(const RepoSource& s, const OsFacts& os) {
  std::string arch = os.architecture ? *os.architecture : "x86_64";
  std::string deb_arch = arch == "x86_64" ? "amd64" : arch == "aarch64" ? "arm64" : arch;
  std::string url;
  if (s.kind == "apt") {
    std::string uri = without_trailing_slash(replace_all(s.uri, "$(ARCH)", deb_arch));
    std::string suite = replace_all(s.suite, "$(ARCH)", deb_arch);
    if (text::ends_with(suite, "/"))
      url = uri + "/" + (suite == "/" ? "" : suite) + "InRelease";
    else
      url = uri + "/dists/" + suite + "/InRelease";
  } else if (s.kind == "dnf") {
    std::string major = os.version_id ? text::version_prefix(*os.version_id, 1) : "";
    url = replace_all(s.uri, "$basearch", arch);
    if (!major.empty()) url = replace_all(url, "$releasever", major);
    bool list = text::contains(url, "mirrorlist") || text::contains(url, "metalink");
    if (!list) url = without_trailing_slash(url) + "/repodata/repomd.xml";
  } else {
    url = without_trailing_slash(s.uri) + "/torch/";
  }
  if (url.find('$') != std::string::npos) return {};
  if (!text::starts_with(url, "http://") && !text::starts_with(url, "https://")) return {};
  return url;
}

RepoProbe fetch(const std::string& url, const std::string& origin, std::chrono::milliseconds timeout) {
  HttpRequest req;
  req.url = url;
  req.timeout = timeout;
  HttpResponse r = http_request(req);
  // Some servers refuse HEAD; a small GET then says whether the file is there.
  if (r.completed && (r.status == 405 || r.status == 501)) {
    req.method = "GET";
    req.max_body_bytes = 4096;
    r = http_request(req);
  }
  RepoProbe p;
  p.url = url;
  p.origin = origin;
  p.duration_ms = r.duration_ms;
  if (r.completed) {
    p.http_status = r.status;
    p.reached = r.status > 0 && r.status < 400;
  } else {
    p.error = r.error_kind.empty() ? r.error : r.error_kind + ": " + r.error;
  }
  return p;
}

} // namespace

void probe_repos(const CollectOptions& opt, const OsFacts& os, RepoFacts& repos) {
  repos.online = true;
  std::vector<std::pair<std::string, std::string>> targets; // url, origin
  for (const auto& s : repos.sources) {
    if (!s.enabled) continue;
    std::string url = first_fetch(s, os);
    if (url.empty()) continue;
    bool known = std::any_of(targets.begin(), targets.end(), [&](const auto& t) { return t.first == url; });
    if (!known && targets.size() < k_max_probes) targets.emplace_back(url, s.origin);
  }
  std::vector<std::future<RepoProbe>> running;
  for (const auto& [url, origin] : targets)
    running.push_back(std::async(std::launch::async, fetch, url, origin, opt.http_timeout));
  for (auto& f : running)
    repos.probes.push_back(f.get());
}

} // namespace gpudoctor
