#include "parse/parsers.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

OsRelease os_release(std::string_view text) {
  OsRelease out;
  std::string ubuntu_codename;
  // key_values drops comments and surrounding quotes; a later assignment wins, as in a shell.
  for (const auto& [key, value] : text::key_values(text)) {
    if (key == "ID")
      out.id = value;
    else if (key == "VERSION_ID")
      out.version_id = value;
    else if (key == "VERSION_CODENAME")
      out.codename = value;
    else if (key == "UBUNTU_CODENAME")
      ubuntu_codename = value;
    else if (key == "PRETTY_NAME")
      out.pretty_name = value;
    else if (key == "NAME")
      out.name = value;
    else if (key == "ID_LIKE")
      out.id_like = text::split(value, ' ');
  }
  // Ubuntu derivatives (Mint, Pop!_OS) may carry only UBUNTU_CODENAME.
  if (out.codename.empty()) out.codename = ubuntu_codename;
  return out;
}

} // namespace gpudoctor::parse
