#include "system/root_exec.hpp"

#include "system/process.hpp"
#include "system/root_trust.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// A variable (or, with a trailing '*', a family) that makes a program root starts load or run code, or read
// files, that the caller names. Mostly sudo's list of the variables it removes (sudoers(5), "Command
// environment"; plugins/sudoers/env.c), with the loaders and interpreters gpudoctor's tools are.
struct Hook {
  const char* name;
  const char* why;
};
constexpr Hook k_root_hooks[] = {
    {"LD_*", "the dynamic loader: LD_PRELOAD and LD_AUDIT load libraries into the program, LD_LIBRARY_PATH "
             "picks them"},
    {"GCONV_PATH", "glibc's iconv loads the conversion modules of that folder"},
    {"GLIBC_TUNABLES", "glibc parses it in every program at start-up (CVE-2023-4911)"},
    {"LOCPATH", "glibc reads locale files from that folder"},
    {"NLSPATH", "catopen reads message catalogues from there"},
    {"HOSTALIASES", "the resolver reads the file it names"},
    {"RES_OPTIONS", "changes the resolver's behaviour"},
    {"LOCALDOMAIN", "changes the resolver's search list"},
    {"PYTHON*",
     "Python's start-up: PYTHONPATH and PYTHONHOME decide what `import` loads (a planted site.py), "
     "PYTHONSTARTUP, PYTHONWARNINGS and PYTHONINSPECT import or run code"},
    {"BASH_ENV", "bash sources that file before every script"},
    {"ENV", "sh (dash, and bash as sh) sources that file"},
    {"BASH_FUNC_*", "an exported bash function replaces a command in every bash script (dkms is one)"},
    {"SHELLOPTS", "sets bash options in scripts: xtrace then expands PS4, command substitutions included"},
    {"BASHOPTS", "sets bash's shopt options in scripts"},
    {"PS4", "bash expands it, command substitutions included, for each line it traces"},
    {"IFS", "shells that import IFS split a script's words elsewhere"},
    {"CDPATH", "`cd` in a script goes to a folder of the caller's choice"},
    {"GLOBIGNORE", "a script's globs leave files out"},
    {"FPATH", "ksh and zsh autoload functions from there"},
    {"ZDOTDIR", "zsh reads its start-up files from there"},
    {"PERL5LIB", "perl loads modules from there"},
    {"PERLLIB", "perl loads modules from there"},
    {"PERL5OPT", "perl takes it as options: -M loads a module"},
    {"PERL5DB", "perl runs it as its debugger"},
    {"PERLIO_DEBUG", "perl writes its debug log to that file"},
    {"RUBYOPT", "ruby takes it as options: -r loads a library"},
    {"RUBYLIB", "ruby loads libraries from there"},
    {"NODE_OPTIONS", "node takes it as options: --require loads a module"},
    {"NODE_PATH", "node loads modules from there"},
    {"JAVA_TOOL_OPTIONS", "the JVM loads the agents it names"},
    {"_JAVA_OPTIONS", "the JVM takes it as options"},
    {"PYENV_HOOK_PATH", "pyenv sources the hooks of those folders (a shim runs `pyenv exec`)"},
    {"DOCKER_CONFIG", "docker's CLI runs the plugins of that folder (cli-plugins) to describe them"},
    {"TERMINFO", "terminal descriptions are parsed from there"},
    {"TERMINFO_DIRS", "terminal descriptions are parsed from there"},
    {"TERMCAP", "a terminal description to parse"},
    {"TERMPATH", "terminal descriptions are parsed from there"},
};

bool matches(const char* pattern, const std::string& name) {
  std::string_view p(pattern);
  if (p.ends_with('*')) return name.starts_with(p.substr(0, p.size() - 1));
  return name == p;
}

template <class Entry, class Lookup> bool lookup(Entry& entry, std::vector<char>& buffer, Lookup find) {
  buffer.resize(16384);
  Entry* found = nullptr;
  return find(&entry, buffer.data(), buffer.size(), &found) == 0 && found;
}

// Root's own home (the user database's), for a HOME another user can change.
std::string root_home() {
  struct passwd pw {};
  std::vector<char> buffer;
  if (lookup(pw, buffer,
             [](struct passwd* e, char* b, std::size_t n, struct passwd** out) {
               return ::getpwuid_r(::geteuid(), e, b, n, out);
             }) &&
      pw.pw_dir && pw.pw_dir[0] == '/')
    return pw.pw_dir;
  return "/root";
}

} // namespace

