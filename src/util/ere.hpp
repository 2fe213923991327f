// POSIX extended regular expressions (the dialect the scripts' awk and grep -E use), for patterns that come
// from data (fixes/stacks.yaml). glibc's matcher keeps its state on the heap, unlike std::regex, whose
// recursion overflows the stack on long input; callers still bound what they hand it (max_input).
#pragma once

#include <expected>
#include <memory>
#include <string>
#include <string_view>

namespace gpudoctor {

class Ere {
public:
  // Refuses anything regcomp refuses, naming the pattern.
  static std::expected<Ere, std::string> compile(const std::string& pattern);

  // Whether the whole of `s` matches. Input longer than `max_input` never matches: no name or path
  // gpudoctor compares is that long, and the matcher's work stays bounded.
  bool full_match(std::string_view s, std::size_t max_input = 4096) const;

private:
  struct Compiled;
  std::shared_ptr<const Compiled> m_re;
};

} // namespace gpudoctor
