#!/usr/bin/env bash
# install.sh before it installs anything (contrib/install/dpkg_wait.bash, issue 30 item 7), with the real dpkg
# on a throwaway database (DPKG_ADMINDIR): a dpkg run cut short is finished with dpkg --configure -a; while
# another package manager holds the lock (an fcntl lock, as apt and dpkg take it) its pending files are its
# work, so install.sh says so once and waits instead of racing it; a clean database is left alone.
set -euo pipefail
[[ $(id -u) == 0 ]] || { echo "skip: needs root (dpkg --configure -a)"; exit 125; }
source_dir=${2:?usage: install_dpkg_lock.sh GPUDOCTOR SOURCE_DIR}
work=$(mktemp -d)
holder_pid=
cleanup() {
  [[ -z $holder_pid ]] || kill "$holder_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# What install.sh gives the library: say, die, sudo_cmd (empty: this runs as root).
say() { printf '%s\n' "$*" >>"$work/said"; }
die() {
  printf 'die: %s\n' "$*" >>"$work/said"
  exit 1
}
sudo_cmd=()
# shellcheck source=../../contrib/install/dpkg_wait.bash
source "$source_dir/contrib/install/dpkg_wait.bash"

# new_database NAME: an empty dpkg database; with "interrupted", one pending update as a killed dpkg leaves it.
new_database() {
  local admin=$work/$1
  mkdir -p "$admin/updates" "$admin/info"
  : >"$admin/status"
  : >"$admin/available"
  if [[ ${2:-} == interrupted ]]; then : >"$admin/updates/0001"; fi
  : >"$work/said"
  printf '%s\n' "$admin"
}
said() { cat "$work/said"; }
count_said() { grep -c -- "$1" "$work/said" || true; }

# 1. A clean database: nothing said, dpkg not run (it would create its lock files).
admin=$(new_database clean)
DPKG_ADMINDIR=$admin finish_interrupted_dpkg || fail "a clean database: $(said)"
[[ ! -s $work/said ]] || fail "a clean database made install.sh say: $(said)"
[[ ! -e $admin/lock ]] || fail "a clean database: dpkg ran"

# 2. A dpkg run cut short, nobody holding the lock: finished by the real dpkg --configure -a.
admin=$(new_database cut-short interrupted)
DPKG_ADMINDIR=$admin finish_interrupted_dpkg || fail "an interrupted database: $(said)"
[[ $(count_said "dpkg was interrupted before this run") == 1 ]] || fail "an interrupted database: $(said)"
[[ -z $(ls -A "$admin/updates") ]] || fail "dpkg --configure -a left $(ls "$admin/updates")"

# 3. Another package manager at work: it holds the frontend lock (fcntl, as apt does), its update is pending,
# and it finishes by itself (it folds the update in and lets go after about 3 s). install.sh waits, says so
# once with the holder's process, and does not run dpkg over it.
admin=$(new_database busy interrupted)
: >"$admin/lock-frontend"
python3 - "$admin" "$work/held" <<'PY' &
import fcntl, os, sys, time
admin, ready = sys.argv[1], sys.argv[2]
lock = open(os.path.join(admin, "lock-frontend"), "r+")
fcntl.lockf(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
open(ready, "w").close()
time.sleep(3)
os.remove(os.path.join(admin, "updates", "0001"))
PY
holder_pid=$!
for _ in $(seq 50); do [[ -e $work/held ]] && break; sleep 0.1; done
[[ -e $work/held ]] || fail "the lock holder did not start"
[[ $(dpkg_lock_holder "$admin") == "$holder_pid" ]] ||
  fail "the lock's holder is $(dpkg_lock_holder "$admin" || echo nobody), not $holder_pid"
DPKG_ADMINDIR=$admin finish_interrupted_dpkg || fail "a busy database: $(said)"
wait "$holder_pid"
holder_pid=
[[ $(count_said "another package manager is running (process [0-9]* holds the lock of $admin)") == 1 ]] ||
  fail "a busy database: expected one line saying it waits, got: $(said)"
[[ $(count_said "dpkg was interrupted") == 0 ]] || fail "a running package manager's work was taken for an interruption: $(said)"
[[ ! -e $admin/lock ]] || fail "dpkg ran while another package manager held the lock"
dpkg_lock_holder "$admin" >/dev/null && fail "the lock is still reported held after its holder ended"

echo "ok: clean left alone, interrupted finished, a running package manager waited for"
