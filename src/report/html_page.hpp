// The frame of every HTML page gpudoctor writes (`check --format html`, a bundle's report.html, `fleet` and
// `diff --format html`): one self-contained file with its style inline, no script, and a Content-Security-
// Policy that lets nothing load or run. Helpers for the parts the pages share. Every string that comes from a
// machine, a snapshot or a report goes through `h` (util/escape's html) before it is written.
#pragma once

#include "engine/result.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::html {

std::string h(std::string_view s);

// The whole page: `title` (escaped here), the header band (`heading`, `meta` lines: escaped by the caller),
// then `body`.
struct Header {
  std::string kind;              // "report", "fleet", "diff"
  std::string heading;           // HTML
  std::vector<std::string> meta; // HTML, one line each
};
std::string page(std::string_view title, const Header& header, std::string_view body);

// "error", "warn", ...: the CSS class of a status.
std::string status_class(Status s);
// A coloured label: "error", "warning", "info", "passed", "skipped".
std::string badge(Status s);

// A summary tile: a big number and a label; `cls` colours it (a status class, or "" for neutral).
std::string tile(long long number, std::string_view label, std::string_view cls);

// A section with a heading; `id` for links within the page.
std::string section(std::string_view id, std::string_view heading, std::string_view body);

// A table: `head`, the header cells (<th>...</th>), and `rows` (<tr>...</tr>), both HTML.
std::string table(std::string_view head, std::string_view rows);

} // namespace gpudoctor::html
