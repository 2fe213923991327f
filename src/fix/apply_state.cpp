#include "fix/apply_state.hpp"

#include "fix/apply.hpp"
#include "system/process.hpp"
#include "util/atomic_file.hpp"
#include "util/escape.hpp"
#include "util/file_text.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace gpudoctor::fix {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

} // namespace

std::string user_state_home() {
  return env_or("XDG_STATE_HOME", env_or("HOME", "/root") + "/.local/state");
}

std::string read_text(const std::string& path) {
  return read_whole_file(path).value_or("");
}

bool have_sudo() {
  return !find_program("sudo", env_or("PATH", "/usr/bin:/bin")).empty();
}

bool confirm(const std::string& question) {
  if (!::isatty(STDIN_FILENO)) return false;
  std::printf("%s [y/N] ", question.c_str());
  std::fflush(stdout);
  std::string answer;
  std::getline(std::cin, answer);
  return answer == "y" || answer == "Y" || answer == "yes";
}

bool Record::save() const {
  struct stat before {};
  bool existed = ::stat(path.c_str(), &before) == 0;
  auto r = atomic_write(path, dump_json(doc) + "\n", 0600);
  if (!r) {
    std::fprintf(stderr, "gpudoctor: cannot save the state: %s\n", escape::one_line(r.error()).c_str());
    return false;
  }
  // Root undoing a user's apply (undo --state) leaves the user's state file the user's.
  if (existed && ::geteuid() == 0 && ::chown(path.c_str(), before.st_uid, before.st_gid) != 0)
    std::fprintf(stderr, "gpudoctor: cannot give %s back to its owner: %s\n", escape::one_line(path).c_str(),
                 std::strerror(errno));
  return true;
}

std::string state_dir(const std::string& root) {
  if (!root.empty() || ::geteuid() == 0) return root + "/var/lib/gpudoctor";
  return user_state_home() + "/gpudoctor";
}

} // namespace gpudoctor::fix
