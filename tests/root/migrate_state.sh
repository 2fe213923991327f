#!/usr/bin/env bash
# The apply state (docs/fixes.md, "Apply state"; docs/security.md, "Root's records"), in Debian 12 roots:
#   1. root acts only on records root wrote: a user's state file naming a journal that restores a user's file
#      into /etc/cron.d, deletes another and installs a user's .deb is refused (with the root-side command),
#      and so is 0.1.0's root-owned record pointing at that journal (root reads its own, by the ids); --state
#      at a FIFO, a link and a cron file;
#   2. a user's apply that needs root hands the whole command to root through sudo (a setuid stand-in that,
#      like a sudo rule allowing only gpudoctor, runs nothing else): root writes every record, the user's
#      undo goes the same way;
#   3. one migration per machine: a migration that failed past the purge, rerun (failing again), is refused
#      another target, a package fix and --finish, and `undo` walks both runs back to the old package list;
#   4. the rerun that finishes, the post-check by gpudoctor's absolute path (not on the script's PATH; refused
#      when another user owns it), migrate --finish freeing the undo cache, undo refused after it.
#   GPUDOCTOR_MIGRATE_STATE="1 3" runs only those parts (all by default).
source "$(dirname "$0")/lib.bash"
root_setup
part() { [[ " ${GPUDOCTOR_MIGRATE_STATE:-1 2 3 4} " == *" $1 "* ]]; }
command -v cc >/dev/null || skip "no C compiler for the sudo stand-in (apt-get install gcc)"
gd=$(readlink -f "$gpudoctor")
chmod 755 "$work" # the test user reaches the roots and the stand-in below it

# Every package of ROOT with its version, status and automatic mark, one a line: the package list undo must
# put back exactly.
package_state() {
  # shellcheck disable=SC2016 # dpkg-query's format
  in_root "$1" dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' | awk '$1 ~ /^[ih]i/' | sort
  in_root "$1" apt-mark showauto | sed 's/^/auto /'
  in_root "$1" apt-mark showhold | sed 's/^/hold /'
}
# The fault: update-initramfs fails once the old stack is gone (the first step after the purge that rebuilds
# it), for as long as /tmp/gd/initramfs-fails exists in the root.
add_failing_initramfs() {
  cat >"$1/usr/local/sbin/update-initramfs" <<'SH'
#!/bin/sh
case $(dpkg-query -W -f='${db:Status-Abbrev}' rocm-core 2>/dev/null) in
ii* | hi*) ;;
*) if [ -e /tmp/gd/initramfs-fails ]; then
  echo "cpio: write error: No space left on device" >&2
  exit 1
