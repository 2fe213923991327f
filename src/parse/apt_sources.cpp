// APT sources, sources.list(5): the one-line ".list" format and the deb822 ".sources" format.
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_entries = 10000;

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  for (std::string_view w = detail::next_token(s, pos); !w.empty() && out.size() < k_max_entries;
       w = detail::next_token(s, pos))
    out.push_back(w);
  return out;
}

// "deb [arch=amd64 signed-by=/k.gpg] https://repo.radeon.com/rocm/apt/6.2 jammy main" without its comment.
std::optional<AptSource> source_line(std::string_view line) {
  std::size_t pos = 0;
  std::string_view type = detail::next_token(line, pos);
  if (type != "deb" && type != "deb-src") return std::nullopt;
  AptSource e{.type = std::string(type)};
  while (pos < line.size() && detail::is_space(line[pos]))
    ++pos;
  if (pos < line.size() && line[pos] == '[') {
    std::size_t close = line.find(']', pos);
    if (close == std::string_view::npos) return std::nullopt;
    for (std::string_view opt : words(line.substr(pos + 1, close - pos - 1))) {
      std::size_t eq = opt.find('=');
      if (eq == std::string_view::npos || eq == 0) return std::nullopt;
      e.options[text::lower(opt.substr(0, eq))] = std::string(opt.substr(eq + 1));
    }
    pos = close + 1;
  }
  while (pos < line.size() && detail::is_space(line[pos]))
    ++pos;
  // "cdrom:[Ubuntu 22.04 LTS _Jammy Jellyfish_ - Release amd64 (20220419)]/" holds spaces.
  if (line.substr(pos).starts_with("cdrom:[")) {
    std::size_t close = line.find(']', pos);
    if (close == std::string_view::npos) return std::nullopt;
    std::size_t end = close;
    while (end < line.size() && !detail::is_space(line[end]))
      ++end;
    e.uri = std::string(line.substr(pos, end - pos));
    pos = end;
  } else {
    e.uri = std::string(detail::next_token(line, pos));
  }
  e.suite = std::string(detail::next_token(line, pos));
  if (e.uri.empty() || e.suite.empty()) return std::nullopt;
  for (std::string_view c : words(line.substr(pos)))
    e.components.emplace_back(c);
  return e;
}

// A comment starts with '#' at the start of a word.
std::string_view without_comment(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i)
    if (line[i] == '#' && (i == 0 || detail::is_space(line[i - 1]))) return line.substr(0, i);
  return line;
}

struct Stanza {
  int line = 0;
  std::vector<std::pair<std::string, std::string>> fields; // lower-case name, value (continuations joined)
};

std::string option_name(const std::string& field) {
  if (field == "architectures") return "arch";
  if (field == "architectures-add") return "arch+";
  if (field == "architectures-remove") return "arch-";
  if (field == "languages") return "lang";
  if (field == "targets") return "target";
  return field;
}

void emit_stanza(const Stanza& s, std::string_view file, std::vector<AptSource>& out) {
  std::vector<std::string_view> types, uris, suites, components;
  AptSource base{.file = std::string(file), .line = s.line, .deb822 = true};
  for (const auto& [name, value] : s.fields) {
    if (name == "types")
      types = words(value);
    else if (name == "uris")
      uris = words(value);
    else if (name == "suites")
      suites = words(value);
    else if (name == "components")
      components = words(value);
    else if (name == "enabled") {
      std::string v = text::lower(detail::trim_view(value));
      base.enabled = !(v == "no" || v == "false" || v == "0" || v == "off");
    } else if (name == "signed-by") {
      // A path (or several), or an inline ASCII-armoured key over many lines: keep its first line.
      std::string_view v = detail::trim_view(value);
      base.options["signed-by"] = std::string(detail::trim_view(v.substr(0, v.find('\n'))));
    } else {
      std::string joined;
      for (std::string_view w : words(value))
        joined += (joined.empty() ? "" : ",") + std::string(w);
      base.options[option_name(name)] = joined;
    }
  }
  if (uris.empty() || suites.empty()) return;
  for (std::string_view c : components)
    base.components.emplace_back(c);
  for (std::string_view t : types) {
    if (t != "deb" && t != "deb-src") continue;
    for (std::string_view u : uris)
      for (std::string_view su : suites) {
        if (out.size() >= k_max_entries) return;
        AptSource e = base;
        e.type = std::string(t);
        e.uri = std::string(u);
        e.suite = std::string(su);
        out.push_back(std::move(e));
      }
  }
}

} // namespace

std::vector<AptSource> apt_sources_list(std::string_view text, std::string_view file) {
  std::vector<AptSource> out;
  int n = 0;
  detail::for_each_line(text, [&](std::string_view raw) {
    ++n;
    std::string_view line = detail::trim_view(raw);
    if (line.empty() || out.size() >= k_max_entries) return;
    bool enabled = true;
    if (line.front() == '#') { // an entry commented out: "# deb http://... # disabled on upgrade to noble"
      enabled = false;
      while (!line.empty() && (line.front() == '#' || detail::is_space(line.front())))
        line.remove_prefix(1);
    }
    auto e = source_line(without_comment(line));
    if (!e) return;
    e->file = std::string(file);
    e->line = n;
    e->enabled = enabled;
    out.push_back(std::move(*e));
  });
  return out;
}

std::vector<AptSource> apt_sources_deb822(std::string_view text, std::string_view file) {
  std::vector<AptSource> out;
  Stanza s;
  int n = 0;
  auto flush = [&] {
    if (!s.fields.empty()) emit_stanza(s, file, out);
    s = {};
  };
  detail::for_each_line(text, [&](std::string_view line) {
    ++n;
    if (detail::trim_view(line).empty()) return flush();
    if (line.front() == '#') return;
    if (detail::is_space(line.front())) { // continuation; " ." stands for an empty line
      if (s.fields.empty()) return;
      std::string_view t = detail::trim_view(line);
      std::string& v = s.fields.back().second;
      if (v.size() < 65536) v += "\n" + std::string(t == "." ? std::string_view() : t);
      return;
    }
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || s.fields.size() >= 256) return;
    if (s.fields.empty()) s.line = n;
    s.fields.emplace_back(text::lower(detail::trim_view(line.substr(0, colon))),
                          std::string(detail::trim_view(line.substr(colon + 1))));
  });
  flush();
  return out;
}

std::vector<AptSource> apt_sources(std::string_view text, std::string_view file) {
  if (file.ends_with(".sources")) return apt_sources_deb822(text, file);
  if (file.ends_with(".list")) return apt_sources_list(text, file);
  bool deb822 = false;
  detail::for_each_line(text, [&](std::string_view line) {
    deb822 = text::lower(line.substr(0, 6)) == "types:";
    return !deb822;
  });
  return deb822 ? apt_sources_deb822(text, file) : apt_sources_list(text, file);
}

} // namespace gpudoctor::parse
