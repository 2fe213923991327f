// util/url_text: URLs read as text, for reports (credentials out) and for matching known hosts.
#include "util/url_text.hpp"

#include <doctest/doctest.h>

using namespace gpudoctor;

TEST_CASE("url text: credentials never reach a report") {
  CHECK(url_without_credentials("https://user:token@pypi.corp/simple") ==
        "https://<redacted>@pypi.corp/simple");
  CHECK(url_without_credentials("https://download.pytorch.org/whl/cu124") ==
        "https://download.pytorch.org/whl/cu124");
  CHECK(url_without_credentials("http://proxy.corp:3128") == "http://proxy.corp:3128");
  CHECK(url_without_credentials("https://host/path@v1") == "https://host/path@v1");
}

TEST_CASE("url text: a URL's host, for matching known hosts") {
  CHECK(url_host("https://u:p@Repo.Radeon.com:443/amdgpu/6.2") == "repo.radeon.com");
  CHECK(url_host("http://deb.debian.org/debian") == "deb.debian.org");
  CHECK(url_host("developer.download.nvidia.com/compute/cuda/repos") == "developer.download.nvidia.com");
  CHECK(url_host("https://host?x=a@b") == "host");
  CHECK(url_host("https://host#frag") == "host");
  CHECK(url_host("") == "");
  CHECK(url_host("file:///var/cache/x") == "");
}
