#include "bundle/upload.hpp"

#include "util/file_text.hpp"
#include "util/http.hpp"
#include "util/text.hpp"

namespace gpudoctor {

namespace {

// Bundles are kilobytes to a few megabytes; anything near this is not one.
constexpr std::uintmax_t k_max_upload_bytes = 512ull << 20;

std::string first_line_of(const std::string& body) {
  std::string line = text::trim(body.substr(0, body.find('\n')));
  return line.size() > 200 ? line.substr(0, 200) + "..." : line;
}

} // namespace

std::string upload_url_for_messages(const std::string& url) {
  std::string out = url_without_credentials(url);
  if (auto q = out.find_first_of("?#"); q != std::string::npos) out = out.substr(0, q) + "?<redacted>";
  return out;
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
  request.timeout = opt.timeout;
  request.ca_file = opt.ca_file;
  request.max_body_bytes = 4096;
  HttpResponse response = http_request(request);
  std::string where =
      upload_url_for_messages(response.effective_url.empty() ? opt.url : response.effective_url);
  if (!response.completed)
    return std::unexpected("could not upload to " + upload_url_for_messages(opt.url) + " (" +
                           response.error_kind + "): " + response.error);
  std::string said = first_line_of(response.body);
  if (response.status < 200 || response.status >= 300)
    return std::unexpected("the server at " + where + " refused the upload: HTTP " +
                           std::to_string(response.status) + (said.empty() ? "" : " (" + said + ")"));
  return "HTTP " + std::to_string(response.status) + " from " + where + " (" + std::to_string(size) +
         " bytes" + (said.empty() ? "" : "; it said: " + said) + ")";
}

} // namespace gpudoctor
