#!/usr/bin/env bash
# fixes/lib.bash on its own, in a script shaped like the rendered ones (`set -euo pipefail`):
# 1. Its questions to a tool whose answer comes in many writes: the answer is the same whether the match is
#    on the first line or the last. A reader that quits at its first match (grep -q) kills the writer with
#    SIGPIPE, and pipefail turns a "yes" into a "no" (tests/lint/shell_pipes.py keeps such pipelines out;
#    this shows what they cost).
# 2. The file writers replace a regular file or a link, and refuse a folder, a FIFO or a device of that name
#    (mv would move the new file into the folder; the rename would replace the node).
# 3. What a run killed halfway leaves is in the journal before it exists: an atomic write's temporary file
#    (temp-file, removed by the next run) and the packages an install is about to bring (install-planned).
# 4. The kernel modules are built for: the running one on the machine itself, the planned one in a root.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"
source_dir=$2

# The tools, faked: FIRST, then 20000 more lines, one write per line (as a tool that flushes per line).
cat >"$work/fakes.bash" <<'FAKES'
many_lines() {
  local i
  echo "$1"
  for ((i = 0; i < 20000; i++)); do echo "line-$i  more"; done
}
dnf() { many_lines "epel  Extra Packages for Enterprise Linux"; }
mokutil() { many_lines "/var/lib/dkms/mok.pub is already enrolled"; }
gd_mok_paths() { GD_MOK_CERT=/var/lib/dkms/mok.pub; }
gd_journal() { :; }
gd_journal_sync() { :; }
gd_backup() { :; }
FAKES

# lib_run FAMILY COMMAND...: COMMAND in a script shaped like the rendered ones (lib.bash, pipefail).
lib_run() {
  local family=$1
  shift
  bash -c 'set -euo pipefail; source "$1"; source "$2"; GD_FAMILY=$3; shift 3; "$@"' \
    _ "$source_dir/fixes/lib.bash" "$work/fakes.bash" "$family" "$@" 2>&1
}

lib_run rhel gd_dnf_repo_enabled epel >"$work/out" ||
  fail "gd_dnf_repo_enabled: epel, the first of 20001 enabled repositories, is not enabled: $(cat "$work/out")"
pass "gd_dnf_repo_enabled finds the first of 20001 repositories, written one line at a time, under pipefail"

lib_run debian gd_mok_import >"$work/out" || fail "gd_mok_import failed: $(cat "$work/out")"
grep -q "is enrolled already" "$work/out" || fail "gd_mok_import did not see the enrolled key: $(cat "$work/out")"
pass "gd_mok_import sees the enrolled key on the first of 20001 lines, under pipefail"

# 2. The writers, on files below $work/etc (no journal or backup: faked).
etc=$work/etc
mkdir -p "$etc/a-folder"
mkfifo "$etc/a-fifo"
echo old >"$etc/a-file"
echo key >"$work/key"
for target in "$etc/a-folder" "$etc/a-fifo"; do
  for writer in "gd_write_file $target 0644" "gd_install_file $work/key $target 0644"; do
    # shellcheck disable=SC2086 # the words of the writer
    if lib_run debian $writer <<<"new" >"$work/out"; then fail "${writer%% *} replaced $target: $(cat "$work/out")"; fi
    grep -q "$target exists and is not a regular file: not replaced" "$work/out" ||
      fail "${writer%% *} $target: $(cat "$work/out")"
  done
done
[[ -d $etc/a-folder && -z $(ls -A "$etc/a-folder") && -p $etc/a-fifo ]] ||
  fail "the folder or the FIFO changed: $(ls -la "$etc" "$etc/a-folder")"
lib_run debian gd_write_file "$etc/a-file" 0644 <<<"new" >"$work/out" || fail "gd_write_file failed: $(cat "$work/out")"
[[ $(cat "$etc/a-file") == new ]] || fail "gd_write_file did not write the regular file"
pass "gd_write_file and gd_install_file refuse a folder and a FIFO of the file's name, and write a regular file"

