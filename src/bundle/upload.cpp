#include "bundle/upload.hpp"

#include "util/file_text.hpp"
#include "util/http.hpp"
#include "util/shared_library.hpp"
#include "util/text.hpp"
#include "util/url_text.hpp"

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// Bundles are kilobytes to a few megabytes; anything near this is not one.
constexpr std::uintmax_t k_max_upload_bytes = 512ull << 20;
constexpr int k_max_redirects = 5;

// TODO(util/escape): use the project's terminal escaping once src/util/escape.hpp lands. Until then: every
// byte that is not printable ASCII (control characters, ESC, DEL, C1 and anything else above 0x7f) is written
// \xNN, so nothing a server says can move the cursor, retitle the terminal or hide text.
std::string escape_for_terminal(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c >= 0x20 && c < 0x7f && c != '\\')
      out += static_cast<char>(c);
    else if (c == '\\')
      out += "\\\\";
    else
      out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

std::string first_line_of(const std::string& body) {
  std::string line = text::trim(body.substr(0, body.find('\n')));
  if (line.size() > 200) line = line.substr(0, 200) + "...";
  return escape_for_terminal(line);
}

bool is_redirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

// Why a redirect from `from` to `to` is not followed; empty when it is (https, same host and port).
std::string redirect_refusal(const UrlParts& from, const std::optional<UrlParts>& to) {
  if (!to) return "not a URL gpudoctor can read";
  if (to->scheme != "https") return "not https: a bundle is never sent unencrypted";
  if (to->host != from.host || to->port != from.port)
    return "another host: an upload follows redirects only to https on the same host and port";
  return {};
}

} // namespace

std::string upload_url_for_messages(const std::string& url) {
  // Through libcurl's parser, so what is shown is what it connects to: no user:password@, no query.
  if (auto u = parse_url(url)) {
    std::string port = (u->scheme == "https" && u->port == "443") || (u->scheme == "http" && u->port == "80")
                           ? std::string()
                           : ":" + u->port;
    return escape_for_terminal(u->scheme + "://" + u->host + port + u->path +
                               (u->has_query ? "?<redacted>" : ""));
  }
  std::string out = url_without_credentials(url);
  if (auto q = out.find_first_of("?#"); q != std::string::npos) out = out.substr(0, q) + "?<redacted>";
  return escape_for_terminal(out);
}

std::string upload_usage_error(const UploadOptions& opt) {
  if (text::starts_with(text::lower(opt.url), "http://"))
    return "--upload needs an https:// URL: a bundle is not sent unencrypted";
  // Not echoed: without a scheme, nothing says which part is a credential ("user:pw@host/x").
  if (!text::starts_with(text::lower(opt.url), "https://") || opt.url.size() <= 8)
    return "--upload needs an https:// URL (the value given is not repeated: it may hold a credential)";
  if (opt.method != "PUT" && opt.method != "POST")
    return "--upload-method must be PUT or POST, not '" + opt.method + "'";
  if (!opt.ca_file.empty() && !std::filesystem::is_regular_file(opt.ca_file))
    return "--ca-file " + opt.ca_file + ": no such file";
  return {};
}

std::expected<std::string, std::string> upload_bundle(const std::filesystem::path& file,
                                                      const UploadOptions& opt) {
  if (auto usage = upload_usage_error(opt); !usage.empty()) return std::unexpected(usage);
  if (auto curl = libcurl_library().available(); !curl) return std::unexpected(curl.error());
  auto origin = parse_url(opt.url);
  if (!origin)
    return std::unexpected(fmt::format("cannot read the URL {}", upload_url_for_messages(opt.url)));
  std::error_code ec;
  auto size = std::filesystem::file_size(file, ec);
  if (ec) return std::unexpected("cannot read " + file.string() + ": " + ec.message());
  if (size > k_max_upload_bytes)
    return std::unexpected(file.string() + " is " + std::to_string(size >> 20) +
                           " MiB: too big to be a bundle");
  auto body = read_whole_file(file);
  if (!body) return std::unexpected("cannot read " + file.string());

  HttpRequest request;
  request.url = opt.url;
  request.method = opt.method;
  request.body = std::move(*body);
  request.headers = {"Content-Type: application/gzip"};
  request.ca_file = opt.ca_file;
  request.max_body_bytes = 4096;
  // Redirects are followed here, one at a time, each checked before anything is sent to it.
  request.follow_redirects = false;
  request.https_only = true;
  auto deadline = std::chrono::steady_clock::now() + opt.timeout;
  for (int hops = 0;; ++hops) {
    request.timeout = std::max(
        std::chrono::milliseconds(1),
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
    HttpResponse response = http_request(request);
    std::string where = upload_url_for_messages(request.url);
    if (!response.completed)
      return std::unexpected(fmt::format("could not upload to {} ({}): {}", where, response.error_kind,
                                         escape_for_terminal(response.error)));
    if (is_redirect(response.status)) {
      std::string to = upload_url_for_messages(response.redirect_url);
      if (auto why = redirect_refusal(*origin, parse_url(response.redirect_url)); !why.empty())
        return std::unexpected(fmt::format("the server at {} redirected the upload (HTTP {}) to {}: {}; not "
                                           "followed, nothing was sent there",
                                           where, response.status, to, why));
      if (hops == k_max_redirects)
        return std::unexpected(
            fmt::format("the server at {} redirected the upload more than {} times", where, k_max_redirects));
      request.url = response.redirect_url;
      if (response.status == 303) { // "see other": the upload was taken; the answer is fetched with GET
        request.method = "GET";
        request.body.clear();
        request.headers.clear();
      }
      continue;
    }
    std::string said = first_line_of(response.body);
    if (response.status < 200 || response.status >= 300)
      return std::unexpected(fmt::format("the server at {} refused the upload: HTTP {}{}", where,
                                         response.status, said.empty() ? "" : " (" + said + ")"));
    return fmt::format("HTTP {} from {} ({} bytes{})", response.status, where, size,
                       said.empty() ? "" : "; it said: " + said);
  }
}

} // namespace gpudoctor