bool running_as_root() {
  return ::geteuid() == 0;
}

std::expected<Credentials, std::string> credentials_of(uid_t uid) {
  if (uid == 0) return std::unexpected("root's");
  struct passwd pw {};
  std::vector<char> buffer;
  if (!lookup(pw, buffer, [uid](struct passwd* e, char* b, std::size_t n, struct passwd** out) {
        return ::getpwuid_r(uid, e, b, n, out);
      }))
    return std::unexpected(fmt::format("owned by uid {}, which is no account here", uid));
  Credentials c;
  c.uid = uid;
  c.gid = pw.pw_gid;
  c.user = pw.pw_name;
  int count = 32;
  for (int tries = 0; tries < 4; ++tries) {
    c.groups.assign(static_cast<std::size_t>(count), 0);
    int asked = count;
    if (::getgrouplist(pw.pw_name, pw.pw_gid, c.groups.data(), &count) >= 0) break;
    if (count <= asked) count = asked * 4; // some NSS modules do not say how many
  }
  c.groups.resize(static_cast<std::size_t>(std::max(count, 0)));
  if (std::find(c.groups.begin(), c.groups.end(), c.gid) == c.groups.end())
    c.groups.insert(c.groups.begin(), c.gid);
  return c;
}

ProgramChoice choose_program(const std::string& name, const std::string& path_var, bool interpreter,
                             const std::string& root) {
  ProgramChoice choice;
  if (name.empty()) return choice;
  std::vector<std::string> candidates;
  if (name.find('/') != std::string::npos) {
    candidates.push_back(name);
  } else {
    for (const auto& dir : text::split(path_var, ':'))
      candidates.push_back((dir.empty() ? std::string(".") : dir) + "/" + name);
  }
  std::string top = root == "/" ? std::string() : root;
  for (const auto& candidate : candidates) {
    if (!is_executable_file(top + candidate)) continue;
    auto distrust = distrust_for_root(candidate, top);
    if (!distrust) {
      choice.path = candidate;
      for (auto& skipped : choice.untrusted)
        skipped.instead = candidate;
      return choice;
    }
    UntrustedProgram skipped{candidate, distrust->describe(candidate), "", ""};
    if (interpreter) {
      // The interpreter in use, even when it is a user's: inspected as that user, or not at all.
      if (!top.empty()) {
        skipped.why += "; under --root, an interpreter root cannot trust is not inspected";
      } else if (auto owner = sole_owner(candidate); !owner) {
        skipped.why += fmt::format("; no one account to run it as: {}", owner.error());
      } else if (auto account = credentials_of(*owner); !account) {
        skipped.why += fmt::format("; not run as its owner: {}", account.error());
      } else {
        skipped.ran_as = account->user;
        choice.untrusted.push_back(std::move(skipped));
        choice.path = candidate;
        choice.as_user = std::move(*account);
        return choice;
      }
      choice.untrusted.push_back(std::move(skipped));
      return choice; // not another interpreter instead: the report would judge one the user does not use
    }
    choice.untrusted.push_back(std::move(skipped));
  }
  return choice;
}

std::optional<std::string> root_hook_reason(const std::string& name, const std::string& value) {
  for (const auto& hook : k_root_hooks)
    if (matches(hook.name, name)) return std::string(hook.why);
  // Functions exported by a bash from before 2014's fixes, under any name.
  if (value.starts_with("() {")) return std::string("an exported bash function");
  return std::nullopt;
}

std::map<std::string, std::string> root_child_environment(const std::map<std::string, std::string>& env,
                                                          const std::string& root) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : env)
    if (!root_hook_reason(name, value)) out.emplace(name, value);
  // A folder another user can change would hand that user every program a child starts by name (dkms is a
  // bash script; nvcc starts the host compiler).
  if (auto path = out.find("PATH"); path != out.end()) {
    std::vector<std::string> kept;
    for (const auto& dir : text::split(path->second, ':'))
      if (!dir.empty() && dir[0] == '/' && !distrust_for_root(dir, root)) kept.push_back(dir);
    path->second = kept.empty() ? k_root_fallback_path : text::join(kept, ":");
  }
  // Tools read their configuration from HOME, and some of it names programs to run (docker's cli-plugins).
  if (auto home = out.find("HOME"); home != out.end() && distrust_for_root(home->second, root))
    home->second = root_home();
  return out;
}

} // namespace gpudoctor
