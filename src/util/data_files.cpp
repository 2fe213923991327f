#include "util/data_files.hpp"

#include "util/embedded.hpp"
#include "util/file_text.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

namespace gpudoctor {

std::string fixes_folder(const std::string& source_dir) {
  return source_dir.empty() ? std::string() : fmt::format("{}/fixes", source_dir);
}

std::string data_file_label(std::string_view folder, const std::string& dir, std::string_view name) {
  return fmt::format("{}/{}", dir.empty() ? folder : std::string_view(dir), name);
}

std::expected<std::vector<std::string>, std::string>
list_data_files(std::string_view folder, const std::string& dir, std::string_view suffix) {
  std::vector<std::string> names;
  if (dir.empty()) {
    std::string prefix = fmt::format("{}/", folder);
    for (const auto& [path, content] : embedded_data_files())
      if (text::starts_with(path, prefix) && text::ends_with(path, suffix) &&
          path.find('/', prefix.size()) == std::string::npos)
        names.emplace_back(path.substr(prefix.size()));
  } else {
    namespace fs = std::filesystem;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec; // a dangling link is skipped, not an error for the whole folder
      std::string name = it->path().filename().string();
      if (text::ends_with(name, suffix) && it->is_regular_file(type_ec)) names.push_back(name);
    }
    if (ec) return std::unexpected(fmt::format("cannot read the folder {}: {}", dir, ec.message()));
  }
  std::ranges::sort(names);
  return names;
}

std::expected<std::string, std::string> read_data_file(std::string_view folder, const std::string& dir,
                                                       std::string_view name) {
  std::string label = data_file_label(folder, dir, name);
  if (dir.empty()) {
    const auto& files = embedded_data_files();
    auto it = files.find(label);
    if (it == files.end()) return std::unexpected(fmt::format("{} is not built into this gpudoctor", label));
    return std::string(it->second);
  }
  auto content = read_whole_file(label);
  if (!content) return std::unexpected(fmt::format("cannot read {}", label));
  return *content;
}

} // namespace gpudoctor
