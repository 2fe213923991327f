#include "util/build_info.hpp"

#include <fmt/format.h>

namespace gpudoctor::build_info {

std::string describe() {
  return fmt::format("gpudoctor {} (commit {}, built {})", version, commit, date);
}

} // namespace gpudoctor::build_info
