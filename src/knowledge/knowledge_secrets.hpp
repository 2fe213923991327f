// How a bundle recognises secrets (checks/knowledge/secrets.yaml): the names whose value is one, the names
// of places that never are, and the published shapes of token values. Part of Knowledge as
// `Knowledge::secrets`; src/bundle/secret_names and secret_shapes apply them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gpudoctor {

// One name rule. `text` is in the normalised form names are compared in (lower case, '_' for '-' and '.').
struct SecretNameRow {
  std::string match; // contains, word (at the start or after '_'), prefix, suffix, exact
  std::string text;
  bool strong = false;            // leaves no doubt: redacted even in a family the tables judge
  std::string unless_followed_by; // the match does not count when this follows it
  std::string example;            // a real name of the rule (the redaction harness plants it)
  std::string source;
};

// A token format: `prefix`, then at least `min` characters of `alphabet`.
struct SecretShapeRow {
  std::string prefix, kind;
  std::string alphabet; // alnum, alnum_underscore, alnum_dash, base64url, url_path
  std::size_t min = 0;
  bool mixed_case = false, digit = false; // the run must also mix cases / hold a digit
  std::string source;
};

struct SecretRules {
  std::vector<SecretNameRow> names;
  std::vector<SecretNameRow> places; // checked first: a place's name is never a secret's
  std::vector<SecretShapeRow> shapes;
};

// The rules built into gpudoctor (its embedded secrets.yaml), loaded once; empty only if the embedded
// knowledge does not load, which the unit tests rule out.
const SecretRules& builtin_secret_rules();

} // namespace gpudoctor
