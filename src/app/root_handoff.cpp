#include "app/root_handoff.hpp"

#include "fix/apply.hpp"
#include "fix/script_text.hpp"
#include "system/machine_paths.hpp"
#include "system/process.hpp"
#include "util/escape.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

std::vector<std::string> g_arguments;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The folders of sudo's usual secure_path: a python3 there is one root finds itself.
bool in_system_folder(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  for (const char* d : {"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"})
    if (dir == d) return true;
  return false;
}

std::string quoted(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words)
    out += " " + shell_quote(w);
  return out;
}

} // namespace

void remember_arguments(int argc, char** argv) {
  g_arguments.assign(argv + std::min(argc, 1), argv + argc);
}

const std::vector<std::string>& given_arguments() {
  return g_arguments;
}

std::string given_command() {
  return "gpudoctor" + quoted(g_arguments);
}

std::vector<std::string> session_python_options(const std::vector<std::string>& given) {
  std::vector<std::string> found;
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (std::string prefix = env(var); !prefix.empty() && prefix[0] == '/')
      if (::access((prefix + "/bin/python3").c_str(), X_OK) == 0) found.push_back(prefix + "/bin/python3");
  std::string on_path = find_program("python3", env("PATH"));
  if (!on_path.empty() && on_path[0] == '/' && !in_system_folder(on_path)) found.push_back(on_path);
  std::vector<std::string> out;
  for (const auto& p : found)
    if (std::find(given.begin(), given.end(), p) == given.end() &&
        std::find(out.begin(), out.end(), "--python=" + p) == out.end())
      out.push_back("--python=" + p);
  return out;
}

Outcome run_as_root(const std::vector<std::string>& args, const std::string& why) {
  std::error_code ec;
  std::string self = std::filesystem::read_symlink(paths::self_exe, ec).string();
  if (self.empty() || self[0] != '/' || self.ends_with(" (deleted)"))
    return fail_with(Exit::usage,
                     fmt::format("{} needs root, and this gpudoctor cannot tell its own path; as root:", why),
                     {"gpudoctor" + quoted(args)});
  std::string sudo = find_program("sudo", env("PATH"));
  if (sudo.empty())
    return fail_with(Exit::usage, fmt::format("{} needs root and sudo is not installed; as root, run:", why),
                     {self + quoted(args)});
  std::vector<std::string> argv = {sudo, "--", self};
  argv.insert(argv.end(), args.begin(), args.end());
  std::string head = why;
  if (!head.empty()) head[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(head[0])));
  std::printf("%s needs root: gpudoctor runs it as root through sudo:\n    %s\n", head.c_str(),
              escape::one_line("sudo --" + quoted({self}) + quoted(args)).c_str());
  std::fflush(stdout);
  // Root's gpudoctor said what went wrong, if anything: its exit status is passed on as it is.
  return static_cast<Exit>(run_foreground(argv));
}

void note_root_apply(const std::string& what) {
  if (auto r = fix::note_root_apply(what); !r) diag::warning("{}", r.error());
}

} // namespace gpudoctor