# 3. With a real journal: a run that dies after creating its temporary file, then the next run.
journal_run() { # RUN_ID COMMAND...: COMMAND in a rendered script's shape, journaling to $work/journal
  local run=$1
  shift
  bash -c 'set -euo pipefail; source "$1"; source "$2"; GD_FAMILY=debian GD_JOURNAL=$3 GD_LOG_DIR=$4 GD_RUN_ID=$5
    shift 5; "$@"' _ "$source_dir/fixes/lib.bash" "$work/helpers.bash" "$work/journal" "$work" "$run" "$@" 2>&1
}
cat >"$work/helpers.bash" <<'HELPERS'
# planned PLANNED BEFORE: what an install's simulation left in GD_INSTALL_PLANNED, then its journaling.
planned() { GD_INSTALL_PLANNED=$1 && gd_journal_planned_installs "$2"; }
# failing_rename FILE: gd_write_file with an mv that fails (as on a full disk): the run ends there (set -e).
failing_rename() {
  mv() { return 1; }
  gd_write_file "$1" 0644 <<<"new"
}
# full_journal_prepare FILE: a prepare step writes FILE, then its journal's disk is full and the step fails:
# the exit trap (set -e holds there too) must still roll the stage back.
full_journal_prepare() {
  apt-get() { :; } # the rollback's index update: not this machine's
  GD_STEP_IDS=(p) GD_STEP_FLAGS=(prepare) GD_STEP_INDEX=0 GD_STEP=p GD_PHASE=run
  trap 'gd_on_exit $?' EXIT
  gd_write_file "$1" 0644 <<<"new"
  gd_journal() { return 1; }
  false
}
# full_disk_prepare FILE LOGDIR: two prepare steps with the journal in LOGDIR (a small filesystem): the
# first reserves the journal's room, writes FILE, then the disk fills and it journals 200 more entries (14 KB,
# more than the page the reserve may end in); the second cannot reserve room again, so it stops before doing
# anything and the stage is put back.
full_disk_prepare() {
  apt-get() { :; } # the rollback's index update: not this machine's
  GD_STEP_IDS=(p q) GD_STEP_FLAGS=(prepare prepare) GD_STEP_INDEX=0 GD_STEP=p GD_PHASE=run
  trap 'gd_on_exit $?' EXIT
  gd_journal step-begin p
  gd_journal_reserve
  gd_write_file "$1" 0644 <<<"new"
  dd if=/dev/zero of="$2/filler" bs=4k 2>/dev/null || true
  dd if=/dev/zero of="$2/filler2" bs=512 2>/dev/null || true
  local i
  for ((i = 0; i < 200; i++)); do gd_journal entry-on-a-full-disk "$i"; done
  gd_journal step-done
  GD_STEP=q GD_STEP_INDEX=1
  gd_journal step-begin q
  gd_journal_reserve
  echo "the second step began"
}
HELPERS
mkdir -p "$etc/profile.d"
journal_run run-1 gd_temp_beside "$etc/profile.d" >"$work/out" || fail "gd_temp_beside failed: $(cat "$work/out")"
left=("$etc"/profile.d/.gpudoctor-run-1-*.tmp)
[[ -f ${left[0]} ]] || fail "gd_temp_beside made no file: $(ls -A "$etc/profile.d")"
grep -qF "$(printf 'run-1\t-\ttemp-file\t%s' "${left[0]}")" "$work/journal" ||
  fail "the temporary file is not in the journal: $(cat "$work/journal")"
# Beside it: a file of the same shape that no run journaled, and a journaled name that is now a link.
echo keep >"$etc/profile.d/.gpudoctor-someone-1.tmp"
printf '%s\trun-0\t-\ttemp-file\t%s\n' now "$etc/profile.d/.gpudoctor-run-0-1.tmp" >>"$work/journal"
ln -s "$etc/a-file" "$etc/profile.d/.gpudoctor-run-0-1.tmp"
journal_run run-2 gd_remove_stale_temps >"$work/out" || fail "gd_remove_stale_temps failed: $(cat "$work/out")"
[[ ! -e ${left[0]} ]] || fail "the next run left the killed run's temporary file: $(cat "$work/out")"
[[ -f $etc/profile.d/.gpudoctor-someone-1.tmp && -L $etc/profile.d/.gpudoctor-run-0-1.tmp && -f $etc/a-file ]] ||
  fail "gd_remove_stale_temps removed what no run journaled, or followed a link: $(ls -lA "$etc/profile.d")"
pass "an atomic write's temporary file is journaled before it exists; the next run removes it, and nothing else"

# A prepare step whose rename failed: its rollback removes the temporary file with what the run created.
: >"$work/journal"
mkdir -p "$etc/sources.list.d"
! journal_run run-4 failing_rename "$etc/sources.list.d/new.list" >"$work/out" ||
  fail "gd_write_file went on after its rename failed: $(cat "$work/out")"
