#include "util/shell_word.hpp"

#include "util/escape.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// bash's ANSI-C quoting: visible text with \ and ' escaped, every byte of a hidden character as \xHH.
std::string ansi_c_quote(std::string_view word) {
  std::string out = "$'";
  escape::split_hidden(word, [&](std::string_view piece, bool hidden) {
    for (char c : piece) {
      if (hidden)
        out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
      else
        out += c == '\\' || c == '\'' ? std::string{'\\', c} : std::string(1, c);
    }
  });
  return out + "'";
}

} // namespace

bool shell_bare_ok(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("._-+:/=@%,").find(c) != std::string_view::npos;
}

std::string shell_quote(std::string_view word) {
  if (word.find('\0') != std::string_view::npos)
    throw std::invalid_argument("a value with a NUL byte cannot be passed to bash");
  if (!word.empty() && std::all_of(word.begin(), word.end(), shell_bare_ok) && word[0] != '=')
    return std::string(word);
  if (escape::one_line(word) != word) return ansi_c_quote(word);
  std::string out = "'";
  for (char c : word)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

} // namespace gpudoctor
