#!/usr/bin/env bash
# An output that cannot be written (a full disk, a file-size limit, /dev/full) gives a clear error and exit
# status 2 in every subcommand, never "wrote ..." over a broken file; an undo of a user's apply whose steps
# ran through sudo is done by root from root's own records, never from the user's state file.
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

# 2. A bundle whose snapshot cannot be written whole (here: a 1 MiB dpkg database, whose recorded excerpt is
# 0.5 MiB, under a 256 KiB file-size limit; SIGXFSZ ignored, so the write fails with EFBIG as on a full disk)
# is not packed.
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

# 4. Undo of a user's apply that 0.1.0 ran through sudo, step by step: the user's state file names root's
# journal and backups. Root acts only on records root wrote (docs/fixes.md, "Apply state"): the user's undo
# hands the undo to root by the ids of its file (through sudo, or it says the root-side command), root's undo
# refuses the user's file itself and undoes from root's own journal by those ids. Root's folders are below
# $work here (--root).
if (($(id -u) != 0)) || ! command -v setpriv >/dev/null; then
  pass "SKIPPED the undo part: it needs root and setpriv"
  exit 0
fi
chmod 755 "$work"
user_state=$work/home/.local/state/gpudoctor
id=fix-1a2b3c4d
run=20261201T090000Z-4242
backup=/var/backups/gpudoctor/$id/$run/etc/thing.conf
mkdir -p "$user_state" "$work/var/log/gpudoctor" "$work$(dirname "$backup")" "$work/etc"
chmod 0700 "$work/var/backups/gpudoctor"
echo "edited by the run" >"$work/etc/thing.conf"
echo "before the run" >"$work$backup"
printf '2026-12-01T09:00:01Z\t%s\tedit\tbackup\t/etc/thing.conf\t%s\n' "$run" "$backup" >"$work/var/log/gpudoctor/$id.journal"
# As 0.1.0 wrote it, with the paths of root's journal and the user's script.
cat >"$user_state/last-apply.json" <<JSON
{"kind": "fix", "plan": "x", "script_id": "$id", "script": "$user_state/scripts/$id.sh", "root": "",
 "journal": "/var/log/gpudoctor/$id.journal", "family": "debian", "needs_root": true, "run": "$run",
 "status": "done", "steps": ["edit"], "done": ["edit"]}
JSON
chown -R 65534:65534 "$work/home"
user_state_before=$(sha256sum <"$user_state/last-apply.json")
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env -i PATH="$1" HOME="$work/home" "${@:2}"; }

# The user's own undo cannot restore root's files: it hands the undo to root by the ids, or says how.
mkdir "$work/bin" "$work/sudo-bin"
ln -s "$(command -v env)" "$work/bin/env"
status=0
as_nobody "$work/bin" "$gpudoctor" undo --yes >"$work/out" 2>"$work/err" || status=$?
[[ $status == 2 ]] || fail "the user's undo without sudo: exit $status, not 2 ($(cat "$work/err"))"
grep -q "undo --script $id --run $run --yes" "$work/err" ||
  fail "the user's undo does not name root's command by the ids ($(cat "$work/err"))"
[[ $(cat "$work/etc/thing.conf") == "edited by the run" ]] || fail "the user's undo changed root's file"
pass "the user's undo without sudo: exit 2, names the root-side command: $(tail -n 1 "$work/err")"
# With sudo: `sudo -- /abs/gpudoctor undo --script ID --run RUN`, which a rule allowing only gpudoctor allows.
cat >"$work/sudo-bin/sudo" <<SH
#!/bin/sh
printf '%s\n' "\$@" >"$work/home/sudo-argv"
exit 7
SH
chmod 755 "$work/sudo-bin/sudo"
ln -s "$(command -v env)" "$work/sudo-bin/env"
status=0
as_nobody "$work/sudo-bin" "$gpudoctor" undo --yes >"$work/out" 2>"$work/err" || status=$?
[[ $status == 7 ]] || fail "the user's undo through sudo: exit $status, not sudo's 7 ($(cat "$work/err"))"
want=$(printf '%s\n' -- "$(readlink -f "$gpudoctor")" undo --script "$id" --run "$run" --yes)
[[ $(cat "$work/home/sudo-argv") == "$want" ]] || fail "sudo was given: $(tr '\n' ' ' <"$work/home/sudo-argv"), not: $(tr "\n" " " <<<"$want")"
pass "the user's undo runs: sudo $(tr '\n' ' ' <"$work/home/sudo-argv")"

# Root refuses the user's file (it could name any journal, backup or package), naming the root-side command.
status=0
"$gpudoctor" undo --yes --root "$work" --state "$user_state/last-apply.json" >"$work/out" 2>"$work/err" || status=$?
[[ $status == 2 ]] || fail "root's undo --state of a user's file: exit $status, not 2 ($(cat "$work/err"))"
grep -q "owned by" "$work/err" || fail "root's refusal does not say whose the file is ($(cat "$work/err"))"
grep -q "gpudoctor undo --script $id --run $run --root" "$work/err" || fail "root's refusal does not name its command ($(cat "$work/err"))"
[[ $(cat "$work/etc/thing.conf") == "edited by the run" ]] || fail "root's undo --state of a user's file restored it"
pass "root's undo --state of the user's file: exit 2, nothing restored: $(tail -n 1 "$work/err")"
# The root-side command undoes it from root's own journal; the user's file is left as it was, the user's.
expect_status 0 "root's undo --script ID --run RUN" "$gpudoctor" undo --yes --root "$work" --script "$id" --run "$run"
[[ $(cat "$work/etc/thing.conf") == "before the run" ]] || fail "root's undo did not restore the backup"
[[ $(stat -c %u "$user_state/last-apply.json") == 65534 ]] || fail "root's undo took the user's state file"
[[ $(sha256sum <"$user_state/last-apply.json") == "$user_state_before" ]] || fail "root's undo wrote the user's state file"
grep -q $'\tundone' "$work/var/log/gpudoctor/$id.journal" || fail "the journal does not record the undo"
expect_status 0 "a second undo of it" "$gpudoctor" undo --yes --root "$work" --script "$id" --run "$run"
grep -q "undone already" "$work/out" || fail "a second undo did something: $(cat "$work/out")"
pass "root's undo restored the backup from its own records and left the user's state file alone"
