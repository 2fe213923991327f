#include "cli/completion.hpp"

#include <regex>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace gpudoctor::cli {

namespace {

// What an option's value (or a positional) is, from the type name src/main.cpp gives it (--help shows it):
// what the completion offers for it.
enum class Value { none, number, choices, path, folder, check_id, fix_id, any_id };

Value value_of(const std::string& type) {
  static const std::pair<const char*, Value> k_types[] = {{"^(INT|UINT|FLOAT|NUMBER)", Value::number},
                                                          {R"(\{)", Value::choices},
                                                          {"^(PATH|FILE)", Value::path},
                                                          {"^DIR", Value::folder},
                                                          {"^CHECK_ID", Value::check_id},
                                                          {"^FIX_ID", Value::fix_id},
                                                          {"^ID", Value::any_id}};
  for (const auto& [pattern, value] : k_types)
    if (std::regex_search(type, std::regex(pattern))) return value;
  return Value::none; // TEXT, URL, a version: nothing on the disk to offer
}

struct OptionWords {
  std::vector<std::string> names; // -o --output
  bool takes_value = false;
  Value value = Value::none;
  std::vector<std::string> choices; // of CLI::IsMember, as the help shows them: TEXT:{a,b}
};

std::vector<std::string> choices_of(const std::string& type) {
  std::vector<std::string> out;
  std::smatch m;
  if (!std::regex_search(type, m, std::regex(R"(\{([^}]*)\})"))) return out;
  std::string list = m[1];
  std::size_t at = 0;
  while (at <= list.size()) {
    std::size_t comma = list.find(',', at);
    out.push_back(list.substr(at, comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

// A positional that has no option name besides (explain's id, fleet's paths).
bool bare_positional(const CLI::Option* opt) {
  return opt->get_positional() && opt->get_lnames().empty() && opt->get_snames().empty();
}

std::vector<OptionWords> options_of(CLI::App& app) {
  std::vector<OptionWords> out;
  for (const CLI::Option* opt : app.get_options({})) {
    if (bare_positional(opt)) continue;
    if (opt->get_group().empty()) continue; // hidden from --help (deprecated): not offered either
    OptionWords words;
    for (const auto& s : opt->get_snames())
      words.names.push_back("-" + s);
    for (const auto& l : opt->get_lnames())
      words.names.push_back("--" + l);
    words.takes_value = opt->get_expected_max() > 0; // flags expect none
    words.value = value_of(opt->get_type_name());
    words.choices = choices_of(opt->get_type_name());
    if (!words.names.empty()) out.push_back(std::move(words));
  }
  return out;
}

// What the positionals of `app` are (the first one's kind: fleet's paths, diff's before and after).
Value positional_of(CLI::App& app) {
  for (const CLI::Option* opt : app.get_options({}))
    if (bare_positional(opt)) return value_of(opt->get_type_name());
  return Value::none;
}

std::string joined(const std::vector<std::string>& words, const char* sep = " ") {
  std::string out;
  for (const auto& w : words)
    out += (out.empty() ? "" : sep) + w;
  return out;
}

// The bash command that fills COMPREPLY for a value of this kind.
std::string completer(Value value, const std::vector<std::string>& choices) {
  switch (value) {
  case Value::none:
  case Value::number:
    return "COMPREPLY=()";
  case Value::choices:
    return fmt::format("mapfile -t COMPREPLY < <(compgen -W \"{}\" -- \"$cur\")", joined(choices));
  case Value::path:
    return "_gpudoctor_paths -f";
  case Value::folder:
    return "_gpudoctor_paths -d";
  case Value::check_id:
    return "_gpudoctor_ids \"$_gpudoctor_check_ids\"";
  case Value::fix_id:
    return "_gpudoctor_ids \"$_gpudoctor_fix_ids\"";
  case Value::any_id:
    return "_gpudoctor_ids \"$_gpudoctor_check_ids $_gpudoctor_fix_ids\"";
  }
  return "COMPREPLY=()";
}

// The lines of one `case` over "$sub:$prev" that complete the value of each option taking one.
void value_cases(const std::string& sub, const std::vector<OptionWords>& options, std::string& out) {
  for (const auto& opt : options) {
    if (!opt.takes_value) continue;
    std::vector<std::string> patterns;
    for (const auto& n : opt.names)
      patterns.push_back(sub + ":" + n);
    out += fmt::format("    {}) {}; return ;;\n", joined(patterns, "|"), completer(opt.value, opt.choices));
  }
}

std::vector<std::string> option_names(const std::vector<OptionWords>& options) {
  std::vector<std::string> out;
  for (const auto& o : options)
    out.insert(out.end(), o.names.begin(), o.names.end());
  return out;
}

std::vector<std::string> id_words(const std::vector<std::string>& ids) {
  std::vector<std::string> out;
  for (const auto& id : ids)
    if (!id.empty() && id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789._-") == std::string::npos)
      out.push_back(id);
  return out;
}

} // namespace

std::string bash_completion(CLI::App& app, const CompletionIds& ids) {
  std::vector<CLI::App*> subs = app.get_subcommands([](CLI::App* s) { return !s->get_group().empty(); });
  std::vector<std::string> sub_names;
  for (auto* s : subs)
    sub_names.push_back(s->get_name());
  auto top = options_of(app);

  std::string out =
      "# bash completion for gpudoctor: generated by `gpudoctor completion bash` from its command-line\n"
      "# parser (src/cli/completion.cpp). Installed as /usr/share/bash-completion/completions/gpudoctor.\n";
  // The ids of this version's catalogues, for explain, check --only and fix (only what an id is made of goes
  // between the quotes).
  out += fmt::format("_gpudoctor_check_ids='{}'\n", joined(id_words(ids.checks)));
  out += fmt::format("_gpudoctor_fix_ids='{}'\n", joined(id_words(ids.fixes)));
  // Ids, and after a comma (--only a,b) the id after it.
  out += "_gpudoctor_ids() {\n"
         "  local prefix=''\n"
         "  [[ $cur == *,* ]] && prefix=${cur%,*},\n"
         "  mapfile -t COMPREPLY < <(compgen -W \"$1\" -P \"$prefix\" -- \"${cur##*,}\")\n"
         "}\n";
  // Files and folders (-f) or folders (-d): readline quotes the names, and a folder ends with / and takes no
  // space after it, so the next TAB goes into it.
  out += "_gpudoctor_paths() {\n"
         "  local path\n"
         "  COMPREPLY=()\n"
         "  compopt -o filenames 2>/dev/null\n"
         "  while IFS= read -r path; do\n"
         "    [[ -d $path && $path != */ ]] && path+=/\n"
         "    COMPREPLY+=(\"$path\")\n"
         "  done < <(compgen \"$1\" -- \"$cur\")\n"
         "  [[ ${#COMPREPLY[@]} == 1 && ${COMPREPLY[0]} == */ ]] && compopt -o nospace 2>/dev/null\n"
         "  return 0\n"
         "}\n";
  out += "_gpudoctor() {\n";
  out += "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub='' i\n";
  out += "  for ((i = 1; i < COMP_CWORD; i++)); do\n";
  out += fmt::format("    case ${{COMP_WORDS[i]}} in {}) sub=${{COMP_WORDS[i]}}; break ;; esac\n",
                     joined(sub_names, "|"));
  out += "  done\n";
  out += "  case \"$sub:$prev\" in\n";
  value_cases("", top, out);
  struct SubWords {
    std::string name;
    std::vector<std::string> options;
    Value positional;
  };
  std::vector<SubWords> words;
  for (auto* s : subs) {
    auto opts = options_of(*s);
    value_cases(s->get_name(), opts, out);
    words.push_back({s->get_name(), option_names(opts), positional_of(*s)});
  }
  out += "  esac\n";
  out += "  case $sub in\n";
  auto first = sub_names;
  for (const auto& n : option_names(top))
    first.push_back(n);
  out += fmt::format("    '') mapfile -t COMPREPLY < <(compgen -W \"{}\" -- \"$cur\") ;;\n", joined(first));
  for (const auto& [name, opts, positional] : words) {
    std::string options =
        fmt::format("mapfile -t COMPREPLY < <(compgen -W \"{}\" -- \"$cur\")", joined(opts));
    // A word that does not start with a dash is the subcommand's positional, when it has one.
    if (positional == Value::none)
      out += fmt::format("    {}) {} ;;\n", name, options);
    else
      out += fmt::format("    {}) if [[ $cur == -* ]]; then {}; else {}; fi ;;\n", name, options,
                         completer(positional, {}));
  }
  out += "  esac\n";
  out += "}\n";
  out += "complete -F _gpudoctor gpudoctor\n";
  return out;
}

} // namespace gpudoctor::cli