fi ;;
esac
echo "update-initramfs: Generating /boot/initrd.img"
SH
  chmod 0755 "$1/usr/local/sbin/update-initramfs"
  : >"$1/tmp/gd/initramfs-fails"
}
migrate() {
  local root=$1
  shift
  GPUDOCTOR_BOOT_ID=${boot:-boot-one} "$gpudoctor" migrate --root "$root" --yes "$@"
}
args=(--to nvidia --mirror file:///srv/mirror --python /home/sam/venv/bin/python3)

# ==== 1. records root does not own ===============================================================================
if part 1; then
H=$roots/hostile
new_base_root "$H"
sam=$(in_root "$H" id -u sam)
run=20261201T090000Z-4242
# What a user can write: a cron line, a package whose maintainer script runs as root, a journal and a state
# file saying "restore the cron line into /etc/cron.d, remove /etc/important, reinstall this .deb".
mkdir -p "$work/evil/DEBIAN"
printf 'Package: evil-pkg\nVersion: 1.0\nArchitecture: all\nMaintainer: x <x@x.invalid>\nDescription: x\n' \
  >"$work/evil/DEBIAN/control"
printf '#!/bin/sh\ntouch /pwned\n' >"$work/evil/DEBIAN/postinst" && chmod 0755 "$work/evil/DEBIAN/postinst"
dpkg-deb --build "$work/evil" "$H/home/sam/evil.deb" >/dev/null
echo '* * * * * root touch /pwned' >"$H/home/sam/evil-cron"
echo 'keep me' >"$H/etc/important"
sam_state=/home/sam/.local/state/gpudoctor
mkdir -p "$H$sam_state/log"
cat >"$H$sam_state/log/fix-evil.journal" <<EOF
2026-12-01T09:00:01Z	$run	x	backup	/etc/cron.d/evil	/home/sam/evil-cron
2026-12-01T09:00:02Z	$run	x	created	/etc/important
2026-12-01T09:00:03Z	$run	x	purge-package	evil-pkg	1.0
2026-12-01T09:00:04Z	$run	x	cached-package	evil-pkg	1.0	/home/sam/evil.deb
EOF
# As 0.1.0 wrote a state file (the journal by its path, here as root's undo --root reads it).
state_json() {
  printf '{"kind": "fix", "plan": "x", "script_id": "%s", "script": "%s/scripts/x.sh", "root": "", "journal": "%s", ' \
    "$1" "$sam_state" "$H$sam_state/log/fix-evil.journal"
  printf '"family": "debian", "needs_root": true, "run": "%s", "status": "done", "steps": ["x"], "done": ["x"]}\n' "$run"
}
state_json fix-evil >"$H$sam_state/last-apply.json"
chown -R "$sam:$sam" "$H/home/sam"
untouched() { # WHAT: nothing of the user's journal happened
  local happened=()
  [[ -e $H/etc/cron.d/evil ]] && happened+=("the user's cron line is in /etc/cron.d")
  [[ $(cat "$H/etc/important" 2>/dev/null) == 'keep me' ]] || happened+=("/etc/important was removed")
  is_installed "$H" evil-pkg && happened+=("the user's .deb was installed")
  [[ -e $H/pwned ]] && happened+=("its maintainer script ran as root")
  ((${#happened[@]} == 0)) || fail "$1: $(printf '%s; ' "${happened[@]}")"
}
status=0
"$gpudoctor" undo --root "$H" --yes --state "$H$sam_state/last-apply.json" >"$work/h1.out" 2>&1 || status=$?
untouched "root's undo --state of sam's file"
[[ $status == 2 ]] || fail "root's undo --state of sam's file: exit $status, not 2: $(tail -5 "$work/h1.out")"
grep -q "/home/sam is owned by" "$work/h1.out" || fail "the refusal does not say whose the file is: $(cat "$work/h1.out")"
grep -qF "gpudoctor undo --script fix-evil --run $run --root $H" "$work/h1.out" ||
  fail "the refusal does not name the root-side command: $(cat "$work/h1.out")"
pass "root's undo --state of a user's file: exit 2, nothing restored, removed or installed; it says: $(grep -A1 'as root:' "$work/h1.out" | tail -n 1)"

# The same 0.1.0 record, root's own: root takes its ids, not its journal's path (root has no journal of it).
mkdir -p "$H/var/lib/gpudoctor"
state_json fix-evil >"$H/var/lib/gpudoctor/last-apply.json"
status=0
"$gpudoctor" undo --root "$H" --yes >"$work/h2.out" 2>&1 || status=$?
untouched "root's undo of its own 0.1.0 record that names a user's journal"
[[ $status == 0 ]] || fail "root's undo of its own 0.1.0 record: exit $status: $(tail -5 "$work/h2.out")"
grep -q "nothing to undo" "$work/h2.out" || fail "root's undo did not say its own journal has nothing: $(cat "$work/h2.out")"
pass "root's own 0.1.0 record naming a user's journal: read by its ids alone, root's journal has nothing: nothing done"

# Root's own journal with entries that reach outside its run's folders (a copy, a .deb): not acted on.
mkdir -p "$H/var/log/gpudoctor"
grep -v $'\tcreated\t' "$H$sam_state/log/fix-evil.journal" | sed "s/\t$run\t/\tr2\t/" >"$H/var/log/gpudoctor/fix-evil2.journal"
status=0
"$gpudoctor" undo --root "$H" --yes --script fix-evil2 --run r2 >"$work/h3.out" 2>&1 || status=$?
[[ ! -e $H/etc/cron.d/evil && ! -e $H/pwned ]] || fail "root's own journal restored a copy outside its run's backups"
is_installed "$H" evil-pkg && fail "root's own journal installed a .deb outside its cache"
[[ $status == 1 ]] || fail "a journal entry outside the run's folders: exit $status, not 1: $(tail -5 "$work/h3.out")"
grep -q "not one of run r2's backups" "$work/h3.out" || fail "undo does not say why it refused the copy: $(cat "$work/h3.out")"
grep -q "not installed from the cache: evil-pkg" "$work/h3.out" || fail "undo does not say why it refused the .deb: $(cat "$work/h3.out")"
pass "root's own journal naming a copy and a .deb outside the run's folders: neither used, exit 1, says why"

# --state at what is no record: a FIFO of sam's (0.1.0 blocked on it), a link, a cron file.
in_root "$H" runuser -u sam -- mkfifo /home/sam/fifo
ln -s /var/lib/gpudoctor/last-apply.json "$H/etc/state-link"
printf '* * * * * root true\n' >"$H/etc/cron.d/job"
for state in /home/sam/fifo /etc/state-link /etc/cron.d/job; do
  status=0
  timeout 20 "$gpudoctor" undo --root "$H" --yes --state "$H$state" >"$work/h4.out" 2>&1 || status=$?
  [[ $status == 2 ]] || fail "undo --state $state: exit $status, not 2: $(tail -3 "$work/h4.out")"
  untouched "undo --state $state"
  pass "undo --state $state: exit 2: $(head -n 1 "$work/h4.out" | cut -c 1-150)"
done
rm -rf "$H"
fi

# ==== 2. a user's apply and undo are handed to root through sudo ===================================================
if part 2; then
U=$roots/handoff
new_machine rocm6 "$U"
user=gdt-mig-state-$$
home=$work/home-$user
useradd --no-user-group --gid nogroup --home-dir "$home" --create-home --shell /bin/sh "$user" ||
  fail "useradd $user failed"
uid=$(id -u "$user")
trap 'userdel "$user" 2>/dev/null || true; root_cleanup' EXIT
# The stand-in for sudo with the rule "$user may run $gd as root, nothing else": setuid root, it logs its
# arguments, refuses anything but `-- $gd ...`, and runs that with sudo's clean environment and SUDO_USER.
mkdir -p "$work/sudo-bin" "$work/sudo-src"
cat >"$work/sudo-src/sudo.c" <<EOF
#include <grp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
  FILE *log = fopen("$work/sudo.log", "a");
  for (int i = 1; log && i < argc; ++i) fprintf(log, "%s%s", argv[i], i + 1 < argc ? " " : "\n");
  if (log) fclose(log);
  if (getuid() != $uid || argc < 3 || strcmp(argv[1], "--") != 0 || strcmp(argv[2], "$gd") != 0) {
    fprintf(stderr, "sudo (test): $user may run only $gd\n");
    return 1;
  }
  char *env[] = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root",
                 "LANG=C.UTF-8", "SUDO_USER=$user", "SUDO_UID=$uid", 0};
  if (setgroups(0, 0) != 0 || setgid(0) != 0 || setuid(0) != 0) return 1;
  execve(argv[2], argv + 2, env);
  perror("execve");
  return 127;
}
EOF
cc -O2 -o "$work/sudo-bin/sudo" "$work/sudo-src/sudo.c" || fail "cannot build the sudo stand-in"
chmod 4755 "$work/sudo-bin/sudo"
mkdir -p "$home/venv/bin" && ln -s /usr/bin/python3 "$home/venv/bin/python3" && chown -R "$uid" "$home"
as_user() {
  setpriv --reuid "$uid" --regid "$(id -g "$user")" --init-groups -- env -i PATH="$work/sudo-bin:/usr/bin:/bin" \
    HOME="$home" VIRTUAL_ENV="$home/venv" LANG=C.UTF-8 "$@"
}
grep -q HSA_OVERRIDE "$U/etc/environment" || fail "the ROCm machine has no HSA_OVERRIDE_GFX_VERSION to fix"
env_before=$(digest "$U/etc/environment")
status=0
as_user "$gpudoctor" fix env-unset-hsa-override --root "$U" --apply --yes >"$work/u1.out" 2>&1 || status=$?
[[ $status == 0 ]] || fail "the user's fix --apply through sudo: exit $status: $(tail -5 "$work/u1.out")"
[[ $(sed -n 1p "$work/sudo.log") == "-- $gd fix env-unset-hsa-override --root $U --apply --yes --python=$home/venv/bin/python3" ]] ||
  fail "sudo was asked: $(sed -n 1p "$work/sudo.log")"
[[ $(wc -l <"$work/sudo.log") == 1 ]] || fail "sudo was asked more than once: $(cat "$work/sudo.log")"
grep -q HSA_OVERRIDE "$U/etc/environment" && fail "the fix did not run as root"
for f in "$U"/var/lib/gpudoctor/last-apply.json "$U"/var/lib/gpudoctor/scripts/*.sh "$U"/var/log/gpudoctor/*.journal; do
  [[ $(stat -c %u "$f") == 0 ]] || fail "$f is not root's"
done
[[ $(stat -c '%u %a' "$U/var/lib/gpudoctor") == "0 700" ]] || fail "root's state folder is $(stat -c '%u %a' "$U/var/lib/gpudoctor")"
grep -q '"kind": "root"' "$home/.local/state/gpudoctor/last-apply.json" || fail "the user's pointer is missing"
[[ -z $(find "$home" -name '*.sh' -o -name '*.journal') ]] || fail "a script or journal of root's apply is in the user's home"
pass "the user's fix --apply ran once as 'sudo -- $gd ... --python=VIRTUAL_ENV's python3'; root's records, root's 0700 folder; the user keeps a pointer"
: >"$work/sudo.log"
status=0
as_user "$gpudoctor" undo --root "$U" --yes >"$work/u2.out" 2>&1 || status=$?
[[ $status == 0 ]] || fail "the user's undo through sudo: exit $status: $(tail -5 "$work/u2.out")"
[[ $(cat "$work/sudo.log") == "-- $gd undo --root $U --yes" ]] || fail "sudo was asked: $(cat "$work/sudo.log")"
[[ $(digest "$U/etc/environment") == "$env_before" ]] || fail "the user's undo did not restore /etc/environment"
pass "the user's undo ran as 'sudo -- $gd undo --root ... --yes' and restored /etc/environment"
userdel "$user" 2>/dev/null || true
rm -rf "$U" "$home"
fi

# ==== 3. one migration per machine: a failure past the purge, a rerun, then undo =========================================
if part 3; then
M=$roots/rerun
new_machine rocm6 "$M"
add_local_mirror "$M"
add_failing_initramfs "$M"
before=$(package_state "$M")
status=0
migrate "$M" "${args[@]}" --apply >"$work/m1.out" 2>&1 || status=$?
[[ $status == 1 ]] || fail "the migration with a failing initramfs: exit $status, not 1: $(tail -5 "$work/m1.out")"
is_installed "$M" rocm-core && fail "the fault did not come after the purge: rocm-core is still installed"
grep -qx "    gpudoctor migrate --resume --root $M" <<<"$(tail -n 3 "$work/m1.out")" ||
  fail "the failure does not end with the recovery commands: $(tail -n 4 "$work/m1.out")"
[[ $(tail -n 1 "$work/m1.out") == "    gpudoctor undo --root $M" ]] || fail "the failure's last line: $(tail -n 1 "$work/m1.out")"
failed_step=$(sed -n 's/^gpudoctor: step \([^ ]*\) failed.*/\1/p' "$work/m1.out")
pass "the migration failed past the purge at $failed_step; the message ends with: migrate --resume, undo"
# The natural move: the same command again. It continues the migration (same script), and fails again.
status=0
migrate "$M" "${args[@]}" --driver 570 --apply >"$work/m2.out" 2>&1 || status=$?
[[ $status == 1 ]] || fail "the rerun: exit $status, not 1: $(tail -5 "$work/m2.out")"
grep -q "A migration to nvidia is unfinished on this machine" "$work/m2.out" || fail "the rerun did not say it continues: $(head -5 "$work/m2.out")"
grep -q "warning: ignored, since the unfinished migration goes on as it was planned: --driver 570," "$work/m2.out" || fail "the rerun does not warn that --driver is ignored"
[[ $(find "$M/var/lib/gpudoctor/scripts" -name '*.sh' | wc -l) == 1 ]] || fail "the rerun made a new plan: $(ls "$M/var/lib/gpudoctor/scripts")"
"$host_python" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["status"] == "failed" and len(r["runs"]) == 2, r' \
  "$M/var/lib/gpudoctor/migration.json" || fail "migration.json does not hold both runs"
pass "the rerun continued the same migration (second run, --driver ignored with a warning) and failed again"
for refused in "migrate --to amd --apply" "fix install-rocm --apply" "migrate --finish"; do
  status=0
  read -ra words <<<"$refused"
  "$gpudoctor" "${words[@]}" --root "$M" --yes --mirror file:///srv/mirror >"$work/m3.out" 2>&1 || status=$?
  [[ $status == 2 ]] || fail "$refused during the unfinished migration: exit $status, not 2: $(tail -3 "$work/m3.out")"
  [[ $(tail -n 2 "$work/m3.out") == "    gpudoctor migrate --resume --root $M"$'\n'"    gpudoctor undo --root $M" ]] ||
    fail "$refused: the refusal does not end with the recovery commands: $(tail -n 3 "$work/m3.out")"
  pass "$refused during it: exit 2, ends with migrate --resume and undo"
done
kill "$proxy_pid"                 # undo needs no repository: the cache
wait "$proxy_pid" 2>/dev/null || true
proxy_pid=
status=0
"$gpudoctor" undo --root "$M" --yes >"$work/m4.out" 2>&1 || status=$?
[[ $status == 0 ]] || fail "undo after the two runs: exit $status: $(tail -10 "$work/m4.out")"
grep -q "runs .*, .* (newest first)" "$work/m4.out" || fail "undo did not walk both runs: $(head -5 "$work/m4.out")"
after=$(package_state "$M")
[[ $before == "$after" ]] || fail "undo did not put the old package list back: $(diff <(echo "$before") <(echo "$after") | sed -n 1,12p)"
pass "undo walked both runs (newest first) and put back the package list of before: $(grep -c '^[ih]i' <<<"$after") packages, versions, auto marks, holds"
rm -f "$work/proxy.port"
start_proxy
rm -rf "$M"
fi

# ==== 4. the rerun that finishes; the post-check by gpudoctor's absolute path; --finish =====================================
if part 4; then
F=$roots/finish
new_machine rocm6 "$F"
add_local_mirror "$F"
add_failing_initramfs "$F"
status=0
migrate "$F" "${args[@]}" --apply >"$work/f1.out" 2>&1 || status=$?
[[ $status == 1 ]] || fail "the migration with a failing initramfs: exit $status: $(tail -5 "$work/f1.out")"
rm "$F/tmp/gd/initramfs-fails"
migrate "$F" "${args[@]}" --apply >"$work/f2.out" 2>&1 || fail "the rerun failed: $(tail -10 "$work/f2.out")"
grep -q 'gpudoctor migrate --resume' "$work/f2.out" || fail "the rerun did not stop for the reboot: $(tail -5 "$work/f2.out")"
pass "the cause fixed, the same command continued the migration to its reboot"
# After the reboot: the check step runs the gpudoctor that wrote the script, by its absolute path (not on the
# script's PATH). Owned by another user, it is not run: the step fails and says so.
add_gpudoctor_stub "$F"
chown 65534 "$F$gd"
status=0
boot=boot-two migrate "$F" --resume >"$work/f3.out" 2>&1 || status=$?
[[ $status == 1 ]] || fail "the check step with another user's gpudoctor: exit $status, not 1: $(tail -5 "$work/f3.out")"
grep -q "the check step cannot run gpudoctor: .* is owned by nobody" "$work/f3.out" || fail "the check step does not say why: $(tail -8 "$work/f3.out")"
[[ ! -e $F/var/log/gpudoctor-stub.log ]] || fail "another user's gpudoctor ran as root"
pass "the check step refuses a gpudoctor another user owns: $(grep -o 'the check step cannot run gpudoctor: [^,]*' "$work/f3.out")"
chown 0 "$F$gd"
boot=boot-two migrate "$F" --resume >"$work/f4.out" 2>&1 || fail "--resume with root's gpudoctor failed: $(tail -8 "$work/f4.out")"
grep -q "^$gd check --only driver.not-bound," "$F/var/log/gpudoctor-stub.log" || fail "the check step did not run $gd: $(cat "$F/var/log/gpudoctor-stub.log" 2>/dev/null)"
grep -q 'The migration is done' "$work/f4.out" || fail "the migration is not done: $(tail -5 "$work/f4.out")"
pass "the check step ran $gd check --only ... by its absolute path (off the script's PATH); the migration is done"
script_id=$("$host_python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["script_id"])' "$F/var/lib/gpudoctor/migration.json")
[[ -d $F/var/cache/gpudoctor/$script_id/outgoing ]] || fail "no undo cache before --finish"
"$gpudoctor" migrate --finish --root "$F" --yes >"$work/f5.out" 2>&1 || fail "--finish failed: $(tail -5 "$work/f5.out")"
[[ ! -e $F/var/cache/gpudoctor/$script_id ]] || fail "--finish left the undo cache"
[[ -f $F/var/log/gpudoctor/$script_id.journal ]] || fail "--finish removed the journal"
grep -Eq "[0-9.]+ [KMG]iB freed" "$work/f5.out" || fail "--finish does not say what it freed: $(cat "$work/f5.out")"
status=0
"$gpudoctor" undo --root "$F" --yes >"$work/f6.out" 2>&1 || status=$?
[[ $status == 2 ]] || fail "undo after --finish: exit $status, not 2"
[[ $(tail -n 1 "$work/f6.out") == "    gpudoctor migrate --to amd --apply --root $F" ]] || fail "undo after --finish: $(tail -n 2 "$work/f6.out")"
is_installed "$F" nvidia-open-580 || fail "undo after --finish changed the packages"
pass "migrate --finish freed the cache ($(grep -Eo "[0-9.]+ [KMG]iB freed" "$work/f5.out")), kept the journal; undo then refuses, naming the way back"
rm -rf "$F"
fi
