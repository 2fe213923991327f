// util/shared_library: libraries opened when a command first needs them, and the sentence a missing one
// gives instead of a loader error at every start.
#include "util/shared_library.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;

TEST_CASE("shared library: a missing one is a sentence naming it, its use and its package") {
  SharedLibrary absent("libgpudoctor-absent.so.0", "Testing absence", "gpudoctor-absent0");
  auto first = absent.available();
  REQUIRE_FALSE(first.has_value());
  CHECK(first.error().find("Testing absence needs libgpudoctor-absent.so.0") == 0);
  CHECK(first.error().find("install gpudoctor-absent0") != std::string::npos);
  // Asked again, the same answer (opened once).
  auto second = absent.available();
  REQUIRE_FALSE(second.has_value());
  CHECK(second.error() == first.error());
}

TEST_CASE("shared library: libarchive and libcurl open by soname and give their symbols") {
  REQUIRE(libarchive_library().available().has_value());
  CHECK(libarchive_library().symbol("archive_read_new") != nullptr);
  REQUIRE(libcurl_library().available().has_value());
  CHECK(libcurl_library().symbol("curl_easy_init") != nullptr);
}
