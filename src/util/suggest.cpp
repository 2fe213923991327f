#include "util/suggest.hpp"

#include <algorithm>
#include <cstddef>

namespace gpudoctor {

namespace {

constexpr std::size_t k_longest = 64;

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

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
    std::size_t d = edit_distance(word, c);
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
