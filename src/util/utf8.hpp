// UTF-8 as RFC 3629 has it (no overlong forms, no surrogates, nothing past U+10FFFF): one decoder for the
// escaping of outputs (util/escape) and the JSON reader (util/json_reader), so both call the same bytes
// valid.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace gpudoctor::utf8 {

// The code point of the sequence at s[i] and its length; length 0 when the bytes there are not UTF-8 (a stray
// continuation byte, a truncated or overlong sequence, a surrogate, beyond U+10FFFF).
std::pair<char32_t, std::size_t> decode(std::string_view s, std::size_t i);

// Whether all of `s` is UTF-8 (ASCII runs are stepped over eight bytes at a time).
bool valid(std::string_view s);

// Appends the encoding of a code point (at most U+10FFFF, not a surrogate).
void append(std::string& out, char32_t cp);

} // namespace gpudoctor::utf8
