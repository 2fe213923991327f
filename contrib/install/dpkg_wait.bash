# install.sh's dealings with dpkg before it installs anything (sourced; the functions `say` and `die` and
# the array `sudo_cmd` are install.sh's). DPKG_ADMINDIR, as dpkg itself reads it, names the database
# (default /var/lib/dpkg; tests/root/install_dpkg_lock.sh points it at a throwaway root).

# The process that holds dpkg's frontend lock or its own lock, if one does: apt and dpkg take them with fcntl
# (F_SETLK), which flock(1) does not see. /proc/locks lists every such lock by its file's device (major:minor
# in hex) and inode; a waiting request ("->") holds nothing.
dpkg_lock_holder() {
  local admin=$1 lock major minor ino
  for lock in "$admin/lock-frontend" "$admin/lock"; do
    [[ -e $lock ]] || continue
    read -r major minor ino < <(stat -c '%Hd %Ld %i' "$lock") || continue
    awk -v id="$(printf '%02x:%02x:%s' "$major" "$minor" "$ino")" \
      '$2 != "->" && $6 == id { print $5; found = 1; exit } END { exit !found }' /proc/locks && return 0
  done
  return 1
}

# Waits, saying so once, while another package manager (apt, unattended-upgrades, dpkg) holds the lock: its
# files in updates/ are its work in progress, not an interruption. Up to 30 minutes.
wait_for_package_manager() {
  local admin=$1 holder said=0 waited=0
  while holder=$(dpkg_lock_holder "$admin"); do
    if ((!said)); then
      say "another package manager is running (process $holder holds the lock of $admin): waiting for it to finish"
      said=1
    fi
    ((waited < 1800)) || die "another package manager (process $holder) still holds the lock of $admin after 30 minutes: let it finish, then run install.sh again"
    sleep 2
    waited=$((waited + 2))
  done
}

# A dpkg run killed earlier (a boot-time upgrade cut short) makes every apt-get install refuse with "dpkg was
# interrupted". Finishing it is what dpkg itself asks for, and nothing else can install the dependencies; but
# only once no package manager is running, since a running one's pending files look the same.
finish_interrupted_dpkg() {
  local admin=${DPKG_ADMINDIR:-/var/lib/dpkg} pending
  wait_for_package_manager "$admin"
  pending=$(find "$admin/updates" -mindepth 1 -maxdepth 1 2>/dev/null | sed -n 1p || true)
  [[ -z $pending && -z $(dpkg --admindir="$admin" --audit 2>/dev/null || true) ]] && return 0
  say "dpkg was interrupted before this run: finishing it with dpkg --configure -a"
  for _ in 1 2 3; do # a package manager that started meanwhile is waited for, not raced
    wait_for_package_manager "$admin"
    # shellcheck disable=SC2154 # sudo_cmd is install.sh's
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive dpkg --admindir="$admin" --configure -a && return 0
    sleep 2
  done
  die "dpkg --configure -a failed: finish or repair the interrupted dpkg run, then run install.sh again"
}
