#include "util/shared_library.hpp"

#include "util/diagnostics.hpp"

#include <cstdlib>
#include <dlfcn.h>

#include <fmt/format.h>

namespace gpudoctor {

SharedLibrary::SharedLibrary(const char* soname, const char* purpose, const char* package)
    : m_soname(soname), m_purpose(purpose), m_package(package) {}

std::expected<void, std::string> SharedLibrary::available() {
  std::call_once(m_opened, [this] {
    // RTLD_LOCAL: its symbols serve the stubs that ask for them, never another library's lookups.
    m_handle = dlopen(m_soname, RTLD_NOW | RTLD_LOCAL);
    if (!m_handle) {
      const char* why = dlerror();
      m_error = fmt::format("{} needs {}, which could not be loaded ({}): install {}", m_purpose, m_soname,
                            why ? why : "not found", m_package);
    }
  });
  if (!m_handle) return std::unexpected(m_error);
  return {};
}

void* SharedLibrary::symbol(const char* name) {
  if (auto ok = available(); !ok) {
    diag::error("{}", ok.error());
    std::exit(exit_code(Exit::internal)); // a caller skipped available()
  }
  void* address = dlsym(m_handle, name);
  if (!address) {
    diag::error("{} has no {}: install a newer {}", m_soname, name, m_package);
    std::exit(exit_code(Exit::internal));
  }
  return address;
}

SharedLibrary& libarchive_library() {
  static SharedLibrary library("libarchive.so.13", "Reading and writing bundles",
                               "libarchive13 (Debian, Ubuntu) or libarchive (RHEL, Fedora)");
  return library;
}

SharedLibrary& libcurl_library() {
  static SharedLibrary library("libcurl.so.4", "Network access (--upload, --online)",
                               "libcurl4 (Debian, Ubuntu) or libcurl (RHEL, Fedora)");
  return library;
}

} // namespace gpudoctor
