// Redaction of free text (a file, a command's output, a value): credentials written in a known syntax and
// secrets recognised by their shape.
#pragma once

#include "bundle/secret_names.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

inline constexpr std::string_view k_redacted = "<redacted>";

// "https://user:p@ss/w0rd@host/x" -> "https://<redacted>@host/x": the userinfo of a URL, also when the
// password holds '/' or '@' (the last '@' of the word ends it). "host:8443/a@b" and "host/@scope" are paths.
std::string redact_url_credentials(std::string_view text);

class TextRedactor {
public:
  explicit TextRedactor(SecretNames names = {});

  const SecretNames& names() const { return m_names; }

  // Credentials in syntax: URL userinfo; token, key, sig, signature, password fields of queries and
  // connection strings (?token=, &key=, ;AccountKey=); Authorization headers and Bearer values; -u/--user
  // user:pw and --password/--token values. `assignments`: also NAME=value where NAME is a secret's name
  // (configuration text and values; not every recorded file, where such a line is data).
  std::string credentials(std::string_view text, bool assignments) const;
  // Secrets found by shape (secret_shapes.hpp), each replaced by "<redacted:KIND-N>": the same secret gets
  // the same placeholder everywhere in the bundle, and different secrets different ones, so a setting that
  // held one judges the same (a value is as unknown before as after).
  std::string shapes(std::string_view text);
  std::string scrub(std::string_view text, bool assignments) {
    return shapes(credentials(text, assignments));
  }
  // A command line as argv: the user:password after -u/--user and the value after --password and the like,
  // then each element scrubbed.
  std::vector<std::string> scrub_argv(const std::vector<std::string>& argv);

private:
  SecretNames m_names;
  std::map<std::string, std::string, std::less<>> m_placeholders;
  std::map<std::string, int, std::less<>> m_counts;
};

} // namespace gpudoctor
