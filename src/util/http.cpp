#include "util/http.hpp"

#include "util/shared_library.hpp"
#include "util/text.hpp"

#include <chrono>
#include <mutex>

#include <curl/curl.h>

#ifndef GPUDOCTOR_VERSION
#define GPUDOCTOR_VERSION "0"
#endif

namespace gpudoctor {

namespace {

struct Sink {
  std::string* body;
  std::size_t max;
  bool truncated = false;
};

std::size_t write_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* sink = static_cast<Sink*>(user);
  std::size_t bytes = size * n;
  std::size_t room = sink->max > sink->body->size() ? sink->max - sink->body->size() : 0;
  if (bytes > room) {
    sink->body->append(data, room);
    sink->truncated = true;
    return 0; // ends the transfer: enough was read
  }
  sink->body->append(data, bytes);
  return bytes;
}

std::string kind_of(CURLcode code) {
  switch (code) {
  case CURLE_COULDNT_RESOLVE_HOST:
    return "dns";
  case CURLE_COULDNT_RESOLVE_PROXY:
    return "proxy";
  case CURLE_COULDNT_CONNECT:
    return "connect";
  case CURLE_OPERATION_TIMEDOUT:
    return "timeout";
  case CURLE_SSL_CONNECT_ERROR:
  case CURLE_PEER_FAILED_VERIFICATION:
  case CURLE_SSL_CERTPROBLEM:
  case CURLE_SSL_CIPHER:
  case CURLE_SSL_CACERT_BADFILE:
  case CURLE_SSL_ISSUER_ERROR:
    return "tls";
#if LIBCURL_VERSION_NUM >= 0x074900
  case CURLE_PROXY:
    return "proxy";
#endif
  default:
    return "other";
  }
}

} // namespace

std::optional<UrlParts> parse_url(const std::string& url) {
  if (!libcurl_library().available()) return std::nullopt;
  CURLU* handle = curl_url();
  if (!handle) return std::nullopt;
  std::optional<UrlParts> parts;
  if (curl_url_set(handle, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK) {
    auto part = [&](CURLUPart which, unsigned flags = 0) -> std::optional<std::string> {
      char* value = nullptr;
      if (curl_url_get(handle, which, &value, flags) != CURLUE_OK || !value) return std::nullopt;
      std::string s = value;
      curl_free(value);
      return s;
    };
    auto scheme = part(CURLUPART_SCHEME);
    auto host = part(CURLUPART_HOST);
    auto port = part(CURLUPART_PORT, CURLU_DEFAULT_PORT);
    if (scheme && host && port) {
      parts = UrlParts{text::lower(*scheme),
                       text::lower(*host),
                       *port,
                       part(CURLUPART_PATH).value_or("/"),
                       part(CURLUPART_USER).has_value() || part(CURLUPART_PASSWORD).has_value(),
                       part(CURLUPART_QUERY).has_value()};
    }
  }
  curl_url_cleanup(handle);
  return parts;
}

HttpResponse http_request(const HttpRequest& request) {
  HttpResponse response;
  if (auto curl = libcurl_library().available(); !curl) {
    response.error = curl.error();
    response.error_kind = "other";
    return response;
  }
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  auto start = std::chrono::steady_clock::now();
  CURL* curl = curl_easy_init();
  if (!curl) {
    response.error = "libcurl could not start a request";
    response.error_kind = "other";
    return response;
  }
  char error[CURL_ERROR_SIZE] = {};
  Sink sink{&response.body, request.max_body_bytes};
  curl_slist* headers = nullptr;
  for (const auto& h : request.headers)
    headers = curl_slist_append(headers, h.c_str());
  long timeout = static_cast<long>(request.timeout.count());

  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L); // thread-safe time limits
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!request.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, request.ca_file.c_str());
  const char* protocols = request.https_only ? "https" : "http,https";
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, protocols);
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, protocols);
#else
  long mask = request.https_only ? CURLPROTO_HTTPS : (CURLPROTO_HTTP | CURLPROTO_HTTPS);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS, mask);
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS, mask);
#endif
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, request.follow_redirects ? 1L : 0L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "gpudoctor/" GPUDOCTOR_VERSION);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  if (headers) curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method == "POST" || request.method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    if (request.method == "PUT") curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "PUT");
  } else if (request.method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }

  CURLcode code = curl_easy_perform(curl);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  char* effective = nullptr;
  if (curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &effective) == CURLE_OK && effective)
    response.effective_url = effective;
  char* redirect = nullptr;
  if (curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &redirect) == CURLE_OK && redirect)
    response.redirect_url = redirect;
  response.status = status;
  response.body_truncated = sink.truncated;
  if (code == CURLE_OK || (code == CURLE_WRITE_ERROR && sink.truncated)) {
    response.completed = true;
  } else {
    response.error = error[0] ? error : curl_easy_strerror(code);
    response.error_kind = kind_of(code);
  }
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  response.duration_ms = static_cast<long>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)
          .count());
  return response;
}

} // namespace gpudoctor