left=("$etc"/sources.list.d/.gpudoctor-run-4-*.tmp)
[[ -f ${left[0]} ]] || fail "the failed rename left no temporary file to test with: $(ls -A "$etc/sources.list.d")"
journal_run run-4 gd_rollback_run >"$work/out" || fail "gd_rollback_run failed: $(cat "$work/out")"
[[ -z $(ls -A "$etc/sources.list.d") ]] ||
  fail "the rollback left files of the failed run: $(ls -A "$etc/sources.list.d") ($(cat "$work/out"))"
grep -q "its rename had failed" "$work/out" || fail "the rollback did not say it removed the temporary file: $(cat "$work/out")"
pass "the prepare stage's rollback removes the temporary file of a rename that failed"

: >"$work/journal"
! journal_run run-5 full_journal_prepare "$etc/sources.list.d/cuda.list" >"$work/out" ||
  fail "the step with a full journal did not fail: $(cat "$work/out")"
[[ ! -e $etc/sources.list.d/cuda.list ]] ||
  fail "a prepare step whose journal could not be written kept its file: $(cat "$work/out")"
pass "a prepare step that fails with its journal's disk full is still rolled back"

# The journal's own room on a real full disk (a 256 KiB tmpfs; mounting needs root).
if [[ $(id -u) == 0 ]]; then
  mkdir -p "$work/logfs"
  mount -t tmpfs -o size=256k gpudoctor-test "$work/logfs"
  ! bash -c 'set -euo pipefail; source "$1"; source "$2"; GD_FAMILY=debian GD_JOURNAL=$3/j.journal GD_LOG_DIR=$3
    GD_RUN_ID=run-6; full_disk_prepare "$4" "$3"' _ "$source_dir/fixes/lib.bash" "$work/helpers.bash" \
    "$work/logfs" "$etc/sources.list.d/reserved.list" >"$work/out" 2>&1
  failed=$?
  cp "$work/logfs/j.journal" "$work/full.journal"
  umount "$work/logfs"
  ((failed == 0)) || fail "the second step ran on a full disk: $(cat "$work/out")"
  grep -q "is full: no room for this step's journal" "$work/out" || fail "the stop does not say why: $(cat "$work/out")"
  [[ ! -e $etc/sources.list.d/reserved.list ]] || fail "the prepare stage was not put back: $(cat "$work/out")"
  [[ $(grep -c $'\tentry-on-a-full-disk\t' "$work/full.journal") == 200 ]] &&
    grep -q $'\tq\tstep-failed\t1' "$work/full.journal" && grep -q $'\trolled-back' "$work/full.journal" ||
    fail "the journal lost entries on the full disk: $(cut -f3- "$work/full.journal")"
  pass "the journal keeps room of its own: 200 entries on a full disk, then the next step stops before it begins and the prepare stage is put back, journaled"
else
  pass "the journal's own room on a full disk: not tested (mounting a small filesystem needs root)"
fi

: >"$work/journal"
journal_run run-3 planned $'nvidia-driver\nlibc6\nnvidia-kernel-dkms' $'libc6\nbash' >"$work/out" ||
  fail "gd_journal_planned_installs failed: $(cat "$work/out")"
[[ $(cut -f4- "$work/journal" | tr '\t' ' ') == $'install-planned nvidia-driver\ninstall-planned nvidia-kernel-dkms' ]] ||
  fail "the planned installs journaled: $(cat "$work/journal")"
pass "an install journals the packages its simulation brings (not those already there) before it runs"

# ---- 4. the kernel: uname -r at run time, GD_KERNEL (the plan's) only in a root ------------------------------
mkdir -p "$work/modules/6.8.0-60-generic"
kernel_of() { # INSTALLROOT: gd_kernel on a machine that booted 6.8.0-60 since its bundle said 6.8.0-45
  bash -c 'set -euo pipefail; source "$1"; uname() { echo 6.8.0-60-generic; }; GD_KERNEL=6.8.0-45-generic
    GD_MODULES_DIR=$2 GD_INSTALLROOT=$3; gd_kernel' _ "$source_dir/fixes/lib.bash" "$work/modules" "$1"
}
[[ $(kernel_of "") == 6.8.0-60-generic ]] ||
  fail "gd_kernel: the running kernel (6.8.0-60, its modules present) loses to the bundle's: $(kernel_of "")"
[[ $(kernel_of /mnt/root) == 6.8.0-45-generic ]] || fail "gd_kernel: in an installroot the planned kernel must stand"
rm -r "$work/modules/6.8.0-60-generic"
[[ $(kernel_of "") == 6.8.0-45-generic ]] ||
  fail "gd_kernel: in a chroot (no modules of the host's kernel) the planned kernel must stand: $(kernel_of "")"
pass "gd_kernel: the running kernel on the machine, the planned one in a root"
