// The outputs a command line names (`check -o`, `fix`/`migrate --emit`, `bundle -o`, `fleet -o`, `diff -o`),
// which root may be asked to write into a folder another user can change (docs/security.md, "Writing as
// root"). The folder is opened once, component by component from `/` without following a link by name
// (openat, O_NOFOLLOW); every later step is relative to its descriptor (util/atomic_file), so a folder
// renamed or swapped for a link after it was opened cannot redirect the write. Run as root, a link on the way
// is followed only where no other user can change it (system/root_trust's rule for a folder root writes
// into); a link another user can change refuses the output with the reason.
#pragma once

#include "util/atomic_file.hpp"

#include <expected>
#include <string>
#include <string_view>

namespace gpudoctor {

class OutputFolder {
public:
  // The folder that will hold `path` (missing folders are created), and the name in it. `as_root`: whether
  // the links on the way are judged (the effective uid is 0); otherwise they are followed as the kernel does.
  static std::expected<OutputFolder, std::string> open_for(const std::string& path, bool as_root);
  OutputFolder(OutputFolder&& other) noexcept;
  OutputFolder& operator=(OutputFolder&& other) noexcept;
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;
  ~OutputFolder();

  // util/atomic_file's replace_in_folder in this folder, the temporary file registered for removal on an
  // interruption (system/temp_files).
  std::expected<void, std::string> replace(unsigned mode, const FillFile& fill) const;
  int fd() const { return m_fd; }
  const std::string& name() const { return m_name; }
  const std::string& path() const { return m_path; } // as given

private:
  OutputFolder(int fd, std::string name, std::string path)
      : m_fd(fd), m_name(std::move(name)), m_path(std::move(path)) {}
  int m_fd = -1;
  std::string m_name;
  std::string m_path;
};

// Writes `content` to the output `path` with permission bits `mode`, as above, judging links when the
// effective uid is 0.
std::expected<void, std::string> write_output(const std::string& path, std::string_view content,
                                              unsigned mode);

} // namespace gpudoctor
