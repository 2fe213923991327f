// What libarchive says went wrong with an archive handle (util/archive writes, util/unpack reads).
#pragma once

#include <string>

#include <archive.h>

namespace gpudoctor {

inline std::string libarchive_error(archive* a) {
  const char* msg = archive_error_string(a);
  return msg ? msg : "unknown libarchive error";
}

} // namespace gpudoctor
