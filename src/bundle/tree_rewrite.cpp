#include "bundle/tree_rewrite.hpp"

#include "util/file_text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t k_max_rewritten_bytes = 64u << 20;

std::ptrdiff_t depth(const fs::path& p) {
  return std::distance(p.begin(), p.end());
}

} // namespace

TreeRewritten rewrite_tree(const fs::path& dir, const TreeRewrite& rewrite,
                           const std::vector<std::string>& skip) {
  TreeRewritten out;
  std::vector<fs::path> entries;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::none, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    entries.push_back(it->path());
  std::sort(entries.begin(), entries.end(), [](const fs::path& a, const fs::path& b) {
    return depth(a) > depth(b) || (depth(a) == depth(b) && a < b);
  });
  for (const auto& path : entries) {
    std::string rel = path.lexically_relative(dir).generic_string();
    if (std::find(skip.begin(), skip.end(), rel) != skip.end()) continue;
    bool touched = false;
    auto status = fs::symlink_status(path, ec);
    if (fs::is_symlink(status) && rewrite.name) {
      std::string target = fs::read_symlink(path, ec).string();
      std::string new_target = rewrite.name(target);
      if (!ec && new_target != target) {
        fs::remove(path, ec);
        fs::create_symlink(new_target, path, ec);
        if (ec)
          out.failed.push_back(fmt::format("cannot rewrite the link {}: {}", path.string(), ec.message()));
        touched = true;
      }
    } else if (fs::is_regular_file(status) && rewrite.content &&
               fs::file_size(path, ec) <= k_max_rewritten_bytes) {
      std::string content = read_whole_file(path).value_or("");
      if (content.find('\0') == std::string::npos)
        if (auto scrubbed = rewrite.content(rel, content); scrubbed && *scrubbed != content) {
          auto written = write_whole_file(path, *scrubbed);
          if (!written) out.failed.push_back(written.error());
          touched = true;
        }
    }
    std::string name = path.filename().string();
    std::string new_name = rewrite.name ? rewrite.name(name) : name;
    if (new_name != name && !new_name.empty() && new_name.find('/') == std::string::npos &&
        !fs::exists(fs::symlink_status(path.parent_path() / new_name, ec))) {
      fs::rename(path, path.parent_path() / new_name, ec);
      if (ec) out.failed.push_back(fmt::format("cannot rename {}: {}", path.string(), ec.message()));
      touched = true;
    }
    if (touched) out.changed.push_back(rel);
  }
  std::sort(out.changed.begin(), out.changed.end());
  return out;
}

} // namespace gpudoctor
