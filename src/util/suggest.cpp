#include "util/suggest.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <cstddef>

namespace gpudoctor {

namespace {

constexpr std::size_t k_longest = 64;

} // namespace

std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty() || word.size() > k_longest) return {};
  // Three letters past the dashes before a prefix counts: "--f" is the prefix of half the options.
  if (word.size() - std::min(word.find_first_not_of('-'), word.size()) >= 3) {
    const std::string* prefixed = nullptr;
    std::size_t count = 0;
    for (const auto& c : candidates)
      if (c.size() > word.size() && c.starts_with(word)) {
        prefixed = &c;
        ++count;
      }
    if (count == 1) return *prefixed;
    if (count > 1) return {}; // a prefix of several: which one is a guess
  }
  std::string best;
  std::size_t best_distance = k_longest + 1;
  bool tie = false;
  for (const auto& c : candidates) {
    if (c.size() > k_longest || c == word) continue;
    std::size_t limit = std::clamp<std::size_t>(std::max(word.size(), c.size()) / 3, 1, 3);
    std::size_t d = text::edit_distance(word, c);
    if (d > limit) continue;
    if (d < best_distance) {
      best = c;
      best_distance = d;
      tie = false;
    } else if (d == best_distance && c != best) {
      tie = true;
    }
  }
  return tie ? std::string() : best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string n = nearest_word(word, candidates);
  return n.empty() ? std::string() : " (did you mean " + n + "?)";
}

} // namespace gpudoctor
