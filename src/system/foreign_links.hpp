// Run as root, a recording never reads through a link that another user owns to something that user could
// not read: a venv's pip.conf or a dotfile linked to /etc/shadow would otherwise put root's secrets into a
// bundle that the user may then be sent or shown. A hard link is a name too: a file with more than one name,
// reached in a folder that another user can add names to, is read only if that user could read it (where
// fs.protected_hardlinks is off, any user may hard-link root's 0600 files into their own folder). A policy of
// the recorder (RecordingView), not of each collector; the live run and its replay both see such a file as
// unreadable.
#pragma once

#include "system/live_view.hpp"

#include <optional>
#include <string>

namespace gpudoctor {

class ForeignLinkGuard {
public:
  // `as_root`: whether the process reads with root's rights (off: every path is allowed).
  ForeignLinkGuard(LiveView& live, bool as_root);

  // Why `path` must not be read (or, with `folder`, listed), for a note; nothing when it may. Every link on
  // the way that a user other than root owns must lead where that user could go: each folder of the
  // resolved path searchable, the last readable (and searchable when a folder), by its uid and groups. So
  // must a file of several names, for the owner of the folder it was reached in and, where that folder's
  // group or others may write it, for a member of that group or anyone.
  std::optional<std::string> refuse(const std::string& path, bool folder);

private:
  std::optional<std::string> refuse_hard_link(const std::string& file, const std::string& where);
  LiveView& m_live;
  bool m_as_root;
};

} // namespace gpudoctor
