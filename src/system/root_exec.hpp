// What root starts (docs/security.md, "Executing as root"). When gpudoctor's effective uid is 0, every
// program it starts is resolved to an absolute path and run only when distrust_for_root (system/root_trust)
// finds nothing against it; on PATH an untrusted match is skipped and the search goes on. A user's
// interpreter that fails the rule is run as the one account that can change it (in a child that takes that
// account's uid and groups, no capabilities and PR_SET_NO_NEW_PRIVS: system/process), never as root. Root's
// children get the caller's environment less what makes a program load or run code the caller names.
// As any other user, gpudoctor runs what the PATH names, as it always did.
#pragma once

#include "system/system_view.hpp"

#include <expected>
#include <map>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace gpudoctor {

// Whether the rules of this file apply: the effective uid is 0.
bool running_as_root();

// An account a child runs as: computed before the fork (the user database is not async-signal-safe).
struct Credentials {
  uid_t uid = 0;
  gid_t gid = 0;             // the primary group
  std::vector<gid_t> groups; // every group of the account (getgrouplist), the primary one included
  std::string user;
};

// The account of `uid` with its groups; refused for root and for a uid that names no account.
std::expected<Credentials, std::string> credentials_of(uid_t uid);

// The program root runs for `name` (a name looked up on `path_var`, or a path).
struct ProgramChoice {
  std::string path;                   // absolute, as the machine (or `root`) names it; empty: nothing runs
  std::optional<Credentials> as_user; // run as this account (a user's interpreter), not as root
  std::vector<UntrustedProgram> untrusted; // what was skipped on the way, or ran as its owner, in PATH order
};

// As root: the first `name` on `path_var` that passes the trust rule; an untrusted one is skipped (and said).
// `interpreter`: the first match that fails the rule runs as the one account that can change it, if there
// is one (root_trust's sole_owner), instead. `root`: judge below that folder (--root R; its programs run in
// `chroot R`, where no interpreter is run as another account: those are skipped).
ProgramChoice choose_program(const std::string& name, const std::string& path_var, bool interpreter,
                             const std::string& root = {});

// As root, the environment a child gets: `env` less the loader, shell and interpreter start-up hooks
// (k_root_hooks in root_exec.cpp, each with its reason), PATH less the folders root cannot trust (judged
// below `root`), and HOME replaced by root's own when another user can change it.
std::map<std::string, std::string> root_child_environment(const std::map<std::string, std::string>& env,
                                                          const std::string& root = {});

// Why root's children do not get the variable `name` with `value`, or nothing when they do (PATH and HOME are
// rewritten, not dropped).
std::optional<std::string> root_hook_reason(const std::string& name, const std::string& value);

// The PATH root's children get when none of the caller's folders can be trusted.
inline constexpr const char* k_root_fallback_path =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

} // namespace gpudoctor
