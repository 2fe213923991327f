// The kernel command line, split as the kernel's next_arg() does: words end at unquoted spaces, a double
// quote may open at the start of the word or of the value, and the quotes are removed. "--" ends the
// kernel's parameters; what follows is for init.
#include "parse/parsers_system.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_params = 100000;

// Parameter names compare with '-' and '_' as the same character (the kernel's parameq()).
bool same_key(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];
    if (x != y) return false;
  }
  return true;
}

std::vector<std::string> comma_list(std::string_view v) {
  std::vector<std::string> out;
  while (!v.empty()) {
    std::size_t comma = v.find(',');
    std::string_view item = detail::trim_view(v.substr(0, comma));
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return out;
}

} // namespace

KernelCmdline kernel_cmdline(std::string_view text) {
  KernelCmdline out;
  std::size_t pos = 0;
  bool init = false;
  while (pos < text.size()) {
    while (pos < text.size() && detail::is_space(text[pos]))
      ++pos;
    if (pos >= text.size()) break;
    bool quoted = text[pos] == '"';
    if (quoted) ++pos;
    bool in_quote = quoted;
    std::size_t start = pos, equals = std::string_view::npos;
    for (; pos < text.size(); ++pos) {
      char c = text[pos];
      if (detail::is_space(c) && !in_quote) break;
      if (equals == std::string_view::npos && c == '=') equals = pos;
      if (c == '"') in_quote = !in_quote;
    }
    std::string_view word = text.substr(start, pos - start);
    if (init) {
      if (out.init_args.size() < k_max_params) out.init_args.emplace_back(word);
      continue;
    }
    if (word == "--" && !quoted) {
      init = true;
      continue;
    }
    if (out.params.size() >= k_max_params) continue;
    KernelParam p;
    if (equals == std::string_view::npos) {
      if (quoted && word.ends_with('"')) word.remove_suffix(1);
      p.key = std::string(word);
    } else {
      p.key = std::string(text.substr(start, equals - start));
      std::string_view value = text.substr(equals + 1, pos - equals - 1);
      bool value_quoted = value.starts_with('"');
      if (value_quoted) value.remove_prefix(1);
      if ((value_quoted || quoted) && value.ends_with('"')) value.remove_suffix(1);
      p.value = std::string(value);
    }
    out.params.push_back(std::move(p));
  }
  return out;
}

} // namespace gpudoctor::parse

// The queries of the typed fact (facts/os_facts.hpp), beside the parser whose key rules they share.
namespace gpudoctor {

using parse::comma_list;
using parse::same_key;

bool KernelCmdline::has(std::string_view key) const {
  for (const auto& p : params)
    if (same_key(p.key, key)) return true;
  return false;
}

std::optional<std::string> KernelCmdline::get(std::string_view key) const {
  std::optional<std::string> out;
  for (const auto& p : params)
    if (same_key(p.key, key)) out = p.value.value_or("");
  return out;
}

std::vector<std::string> KernelCmdline::all(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& p : params)
    if (same_key(p.key, key)) out.push_back(p.value.value_or(""));
  return out;
}

bool KernelCmdline::iommu_passthrough() const {
  if (get("iommu") == "pt") return true;
  auto v = get("iommu.passthrough");
  return v && (*v == "1" || *v == "y" || *v == "Y" || *v == "on");
}

std::optional<std::string> KernelCmdline::iommu_off_by() const {
  for (const char* key : {"iommu", "amd_iommu", "intel_iommu"})
    if (get(key) == "off") return key;
  return std::nullopt;
}

std::vector<std::string> KernelCmdline::blacklisted_modules() const {
  std::vector<std::string> out;
  for (const auto& p : params)
    if (p.value && (same_key(p.key, "modprobe.blacklist") || same_key(p.key, "module_blacklist")))
      for (auto& m : comma_list(*p.value))
        out.push_back(std::move(m));
  return out;
}

std::optional<std::string> KernelCmdline::module_param(std::string_view module,
                                                       std::string_view param) const {
  std::string key = std::string(module) + "." + std::string(param);
  return get(key);
}

} // namespace gpudoctor
