#pragma once

#include <string>
#include <string_view>

namespace gpudoctor {

// URLs read as text, without libcurl (util/http.hpp parses them as libcurl would connect): for matching a
// URL against known hosts and for printing one. The parsers and their fuzz targets link this file alone.

// "https://user:token@host/simple" -> "https://<redacted>@host/simple": for reports and messages.
std::string url_without_credentials(const std::string& url);

// A URL's host, lower case, without user info and port ("https://u@Repo.Radeon.com:443/x" ->
// "repo.radeon.com"); text without "://" is read as starting at the host.
std::string url_host(std::string_view url);

} // namespace gpudoctor
