#include "util/escape.hpp"

#include "util/utf8.hpp"

#include <fmt/format.h>

namespace gpudoctor::escape {

namespace {

// Code points a reader must see rather than obey.
bool hidden(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
         (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029 ||
         cp == 0xfffe || cp == 0xffff;
}

std::string visible(char32_t cp) {
  switch (cp) {
  case '\n':
    return "\\n";
  case '\r':
    return "\\r";
  case '\t':
    return "\\t";
  default:
    return cp < 0x80 ? fmt::format("\\x{:02x}", static_cast<unsigned>(cp))
                     : fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
  }
}

std::string escape_hidden(std::string_view s, bool keep_lines) {
  std::string out;
  out.reserve(s.size());
  split_hidden(s, [&](std::string_view piece, bool hide) {
    if (!hide || (keep_lines && (piece == "\n" || piece == "\t"))) {
      out.append(piece);
      return;
    }
    auto [cp, n] = utf8::decode(piece, 0);
    out += n == 0 ? fmt::format("\\x{:02x}", static_cast<unsigned char>(piece[0])) : visible(cp);
  });
  return out;
}

// & < > " ' as character references; `extra` also line feed and tab (XML attribute values keep them so).
std::string references(std::string_view s, bool extra) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    case '\n':
      out += extra ? "&#10;" : "\n";
      break;
    case '\t':
      out += extra ? "&#9;" : "\t";
      break;
    default:
      out += c;
    }
  }
  return out;
}

} // namespace

void split_hidden(std::string_view s, const std::function<void(std::string_view, bool)>& visit) {
  std::size_t run = 0; // start of the current run of visible characters
  for (std::size_t i = 0; i < s.size();) {
    auto [cp, n] = utf8::decode(s, i);
    if (n != 0 && !hidden(cp)) {
      i += n;
      continue;
    }
    if (i > run) visit(s.substr(run, i - run), false);
    std::size_t len = n == 0 ? 1 : n;
    visit(s.substr(i, len), true);
    i += len;
    run = i;
  }
  if (run < s.size()) visit(s.substr(run), false);
}

std::string one_line(std::string_view s) {
  return escape_hidden(s, false);
}

std::string terminal(std::string_view s) {
  return escape_hidden(s, true);
}

std::string html(std::string_view s) {
  return references(terminal(s), false);
}

std::string xml(std::string_view s) {
  return references(terminal(s), true);
}

std::string url_path(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 std::string_view("-._~/").find(c) != std::string_view::npos;
    out += plain ? std::string(1, c) : fmt::format("%{:02X}", static_cast<unsigned char>(c));
  }
  return out;
}

std::string json_text(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  split_hidden(json, [&](std::string_view piece, bool hide) {
    auto [cp, n] = utf8::decode(piece, 0);
    if (!hide || piece == "\n")
      out.append(piece);
    else
      out += fmt::format("\\u{:04x}", n == 0 ? 0xfffdU : static_cast<unsigned>(cp));
  });
  return out;
}

std::string prometheus_label(std::string_view s) {
  std::string out;
  for (char c : one_line(s)) {
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out;
}

} // namespace gpudoctor::escape
