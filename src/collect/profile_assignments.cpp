#include "collect/profile_assignments.hpp"

namespace gpudoctor {

parse::ShellProfile profile_assignments(const ProfileFile& file) {
  if (file.format == ConfigFormat::shell) return parse::shell_profile(file.content, file.path);
  return parse::etc_environment(file.content, file.path);
}

} // namespace gpudoctor
