// The machine's files that gpudoctor reads whole and parses, each with a bound (docs/security.md, "Limits").
// Past a bound the machine still gets its report: the input is left out, and the checks that need it skip
// saying why. A snapshot is judged as its machine would be (one 2 MiB ~/.bashrc costs a stranger's bundle
// none of the rest of its diagnosis), and the sizes are read before any content.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpudoctor {

// One shell profile or /etc/environment: the largest a distribution or a vendor installs is a few KiB
// (conda's, with its functions, about 10 KiB).
inline constexpr std::uint64_t k_max_profile_bytes = 1 << 20;
// All the profiles of a login together.
inline constexpr std::uint64_t k_max_profiles_bytes = 8 << 20;
// The .sh files of /etc/profile.d.
inline constexpr std::size_t k_max_profile_files = 1024;
// Installed packages in dpkg's status file (Debian 13's amd64 archive holds about 70,000 binary packages; a
// full desktop installs 2,000 to 5,000).
inline constexpr std::size_t k_max_packages = 50000;

// "64 MiB", "12.5 MiB", "512 KiB", "1048676 bytes": a size in the words of a limit's message.
std::string size_words(std::uint64_t bytes);

// How many paragraphs of dpkg's status file name a package ("Package:" at the start of a line).
std::size_t dpkg_package_count(std::string_view status);

} // namespace gpudoctor
