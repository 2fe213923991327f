// rocminfo: "ROCk module ..." first line, "HSA System Attributes", then one block per agent whose
// attributes are indented 2 spaces; ISA and pool entries are indented deeper.
#include "parse/parsers.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

namespace {

// "ROCk module is loaded", "ROCk module version 6.16.6 is loaded", "ROCk module is NOT loaded, ...".
void rock_line(std::string_view line, Rocminfo& out) {
  if (line.find("NOT loaded") != std::string_view::npos) {
    out.rock_module_loaded = false;
  } else if (line.find("is loaded") != std::string_view::npos) {
    out.rock_module_loaded = true;
    std::size_t pos = 0;
    while (pos < line.size())
      if (detail::next_token(line, pos) == "version") {
        std::string_view v = detail::next_token(line, pos);
        if (detail::looks_like_version(v)) out.rock_module_version = std::string(v);
        break;
      }
  }
}

struct RocminfoReader {
  Rocminfo out;

  void agent_field(std::string_view key, std::string_view value) {
    // ISA entries are "amdgcn-amd-amdhsa--gfx1030"; they are never agents, whatever the indentation.
    if (key == "Name" && !value.starts_with("amdgcn-")) {
      out.agents.push_back({.name = std::string(value)});
      return;
    }
    if (out.agents.empty()) return;
    RocmAgent& a = out.agents.back();
    if (key == "Marketing Name")
      a.marketing_name = std::string(value);
    else if (key == "Device Type")
      a.device_type = std::string(value);
    else if (key == "Node") {
      auto n = text::to_int(value);
      if (n && *n >= 0 && *n < 1'000'000) a.node = static_cast<int>(*n);
    }
  }

  void line(std::string_view raw) {
    std::string_view t = detail::trim_view(raw);
    if (t.empty()) return;
    if (t.starts_with("ROCk module")) rock_line(t, out);
    // A failure line ("navin is not member of ...", knowledge tool_errors.yaml) is never an agent field.
    if (t.find(" is not member of ") != std::string_view::npos) return;
    std::size_t indent = detail::indent_of(raw);
    std::size_t colon = t.find(':');
    if (colon == std::string_view::npos) return;
    std::string_view key = t.substr(0, colon), value = detail::trim_view(t.substr(colon + 1));
    if (indent == 0 && key == "Runtime Version")
      out.runtime_version = std::string(value);
    else if (indent > 0 && indent < 4)
      agent_field(key, value);
  }
};

} // namespace

Rocminfo rocminfo(std::string_view text) {
  RocminfoReader r;
  detail::for_each_line(text, [&](std::string_view line) { r.line(line); });
  for (auto& a : r.out.agents)
    // A poster's elided paste can stop before "Device Type" (rocminfo-gfx1103-780m-apu-poster-elided-1).
    if (a.device_type.empty() && a.name.starts_with("gfx")) a.device_type = "GPU";
  r.out.ok = !r.out.agents.empty();
  return std::move(r.out);
}

} // namespace gpudoctor::parse
