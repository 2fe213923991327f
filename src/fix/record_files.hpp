// Where the records of applies live, and how they are read and written (docs/fixes.md, "Apply state";
// docs/security.md, "Root's records"). Root's records are in root's four folders: /var/lib/gpudoctor (state,
// scripts/), /var/log/gpudoctor (journals), /var/backups/gpudoctor (backups), /var/cache/gpudoctor (downloads
// and the undo cache). Every path is derived from validated ids by fixed rules, never read from a record;
// root reads a record only when it passes the trust rule (system/root_trust.hpp) and opens it without
// following a link. A user who applies a fix that needs no root keeps its own records in
// $XDG_STATE_HOME/gpudoctor, with the same layout.
#pragma once

#include "util/diagnostics.hpp"
#include "util/json.hpp"

#include <expected>
#include <optional>
#include <string>

namespace gpudoctor::fix {

struct RecordPlaces {
  std::string root;   // --root R (tests): the folders are below R, as the steps in `chroot R` see them
  bool system = true; // root's folders; false: a user's own
  // The folders, as the machine names them (a script run there uses the same paths).
  std::string state, scripts, log, backups, cache;

  std::string on_host(const std::string& path) const { return root + path; }
  std::string script(const std::string& script_id) const;  // scripts/<id>.sh
  std::string journal(const std::string& script_id) const; // log/<id>.journal
  // backups/<id>/<run>: where the run's copies are (lib.bash's gd_backup)
  std::string run_backups(const std::string& script_id, const std::string& run) const;
  std::string script_cache(const std::string& script_id) const; // cache/<id>: downloads, outgoing .debs
  std::string migration_file() const;                           // state/migration.json
  std::string last_apply_file() const;                          // state/last-apply.json
  std::string migration_file_0_1() const;                       // state/migrate.json (0.1.0's)
};

// Root's folders, below `root` (empty: this machine).
RecordPlaces root_places(const std::string& root);
// This user's folders ($XDG_STATE_HOME/gpudoctor, ~/.local/state/gpudoctor).
RecordPlaces user_places();
// Root's when gpudoctor is root or `root` is given, else the user's.
RecordPlaces places_for(const std::string& root);

// Makes the folders that are missing (0700) and checks those that are there: as root, each must pass the
// trust rule. The error says which folder fails and why, and how to mend it.
std::expected<void, Failure> prepare_record_folders(const RecordPlaces& places);

// The text of the record file `path` (as the machine names it); nullopt when there is none. As root, only a
// regular file that passes the trust rule (owned by root, in folders no other user can change), opened
// without following a link; the error says why it is not read.
std::expected<std::optional<std::string>, std::string> read_record(const RecordPlaces& places,
                                                                   const std::string& path);

// Reads a record file and parses it (record_from_json); nullopt when there is none.
struct ApplyRecord;
std::expected<std::optional<ApplyRecord>, std::string> load_record(const RecordPlaces& places,
                                                                   const std::string& path);

// Writes a record (atomically, 0600).
std::expected<void, std::string> save_record(const RecordPlaces& places, const std::string& path,
                                             const Json& doc);

// Whether undo may take `file` as a file kept below the record folder `folder` (a run's backup, a cached
// package; both as the machine names them): it lies below `folder` (no `..`, no link on the way below it),
// is a regular file, and as root `folder` passes the trust rule. A kept file may be another user's (a
// backup keeps the owner of what it copied): only root can reach it through root's 0700 folders, and it is
// refused when its folder is not 0700. The error says why not.
std::expected<void, std::string> check_kept_file(const RecordPlaces& places, const std::string& folder,
                                                 const std::string& file);

// An exclusive lock on the records of the machine for as long as it lives: one apply, resume, undo or
// finish at a time. The error says that another gpudoctor holds it.
class RecordLock {
public:
  RecordLock() = default;
  explicit RecordLock(int fd) : fd_(fd) {}
  RecordLock(RecordLock&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  RecordLock& operator=(RecordLock&& o) noexcept;
  RecordLock(const RecordLock&) = delete;
  RecordLock& operator=(const RecordLock&) = delete;
  ~RecordLock();

private:
  int fd_ = -1;
};
std::expected<RecordLock, std::string> lock_records(const RecordPlaces& places);

} // namespace gpudoctor::fix
