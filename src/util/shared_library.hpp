// Libraries only some commands need (libarchive: bundles; libcurl: --upload, --online), opened when first
// used instead of at every start: the dynamic loader spent 25 of `check`'s milliseconds mapping and
// relocating them and their 35 dependencies (docs/architecture.md, "Libraries loaded when used").
#pragma once

#include <expected>
#include <mutex>
#include <string>
#include <string_view>

namespace gpudoctor {

// One library, opened once (thread-safe) by its soname through the system's search path.
class SharedLibrary {
public:
  // `soname` ("libarchive.so.13"); `purpose` and `package` complete the message when it is missing:
  // "<purpose> needs libarchive.so.13, which could not be loaded (...): install <package>".
  SharedLibrary(const char* soname, const char* purpose, const char* package);

  // Whether it could be opened; the reason, as a sentence, when not.
  std::expected<void, std::string> available();
  // The address of `name` in it; a missing library or symbol ends gpudoctor with the reason (callers ask
  // available() first, at the command's entry, so this is a broken installation).
  void* symbol(const char* name);

private:
  const char* m_soname;
  const char* m_purpose;
  const char* m_package;
  std::once_flag m_opened;
  void* m_handle = nullptr;
  std::string m_error;
};

// The two libraries, each opened on first use.
SharedLibrary& libarchive_library();
SharedLibrary& libcurl_library();

} // namespace gpudoctor
