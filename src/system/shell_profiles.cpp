#include "system/shell_profiles.hpp"

#include "system/config_files.hpp"
#include "system/input_limits.hpp"
#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor {

std::vector<ProfilePath> shell_profile_paths(SystemView& view, const std::string& home,
                                             std::size_t* listed_profile_d) {
  std::vector<ProfilePath> files;
  std::size_t listed = 0;
  for (const auto& row : config_files()) {
    if (row.use != ConfigUse::profile || (row.in_home && home.empty())) continue;
    if (auto folder = config_folder(row)) {
      std::string dir = std::string(folder->folder); // system folders only: no home row is one
      if (auto names = view.list_dir(dir))
        for (const auto& name : *names)
          if (text::ends_with(name, folder->suffix) && ++listed <= k_max_profile_files)
            files.push_back({dir + "/" + name, row.format});
      continue;
    }
    files.push_back({row.in_home ? in_home(home, row) : std::string(row.path), row.format});
  }
  if (listed_profile_d) *listed_profile_d = listed;
  return files;
}

ShellProfiles read_shell_profiles(SystemView& view, const std::string& home) {
  ShellProfiles out;
  std::size_t listed = 0;
  std::uint64_t total = 0;
  auto leave_out = [&](const std::string& path, std::string why) {
    view.leave_out(path, why);
    out.not_read.push_back(std::move(why));
  };
  // Whether a profile of `size` bytes is read after those before it; when not, it is left out saying why.
  auto within_bounds = [&](const std::string& path, std::uint64_t size) {
    if (size > k_max_profile_bytes)
      leave_out(path, fmt::format("{} holds {}, more than the {} gpudoctor reads of a shell profile", path,
                                  size_words(size), size_words(k_max_profile_bytes)));
    else if (total + size > k_max_profiles_bytes)
      leave_out(path, fmt::format("{}: the shell profiles read before it hold {}, and all together no more "
                                  "than {} are read",
                                  path, size_words(total), size_words(k_max_profiles_bytes)));
    else
      return true;
    return false;
  };
  for (const auto& [path, format] : shell_profile_paths(view, home, &listed)) {
    if (auto why = view.left_out(path)) { // by the live run this snapshot recorded
      out.not_read.push_back(std::move(*why));
      continue;
    }
    // The size first where the view knows it (a 64 MiB profile is never read to be refused), and the
    // content's after (a view that cannot tell, a file that grew in between).
    if (auto size = view.file_size(path); size && !within_bounds(path, *size)) continue;
    auto content = view.read_file(path);
    if (!content || !within_bounds(path, content->size())) continue;
    total += content->size();
    out.files.push_back({path, std::move(*content), format});
  }
  if (listed > k_max_profile_files)
    for (const auto& row : config_files())
      if (auto folder = config_folder(row); folder && row.use == ConfigUse::profile) {
        std::string dir(folder->folder);
        leave_out(dir, fmt::format("{} lists {} {} files: only the first {} are read", dir, listed,
                                   folder->suffix, k_max_profile_files));
      }
  return out;
}

} // namespace gpudoctor
