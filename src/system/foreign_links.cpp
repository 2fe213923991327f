#include "system/foreign_links.hpp"

#include "util/text.hpp"

#include <algorithm>
#include <deque>
#include <grp.h>
#include <pwd.h>
#include <set>
#include <vector>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// The groups a uid belongs to (its primary group and the supplementary ones), from the user database.
std::vector<unsigned> groups_of(unsigned uid) {
  std::vector<unsigned> out;
  struct passwd pw {};
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || !found) return out;
  int count = 64;
  std::vector<gid_t> gids(static_cast<std::size_t>(count));
  if (::getgrouplist(pw.pw_name, pw.pw_gid, gids.data(), &count) < 0) {
    gids.resize(static_cast<std::size_t>(count));
    if (::getgrouplist(pw.pw_name, pw.pw_gid, gids.data(), &count) < 0) count = 0;
  }
  out.push_back(pw.pw_gid);
  out.insert(out.end(), gids.begin(), gids.begin() + std::max(count, 0));
  return out;
}

// `want`: 4 read, 1 search (execute), as the kernel decides from the mode for that uid (ACLs aside).
bool permits(const FileStat& st, unsigned uid, const std::vector<unsigned>& gids, unsigned want) {
  unsigned bits = st.uid == uid                                               ? (st.mode >> 6) & 7
                  : std::find(gids.begin(), gids.end(), st.gid) != gids.end() ? (st.mode >> 3) & 7
                                                                              : st.mode & 7;
  return (bits & want) == want;
}

} // namespace

ForeignLinkGuard::ForeignLinkGuard(LiveView& live, bool as_root) : m_live(live), m_as_root(as_root) {}

std::optional<std::string> ForeignLinkGuard::refuse(const std::string& path, bool folder) {
  if (!m_as_root) return std::nullopt;
  std::deque<std::string> pending;
  for (auto& part : text::split(path, '/'))
    pending.push_back(part);
  std::vector<std::string> resolved;
  std::set<unsigned> owners; // of the links met, other than root
  auto live_path = [&](std::size_t n) {
    return "/" + text::join(std::vector<std::string>(resolved.begin(), resolved.begin() + n), "/");
  };
  for (int hops = 0; !pending.empty();) {
    std::string part = pending.front();
    pending.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!resolved.empty()) resolved.pop_back();
      continue;
    }
    resolved.push_back(part);
    auto st = m_live.lstat(live_path(resolved.size()));
    if (!st) return std::nullopt; // absent: nothing to read
    if (st->type != FileType::link) continue;
    auto target = m_live.read_link(live_path(resolved.size()));
    if (!target || ++hops > 40) return std::nullopt;
    if (st->uid != 0) owners.insert(st->uid);
    resolved.pop_back();
    if (!target->empty() && (*target)[0] == '/') resolved.clear();
    auto parts = text::split(*target, '/');
    pending.insert(pending.begin(), parts.begin(), parts.end());
  }
  for (unsigned uid : owners) {
    auto gids = groups_of(uid);
    for (std::size_t n = 0; n <= resolved.size(); ++n) {
      auto st = m_live.lstat(live_path(n));
      bool last = n == resolved.size();
      unsigned want = !last ? 1u : folder ? 5u : 4u;
      if (st && permits(*st, uid, gids, want)) continue;
      return fmt::format("{} leads through a link owned by uid {} to {}, which uid {} cannot {}", path, uid,
                         live_path(resolved.size()), uid, last ? "read" : "reach");
    }
  }
  if (!folder && !resolved.empty())
    return refuse_hard_link(live_path(resolved.size()), live_path(resolved.size() - 1));
  return std::nullopt;
}

// A file of several names in `where`: any of them may have been made by who can write `where` (the kernel
// lets a user hard-link a file they cannot read when fs.protected_hardlinks is off). Each such writer must
// have been able to read the file, by the mode bits: the folder's owner, a member of its group when the
// group may write it, anyone when others may.
std::optional<std::string> ForeignLinkGuard::refuse_hard_link(const std::string& file,
                                                              const std::string& where) {
  auto st = m_live.lstat(file);
  auto links = m_live.link_count(file);
  if (!st || st->type != FileType::file || !links || *links < 2) return std::nullopt;
  auto in = m_live.lstat(where);
  if (!in) return std::nullopt;
  auto cannot = [&](const std::string& who) {
    return fmt::format("{} has {} names and {} can add names to {}, but cannot read it: not recorded (a hard "
                       "link to a file of root's)",
                       file, *links, who, where);
  };
  if (in->uid != 0 && in->uid != st->uid && !permits(*st, in->uid, groups_of(in->uid), 4))
    return cannot(fmt::format("uid {}", in->uid));
  // Whether the group of `where` (not the file's owner) or anyone else may read the file.
  bool group_reads = (st->gid == in->gid ? (st->mode >> 3) & 4 : st->mode & 4) != 0;
  if ((in->mode & 020) && !group_reads) return cannot(fmt::format("group {}", in->gid));
  if ((in->mode & 002) && !(st->mode & 4)) return cannot("anyone");
  return std::nullopt;
}

} // namespace gpudoctor
