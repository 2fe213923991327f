#include "bundle/obfuscate.hpp"

#include "bundle/tree_rewrite.hpp"

#include <algorithm>
#include <cctype>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

} // namespace

std::string replace_words(std::string_view text, const StandIns& words) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    bool replaced = false;
    if (i == 0 || !word_char(text[i - 1]))
      for (const auto& [word, stand_in] : words) {
        if (word.empty() || text.compare(i, word.size(), word) != 0) continue;
        std::size_t end = i + word.size();
        if (end < text.size() && word_char(text[end])) continue;
        out += stand_in;
        i = end;
        replaced = true;
        break;
      }
    if (!replaced) out += text[i++];
  }
  return out;
}

std::vector<std::string> obfuscate_tree(const fs::path& dir, const StandIns& words,
                                        const std::vector<std::string>& skip) {
  TreeRewrite rewrite;
  rewrite.content = [&](const std::string&, std::string_view content) -> std::optional<std::string> {
    return replace_words(content, words);
  };
  rewrite.name = [&](const std::string& name) { return replace_words(name, words); };
  return rewrite_tree(dir, rewrite, skip);
}

} // namespace gpudoctor
