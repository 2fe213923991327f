#include "util/url_text.hpp"

#include "util/text.hpp"

namespace gpudoctor {

std::string url_host(std::string_view url) {
  std::string host = text::lower(std::string(url));
  if (auto scheme = host.find("://"); scheme != std::string::npos) host = host.substr(scheme + 3);
  host = host.substr(0, host.find_first_of("/?#"));
  if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  return host.substr(0, host.find(':'));
}

std::string url_without_credentials(const std::string& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  auto host_end = url.find_first_of("/?#", scheme + 3);
  auto at = url.rfind('@', host_end == std::string::npos ? std::string::npos : host_end);
  if (at == std::string::npos || at < scheme) return url;
  return url.substr(0, scheme + 3) + "<redacted>" + url.substr(at);
}

} // namespace gpudoctor
