// The one adapter over libcurl: a single HTTP(S) request with a time limit, TLS verification on, and the
// proxy settings of the environment (http_proxy, https_proxy, no_proxy, as libcurl reads them). Used by
// `check --online` (is a repository reachable?) and for uploading bundles. Never throws.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct HttpRequest {
  std::string url;                         // http:// or https:// only
  std::string method = "HEAD";             // HEAD, GET, POST, PUT
  std::string body;                        // for POST and PUT
  std::vector<std::string> headers;        // "Content-Type: application/gzip"
  std::chrono::milliseconds timeout{5000}; // the whole request, connection included
  std::size_t max_body_bytes = 64 * 1024;  // of the answer; the rest ends the transfer (body_truncated)
  std::string ca_file;                     // trust this CA bundle instead of the system's (tests)
  bool follow_redirects = true;            // up to 5, to http or https; else a 3xx is the answer
  bool https_only = false;                 // refuse any other scheme, redirects included
};

struct HttpResponse {
  bool completed = false; // an HTTP answer came back (whatever its status)
  long status = 0;        // HTTP status of the last answer
  std::string error; // why not: libcurl's words ("Could not resolve host: ...", "SSL certificate problem...")
  std::string error_kind; // "dns", "proxy", "tls", "connect", "timeout", "other"; empty when completed
  std::string body;
  bool body_truncated = false;
  std::string effective_url; // after redirects
  std::string redirect_url;  // a 3xx not followed: where it points (absolute), as libcurl resolves Location
  long duration_ms = 0;
};

HttpResponse http_request(const HttpRequest& request);

// A URL's parts, as libcurl parses them (so a check agrees with what libcurl would connect to). Scheme and
// host are lower case; `port` is the explicit one or the scheme's default.
struct UrlParts {
  std::string scheme, host, port, path;
  bool has_userinfo = false, has_query = false;
};
std::optional<UrlParts> parse_url(const std::string& url);

} // namespace gpudoctor
