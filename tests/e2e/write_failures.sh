#!/usr/bin/env bash
# An output that cannot be written (a full disk, a file-size limit, /dev/full) gives a clear error and exit
# status 2 in every subcommand, never "wrote ..." over a broken file; an undo of a user's apply whose steps
# ran through sudo is found and done by root, and the user's state file stays the user's.
source "$(dirname "$0")/common.bash"

expect_status() {
  local want=$1 what=$2
  shift 2
  local status=0
  "$@" >"$work/out" 2>"$work/err" || status=$?
  [[ $status == "$want" ]] || fail "$what: exit $status, not $want ($(head -c 400 "$work/err"))"
  pass "$what: exit $want: $(tail -n 1 "$work/err" | cut -c 1-160)"
}

# 1. Standard output on a full disk: the loss shows only when stdout is flushed, at exit.
for command in "check --format json" "check --list" "explain env.hsa-override-mismatch" "completion bash"; do
  status=0
  # shellcheck disable=SC2086 # the words of the command
  "$gpudoctor" $command >/dev/full 2>"$work/err" || status=$?
  [[ $status == 2 ]] || fail "$command > /dev/full: exit $status, not 2"
  grep -q "cannot write the output: No space left on device" "$work/err" ||
    fail "$command > /dev/full does not say the output was lost ($(cat "$work/err"))"
  pass "$command > /dev/full: exit 2, says so"
done

# 2. A bundle whose snapshot cannot be written whole (here: a 1 MiB dpkg database under a 256 KiB file-size
# limit; SIGXFSZ ignored, so the write fails with EFBIG as on a full disk) is not packed.
root=$work/machine
mkdir -p "$root/etc" "$root/var/lib/dpkg"
printf 'ID=debian\nVERSION_ID="12"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n' >"$root/etc/os-release"
for i in $(seq 1 6000); do
  printf 'Package: pkg%d\nStatus: install ok installed\nVersion: 1.0-%d\nArchitecture: amd64\n' "$i" "$i"
  printf 'Description: a package of the test machine, long enough to fill the status file\n\n'
done >"$root/var/lib/dpkg/status"
mkdir "$work/out-dir"
status=0
(
  ulimit -f 256
  trap '' XFSZ
  exec "$gpudoctor" bundle --root "$root" -o "$work/out-dir/b.tar.gz"
) >"$work/out" 2>"$work/err" || status=$?
[[ $status == 2 ]] || fail "bundle on a full disk: exit $status, not 2 ($(cat "$work/err"))"
grep -q "no bundle written" "$work/err" || fail "bundle on a full disk does not say no bundle was written"
grep -q "File too large" "$work/err" || fail "bundle on a full disk does not say why ($(cat "$work/err"))"
if grep -q "wrote" "$work/err"; then fail "bundle on a full disk says it wrote a bundle"; fi
[[ -z $(ls -A "$work/out-dir") ]] || fail "bundle on a full disk left $(ls -A "$work/out-dir")"
pass "bundle on a full disk: exit 2, says why, leaves nothing"
# The same machine without the limit is bundled: the refusal above was the disk's, not the machine's.
expect_status 0 "bundle of the same machine with room" "$gpudoctor" bundle --root "$root" -o "$work/out-dir/b.tar.gz"

# 3. check -o on a full disk keeps the report that was there.
echo "the previous report" >"$work/report.json"
status=0
(
  ulimit -f 2
  trap '' XFSZ
  exec "$gpudoctor" check --from "$source_dir/tests/machines/nvidia-h200-real/snapshot" --format json \
    -o "$work/report.json"
) >"$work/out" 2>"$work/err" || status=$?
[[ $status == 2 ]] || fail "check -o on a full disk: exit $status, not 2"
[[ $(cat "$work/report.json") == "the previous report" ]] || fail "check -o on a full disk changed the report"
pass "check -o on a full disk: exit 2, the previous report kept"

# 4. Undo of a user's apply whose steps ran as root through sudo: the state file is the user's, the journal
# and the backups root's (lib.bash's /var/log/gpudoctor and /var/backups/gpudoctor; here below $work).
if (($(id -u) != 0)) || ! command -v setpriv >/dev/null; then
  pass "SKIPPED the undo part: it needs root and setpriv"
  exit 0
fi
chmod 755 "$work"
user_state=$work/home/.local/state/gpudoctor
mkdir -p "$user_state" "$work/var/log" "$work/backups/etc" "$work/etc"
echo "edited by the run" >"$work/etc/thing.conf"
echo "before the run" >"$work/backups/etc/thing.conf"
run=20261201T090000Z-4242
printf '2026-12-01T09:00:01Z\t%s\tedit\tbackup\t%s\t%s\n' "$run" "$work/etc/thing.conf" \
  "$work/backups/etc/thing.conf" >"$work/var/log/fix.journal"
cat >"$user_state/last-apply.json" <<JSON
{"kind": "fix", "plan": "x", "script_id": "fix", "script": "$user_state/scripts/fix.sh", "root": "",
 "journal": "$work/var/log/fix.journal", "family": "debian", "needs_root": true, "run": "$run",
 "status": "done", "steps": ["edit"], "done": ["edit"]}
JSON
chown -R 65534:65534 "$work/home"

# The user's own undo cannot restore root's files: it goes through sudo, or says how when there is none.
mkdir "$work/bin"
ln -s "$(command -v env)" "$work/bin/env"
status=0
setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH="$work/bin" HOME="$work/home" \
  "$gpudoctor" undo --yes >"$work/out" 2>"$work/err" || status=$?
[[ $status == 2 ]] || fail "the user's undo without sudo: exit $status, not 2 ($(cat "$work/err"))"
grep -q "undo --state" "$work/err" || fail "the user's undo does not say how root undoes it ($(cat "$work/err"))"
[[ $(cat "$work/etc/thing.conf") == "edited by the run" ]] || fail "the user's undo changed root's file"
pass "the user's undo without sudo: exit 2, names the command for root"

# Root undoes it from the user's state file; the file stays the user's.
expect_status 0 "root's undo --state of the user's apply" "$gpudoctor" undo --yes --state "$user_state/last-apply.json"
[[ $(cat "$work/etc/thing.conf") == "before the run" ]] || fail "root's undo did not restore the backup"
[[ $(stat -c %u "$user_state/last-apply.json") == 65534 ]] || fail "root's undo took the user's state file"
expect "$user_state/last-apply.json" "r['status'] == 'undone'" "the user's state says undone"
grep -q "undone" "$work/var/log/fix.journal" || fail "the journal does not record the undo"
pass "root's undo restored the backup and kept the user's state file the user's"
