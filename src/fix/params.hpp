// Parameters: the values a recipe's bash refers to as {{name}} (shell-quoted words) or {{!name}} (the text
// itself, for here-documents; only values made of URL-safe characters may be used so). Every value is a
// list of words; a scalar is a list of one. Bound from the facts by the planner (bind.cpp).
#pragma once

#include "fix/script_text.hpp"

#include <expected>
#include <map>
#include <string>
#include <vector>

namespace gpudoctor::fix {

struct ParamInfo {
  const char* name;
  const char* what;
  bool list = false; // a list of words; a scalar placeholder with no value becomes '' (one empty word)
};

// Every parameter a recipe may name, with what it holds (docs/fixes.md lists them).
const std::vector<ParamInfo>& param_catalogue();
bool is_known_param(const std::string& name);
bool is_list_param(const std::string& name);

class Params {
public:
  void set(const std::string& name, std::vector<std::string> words) { m_values[name] = std::move(words); }
  void set(const std::string& name, const std::string& word) {
    m_values[name] = word.empty() ? std::vector<std::string>{} : std::vector<std::string>{word};
  }
  const std::vector<std::string>& get(const std::string& name) const;
  bool nonempty(const std::string& name) const { return !get(name).empty(); }

private:
  std::map<std::string, std::vector<std::string>> m_values;
};

// Replaces {{name}} and {{!name}} in `text` (script_text.hpp quotes the words). The error names the
// parameter when a raw value is unsafe or a value holds a NUL byte (which shell_quote cannot quote).
// `raw_everywhere`: titles and descriptions, shown as text (every value raw, joined).
std::expected<std::string, std::string> expand(const std::string& text, const Params& params,
                                               bool raw_everywhere = false);
// The parameter names `text` refers to (for the loader's check).
std::vector<std::string> placeholders(const std::string& text);

} // namespace gpudoctor::fix
