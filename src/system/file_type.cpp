#include "system/system_view.hpp"

namespace gpudoctor {

std::string file_type_name(FileType type) {
  switch (type) {
  case FileType::file:
    return "file";
  case FileType::dir:
    return "dir";
  case FileType::link:
    return "link";
  case FileType::chr:
    return "char";
  case FileType::block:
    return "block";
  case FileType::fifo:
    return "fifo";
  case FileType::socket:
    return "socket";
  case FileType::other:
    break;
  }
  return "other";
}

std::optional<FileType> file_type_from_name(const std::string& name) {
  for (auto t : {FileType::file, FileType::dir, FileType::link, FileType::chr, FileType::block,
                 FileType::fifo, FileType::socket})
    if (file_type_name(t) == name) return t;
  return std::nullopt;
}

} // namespace gpudoctor
