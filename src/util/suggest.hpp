// "Did you mean": the nearest of the words gpudoctor knows (a subcommand, an option, a check or fix id) to
// one it did not understand, as git suggests a command.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

// The candidate nearest to `word`: the one it is a prefix of, when only one is (3 characters at least; none
// when several are), else the one at the smallest edit distance (a swap of two neighbours is one edit), when
// that is at most a third of the longer word (at least 1, at most 3) and no other is as near. Empty when none
// is near enough, and for words longer than 64 characters (the cost stays bounded: at most 64 x 64 cells per
// candidate).
std::string nearest_word(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean X?)" for the nearest, or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

} // namespace gpudoctor
