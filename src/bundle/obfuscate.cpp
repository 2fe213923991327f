#include "bundle/obfuscate.hpp"

#include "util/file_text.hpp"

#include <algorithm>
#include <cctype>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

// Recorded files are configuration, listings and tool outputs; a larger file is no text worth rewriting.
constexpr std::uintmax_t k_max_text_bytes = 16u << 20;

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
  std::vector<std::string> changed;
  std::vector<fs::path> entries;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::none, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    entries.push_back(it->path());
  // Deepest first: a folder is renamed after everything below it.
  std::sort(entries.begin(), entries.end(), [](const fs::path& a, const fs::path& b) {
    auto depth = [](const fs::path& p) { return std::distance(p.begin(), p.end()); };
    return depth(a) > depth(b) || (depth(a) == depth(b) && a < b);
  });
  for (const auto& path : entries) {
    std::string rel = path.lexically_relative(dir).generic_string();
    if (std::find(skip.begin(), skip.end(), rel) != skip.end()) continue;
    bool touched = false;
    auto status = fs::symlink_status(path, ec);
    if (fs::is_symlink(status)) {
      std::string target = fs::read_symlink(path, ec).string();
      std::string new_target = replace_words(target, words);
      if (!ec && new_target != target) {
        fs::remove(path, ec);
        fs::create_symlink(new_target, path, ec);
        touched = true;
      }
    } else if (fs::is_regular_file(status) && fs::file_size(path, ec) <= k_max_text_bytes) {
      std::string content = read_whole_file(path).value_or("");
      if (content.find('\0') == std::string::npos) {
        std::string scrubbed = replace_words(content, words);
        if (scrubbed != content) touched = write_whole_file(path, scrubbed);
      }
    }
    std::string name = path.filename().string();
    std::string new_name = replace_words(name, words);
    if (new_name != name && !fs::exists(fs::symlink_status(path.parent_path() / new_name, ec))) {
      fs::rename(path, path.parent_path() / new_name, ec);
      touched = true;
    }
    if (touched) changed.push_back(rel);
  }
  std::sort(changed.begin(), changed.end());
  return changed;
}

} // namespace gpudoctor
