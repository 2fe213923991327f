// The one rule root applies before it runs a program, takes a file as its own record, or writes through a
// folder (docs/security.md, "A local user"): the path and every folder above it are owned by root and
// writable by neither group nor others, as OpenSSH's StrictModes judges a key file. Links are followed one
// by one; a link is judged by the folder it stands in (only who may write that folder can change where it
// points), its target by the same rule. Anything else is another user's to change, so root must not act on
// it.
#pragma once

#include <expected>
#include <optional>
#include <string>

namespace gpudoctor {

// Why root must not trust a path: the first place on the way that another user can change.
struct Distrust {
  std::string path; // that place, links resolved up to it (below the judged root, as the machine names it)
  unsigned uid = 0; // its owner
  std::string why;  // "owned by alice", "writable by its group", "writable by others", "missing", ...
  // "owned by alice" when the place is the path itself, else "/home/alice/bin is owned by alice".
  std::string describe(const std::string& asked) const;
};

// Nothing when root may trust `path` (absolute). `root`: judge the path as it is below that folder (the
// tests' --root, whose commands run in a chroot there); the folders above `root` are not judged. A path that
// is missing, not absolute, too long or loops is distrusted too: nothing is known to be root's.
std::optional<Distrust> distrust_for_root(const std::string& path, const std::string& root = {});

// The same rule for a folder root makes its own files and folders in (TMPDIR, an output's folder, the key
// file's folder), with one exception: a root-owned folder with the sticky bit (/tmp, /var/tmp) may be
// writable by others. There an entry can be renamed or removed only by its owner or the folder's (and only
// root makes root-owned ones), so what root makes in it stays root's, and what root judged below it stays as
// judged; a link standing in such a folder is then judged by its own owner, who alone can replace it.
std::optional<Distrust> distrust_for_root_writes(const std::string& folder, const std::string& root = {});

// One place (its owner and mode, not a link) as the rules above judge it: why root must not take it as its
// own, if it must not. `sticky_ok`: distrust_for_root_writes' exception for a sticky folder.
std::optional<std::string> distrust_place(unsigned uid, unsigned mode, bool sticky_ok);

// For a path root must not trust: the one account, other than root, that can change it, so that root may
// run it as that account instead (a user's interpreter, docs/security.md "Executing as root"). The same walk
// as distrust_for_root; every place on the way (folders, the folders links stand in, the file) must be owned
// by root or by that one account, and none writable by others, except a sticky folder (/tmp: only an
// entry's owner may replace it). A place of that account writable by its group is the account's own choice;
// one of root's that a group can write is not. The reason when no one account can be named.
std::expected<unsigned, std::string> sole_owner(const std::string& path, const std::string& root = {});

// Why the file open at `fd` is not a record of `owner`'s to read (fstat fails, not a regular file, another
// owner, writable by its group or others), if it is not; without an owner only what it is is judged.
std::optional<std::string> distrust_open_record(int fd, std::optional<unsigned> owner);

// The command that gives a folder root distrusts to root alone (`chown root:root DIR && chmod 0700 DIR`, the
// path quoted for bash), for a message to run once a person has looked at what is in it.
std::string give_to_root_command(const std::string& folder);

// The user name of `uid` from the user database, or the number when it has none.
std::string user_name_of(unsigned uid);
// The home folder of `uid` from the user database, when it has one.
std::optional<std::string> home_of(unsigned uid);

} // namespace gpudoctor
