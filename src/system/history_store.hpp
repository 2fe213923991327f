// A node's history of reports (docs/fleet.md, "History"): `check --history` keeps each JSON report, redacted,
// as one file of a folder root alone can change (/var/lib/gpudoctor/history), bounded by count and bytes;
// `history` lists them and `diff --last-good` compares now with one of them. The file's name says when it
// was kept and whether the report had an error, so listing and pruning read no report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::history {

// Root's history: below root's state folder (fix/record_files.hpp), never a user's.
inline constexpr const char* k_system_dir = "/var/lib/gpudoctor/history";

struct Limits {
  std::size_t max_reports = 1000;                    // --history-max-reports
  std::uint64_t max_bytes = std::uint64_t{64} << 20; // --history-max-mib
};

struct Entry {
  std::string name;  // "20261205T054947.123456Z-ok.json"
  std::string time;  // "2026-12-05T05:49:47Z": when it was kept, to the second
  bool good = false; // the report had no error result ("-ok"; "-error" otherwise)
  std::uint64_t bytes = 0;
};

// The entry a file name stands for; nullopt for any other name (a temporary file, something put there).
std::optional<Entry> entry_of(std::string_view name);
// The name of a report kept at `seconds` + `micros` (UTC).
std::string entry_name(std::time_t seconds, long micros, bool good);

// The names to remove so that what is left keeps within `limits`: the newest reports are kept while both
// bounds hold, and the newest report and the newest good one always (so `diff --last-good` still finds one
// after a long outage). `oldest_first`: a folder's entries in time order.
std::vector<std::string> over_limits(const std::vector<Entry>& oldest_first, const Limits& limits);

// A history folder, opened once: every later step is relative to its descriptor. As root it must pass the
// trust rule (system/root_trust: root's, writable by nobody else, the whole way); as another user it must be
// that user's and writable by nobody else. Each report is a regular file of the folder's owner, 0600.
class Folder {
public:
  // `create`: make the folder (and missing folders above it) 0700 when it is missing. The error says why it
  // cannot be used, and how to mend it.
  static std::expected<Folder, std::string> open(const std::string& dir, bool create);
  Folder(Folder&& other) noexcept;
  Folder& operator=(Folder&& other) noexcept;
  Folder(const Folder&) = delete;
  Folder& operator=(const Folder&) = delete;
  ~Folder();

  // The kept reports, oldest first (names of another form, links and folders are passed over).
  std::expected<std::vector<Entry>, std::string> list() const;
  // One report's text: a regular file of the folder's owner, not a link, at most 64 MiB.
  std::expected<std::string, std::string> read(const std::string& name) const;
  // Keeps `report` (atomically, 0600) under a new name of now; then removes what is over `limits`. One
  // writer at a time (an exclusive lock on the folder). Returns the kept entry.
  std::expected<Entry, std::string> add(std::string_view report, bool good, const Limits& limits);

  const std::string& path() const { return m_path; }

private:
  Folder(int fd, std::string path) : m_fd(fd), m_path(std::move(path)) {}
  int m_fd = -1;
  std::string m_path;
};

// What a user who is not root is told when `what` ("gpudoctor history", "check --history", ...) would use
// root's history.
std::string needs_root(std::string_view what);

} // namespace gpudoctor::history
