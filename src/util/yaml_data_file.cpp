// The one reader of gpudoctor's YAML data files by name: the built-in ones from the trees the build packed
// (util/embedded.hpp), a folder's (--knowledge DIR, fix tests' source folders) parsed as they are.
#include "util/data_files.hpp"
#include "util/embedded.hpp"
#include "util/yaml_doc.hpp"

namespace gpudoctor::yaml {

std::expected<Node, std::string> parse_data_file(std::string_view folder, const std::string& dir,
                                                 std::string_view name) {
  std::string label = data_file_label(folder, dir, name);
  if (dir.empty()) {
    const auto& trees = embedded_packed_trees();
    if (auto it = trees.find(label); it != trees.end()) return unpack(label, it->second);
  }
  auto text = read_data_file(folder, dir, name);
  if (!text) return std::unexpected(text.error());
  return parse(label, *text);
}

} // namespace gpudoctor::yaml
