#include "system/record_excerpts.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace gpudoctor::excerpts {

namespace {

constexpr std::string_view k_dpkg_status = "dpkg-status-fields";
constexpr std::string_view k_header_defines = "header-defines";

// dpkg's status: the fields the package readers use (parse/pkg_relations.cpp), those a plan made from a
// snapshot needs to tell a package's origin and what it conflicts with, and the ones apt weighs before a
// removal. Field names are case-insensitive (deb-control(5)).
constexpr std::array<std::string_view, 16> k_dpkg_fields = {
    "Package",     "Status",    "Version",   "Architecture",   "Multi-Arch", "Source",
    "Maintainer",  "Essential", "Protected", "Installed-Size", "Provides",   "Depends",
    "Pre-Depends", "Conflicts", "Breaks",    "Replaces"};

// The headers whose versions are read from their macros (collect/toolkits.cpp): NCCL's, RCCL's, cuDNN's.
constexpr std::array<std::string_view, 4> k_version_headers = {"/nccl.h", "/rccl.h", "/cudnn_version.h",
                                                               "/cudnn.h"};

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Calls visit(line) for each line with its line feed (the last may have none).
template <class Visit> void each_line(std::string_view content, Visit visit) {
  while (!content.empty()) {
    std::size_t end = content.find('\n');
    std::size_t n = end == std::string_view::npos ? content.size() : end + 1;
    visit(content.substr(0, n));
    content.remove_prefix(n);
  }
}

// Blanks and trimming are the parsers' own (util/text's is_blank and trim_view, which parse/scan.hpp uses):
// an excerpt must split lines into paragraphs, fields and continuations exactly as they do, or a parse of the
// excerpt would differ from the whole file's.
std::string dpkg_status_fields(std::string_view content) {
  std::string out;
  bool keeping = false; // whether the field a continuation line belongs to is kept
  each_line(content, [&](std::string_view line) {
    if (text::trim_view(line).empty()) { // between paragraphs
      keeping = false;
      out += line;
    } else if (text::is_blank(line.front())) {
      if (keeping) out += line;
    } else {
      std::size_t colon = line.find(':');
      keeping = colon != std::string_view::npos && dpkg_field_kept(text::trim_view(line.substr(0, colon)));
      if (keeping) out += line;
    }
  });
  return out;
}

std::string header_defines(std::string_view content) {
  std::string out;
  each_line(content, [&](std::string_view line) {
    std::string_view t = text::trim_view(line);
    if (!t.starts_with('#')) return;
    if (text::trim_view(t.substr(1)).starts_with("define")) out += line;
  });
  return out;
}

} // namespace

bool dpkg_field_kept(std::string_view field) {
  return std::any_of(k_dpkg_fields.begin(), k_dpkg_fields.end(),
                     [&](std::string_view kept) { return same_name(field, kept); });
}

std::optional<std::string_view> rule_for(std::string_view path) {
  if (path == "/var/lib/dpkg/status") return k_dpkg_status;
  for (std::string_view header : k_version_headers)
    if (path.ends_with(header)) return k_header_defines;
  return std::nullopt;
}

std::string apply(std::string_view rule, std::string_view content) {
  if (rule == k_dpkg_status) return dpkg_status_fields(content);
  if (rule == k_header_defines) return header_defines(content);
  return std::string(content);
}

} // namespace gpudoctor::excerpts
