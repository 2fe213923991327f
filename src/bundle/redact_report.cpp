#include "bundle/redact_report.hpp"

#include "bundle/redact_text.hpp"
#include "bundle/secret_names.hpp"
#include "knowledge/knowledge.hpp"

#include <string>

namespace gpudoctor {

namespace {

struct Walk {
  TextRedactor& redactor;
  std::size_t changed = 0;

  void set(Json& value, std::string redacted) {
    if (redacted == value.get_ref<const std::string&>()) return;
    value = std::move(redacted);
    ++changed;
  }

  // Every string below `value`, keys left as they are (names of variables, fields and files). Credentials
  // in their syntax and secret shapes, not NAME=value by the name: in a report such text is data
  // ("tiktoken==0.14.0"), as in a bundle's recorded files; the variables are judged by name below.
  void text(Json& value) {
    if (value.is_string()) return set(value, redactor.scrub(value.get_ref<const std::string&>(), false));
    if (value.is_array())
      for (auto& item : value)
        text(item);
    else if (value.is_object())
      for (auto& [key, item] : value.items())
        text(item);
  }

  // facts.environment.gpu_variables: a value by its variable's name first, as a bundle's env.json.
  void variables(Json& vars) {
    if (!vars.is_object()) return text(vars);
    const SecretNames& names = redactor.names();
    for (auto& [name, value] : vars.items()) {
      if (!value.is_string()) continue;
      const std::string& v = value.get_ref<const std::string&>();
      set(value, names.redact(name)   ? std::string(k_redacted)
                 : names.judged(name) ? redactor.shapes(v)
                                      : redactor.scrub(v, true));
    }
  }
};

SecretNames names_for(const Knowledge* kb) {
  if (kb) return SecretNames(*kb);
  static const auto builtin = load_knowledge();
  return builtin ? SecretNames(*builtin) : SecretNames();
}

} // namespace

std::size_t redact_report(Json& report, const Knowledge* kb) {
  TextRedactor redactor(names_for(kb));
  Walk walk{redactor};
  if (!report.is_object()) return 0;
  for (auto& [key, value] : report.items()) {
    if (key != "facts" || !value.is_object()) {
      walk.text(value);
      continue;
    }
    for (auto& [area, facts] : value.items()) {
      if (area == "environment" && facts.is_object() && facts.contains("gpu_variables")) {
        for (auto& [part, item] : facts.items())
          part == "gpu_variables" ? walk.variables(item) : walk.text(item);
      } else {
        walk.text(facts);
      }
    }
  }
  return walk.changed;
}

} // namespace gpudoctor
