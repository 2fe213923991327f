#!/usr/bin/env bash
# `gpudoctor fix purge-rocm` in the ROCm 6 workstation of tests/root/lib.bash (real Debian 12 root, the
# vendors' package graphs installed by apt):
#   1. --dry-run leaves the root bit-identical; the run removes exactly the ROCm packages (on the dependency
#      graph), folders, sources, keys, pins, ld.so.conf.d entries, modprobe and ICD files and profile exports
#      (with backups), keeps the canaries (the distribution's Mesa, libdrm and HIP that libucx0 needs, unrelated
#      files and lines); a second run changes nothing.
#   2. --apply killed at random moments: every file it edits is the old or the new one, never a torn one, and
#      `undo` restores them all; a full apply then undo restores them too.
# The roots are not given /proc: the scripts must not need it (apt and dpkg do not).
source "$(dirname "$0")/lib.bash"
root_setup

machine() {
  new_machine rocm6 "$1"
  # A sources.list with a line of AMD's among the distribution's: edited, not removed.
  echo 'deb http://repo.radeon.com/rocm/apt/6.2.4 jammy main' >>"$1/etc/apt/sources.list"
}

# The files purge-rocm edits or removes, as the kill test compares them.
edited=(/etc/apt/sources.list /etc/apt/sources.list.d/rocm.list /etc/apt/sources.list.d/amdgpu.list
  /etc/apt/keyrings/rocm.gpg /etc/apt/preferences.d/rocm-pin-600 /etc/ld.so.conf.d/rocm.conf
  /etc/modprobe.d/amdgpu.conf /etc/OpenCL/vendors/amdocl64_60204_139.icd /etc/environment
  /etc/profile.d/rocm.sh /home/sam/.bashrc)

# ==== 1. purge-rocm, dry run, run, second run ===============================================================
A=$roots/rootA
machine "$A"
declare -A before_edit
for f in "${edited[@]}"; do before_edit[$f]=$(digest "$A$f"); done
canary_before=$(cat "$A/opt/other/keep.txt" "$A/etc/canary.conf" "$A/etc/ld.so.conf.d/x86_64-linux-gnu.conf" | sha256sum)
"$gpudoctor" fix purge-rocm --root "$A" --emit "$A/tmp/gd/purge.sh" 2>"$work/emit.err" ||
  fail "fix purge-rocm --root: $(cat "$work/emit.err")"
shellcheck "$A/tmp/gd/purge.sh" || fail "the rendered purge script does not pass shellcheck"
grep -q "^  gd_purge_packages amd-smi-lib amdgpu-core amdgpu-dkms .* xserver-xorg-amdgpu-video-amdgpu -- " \
  "$A/tmp/gd/purge.sh" || fail "the purge list is not the explicit list of the stack's installed packages"
pass "purge-rocm rendered from the root's facts: explicit package list, shellcheck clean"

tree_state "$A" >"$work/A0"
in_root "$A" bash /tmp/gd/purge.sh --dry-run >"$work/dry.out" 2>&1 || fail "--dry-run failed: $(tail -5 "$work/dry.out")"
tree_state "$A" >"$work/A1"
cmp -s "$work/A0" "$work/A1" || fail "--dry-run changed the root: $(diff "$work/A0" "$work/A1" | sed -n 1,5p)"
grep -q 'would run: env DEBIAN_FRONTEND=noninteractive apt-get purge' "$work/dry.out" ||
  fail "--dry-run did not print the purge command"
grep -q 'would update the package index and download' "$work/dry.out" || fail "--dry-run did not say what it would download"
[[ ! -e $A/var/log/gpudoctor ]] || fail "--dry-run wrote a journal"
pass "--dry-run prints the commands and leaves the root bit-identical"

in_root "$A" bash /tmp/gd/purge.sh >"$work/run.out" 2>&1 || fail "the purge script failed: $(tail -15 "$work/run.out")"
for p in rocm-core hip-runtime-amd rocminfo rocm-hip-sdk rocm-hip-sdk6.1.0 half amdgpu-dkms amdgpu-install libdrm-amdgpu-amdgpu1; do
  is_installed "$A" "$p" && fail "$p is still installed"
done
pass "the ROCm packages are gone"
for p in libdrm-amdgpu1 libucx0 libamdhip64-5 gpu-desktop-canary libgl1-mesa-dri dkms; do
  is_installed "$A" "$p" || fail "the canary $p is not installed"
done
pass "the canaries stay: the distribution's libdrm, the HIP libucx0 needs, the desktop (now on the distribution's Mesa), dkms"
for path in /opt/rocm-6.2.4 /opt/rocm /usr/src/amdgpu-6.8.5-2044426.22.04 /var/lib/dkms/amdgpu/6.8.5-2044426.22.04 \
  /etc/alternatives/rocm /etc/apt/sources.list.d/rocm.list /etc/apt/sources.list.d/amdgpu.list \
  /etc/apt/keyrings/rocm.gpg /etc/apt/preferences.d/rocm-pin-600 /etc/ld.so.conf.d/rocm.conf \
  /etc/modprobe.d/amdgpu.conf /etc/OpenCL/vendors/amdocl64_60204_139.icd /home/sam/.cache/miopen; do
  [[ -e $A$path || -L $A$path ]] && fail "$path is still there"
done
pass "ROCm folders, DKMS trees, alternatives, sources, key, pin, ld.so.conf.d, modprobe, ICD files and MIOpen caches are gone"
grep -q 'deb.debian.org' "$A/etc/apt/sources.list" || fail "the Debian line of sources.list was removed"
grep -q 'repo.radeon.com' "$A/etc/apt/sources.list" && fail "the radeon line of sources.list is still there"
grep -Eq 'ROCM_PATH|HSA_OVERRIDE|/opt/rocm|HIP_VISIBLE_DEVICES' "$A/home/sam/.bashrc" && fail ".bashrc still names ROCm"
# shellcheck disable=SC2016 # the profile's own text
for line in 'export EDITOR=vim' "alias ll='ls -l'" 'export PATH="$HOME/bin:$PATH"'; do
  grep -qxF "$line" "$A/home/sam/.bashrc" || fail ".bashrc lost a line that is not ROCm's: $line"
done
sam_ids=$(in_root "$A" id -u sam):$(in_root "$A" id -g sam)
[[ $(stat -c '%u:%g %a' "$A/home/sam/.bashrc") == "$sam_ids 640" ]] || fail ".bashrc changed owner or mode"
grep -q HSA_OVERRIDE "$A/etc/environment" && fail "/etc/environment still sets HSA_OVERRIDE_GFX_VERSION"
grep -qx 'PATH="/usr/local/bin:/usr/bin:/bin"' "$A/etc/environment" || fail "/etc/environment lost PATH"
grep -q /opt/rocm "$A/etc/profile.d/rocm.sh" && fail "/etc/profile.d/rocm.sh still names /opt/rocm"
pass "sources.list, .bashrc, /etc/environment and profile.d keep everything but ROCm's lines"
[[ $(cat "$A/opt/other/keep.txt" "$A/etc/canary.conf" "$A/etc/ld.so.conf.d/x86_64-linux-gnu.conf" | sha256sum) == \
  "$canary_before" ]] || fail "an unrelated file changed"
pass "unrelated files are untouched"
backups=$A/var/backups/gpudoctor
for f in /etc/apt/sources.list.d/rocm.list /etc/apt/sources.list /home/sam/.bashrc /etc/environment \
  /etc/ld.so.conf.d/rocm.conf /etc/apt/keyrings/rocm.gpg; do
  b=$(find "$backups" -path "*$f" -type f | sed -n 1p)
  [[ -n $b && $(digest "$b") == "${before_edit[$f]}" ]] || fail "no backup of $f with its old content"
done
[[ $(stat -c %a "$backups") == 700 ]] || fail "the backup folder is readable by others"
journal=$(find "$A/var/log/gpudoctor" -name '*.journal' | sed -n 1p)
[[ $(grep -c $'\tstep-done' "$journal") -ge 10 ]] || fail "the journal lacks its steps: $(cat "$journal")"
pass "edited and removed files have backups (0700), the journal has every step"

tree_state "$A" >"$work/A2"
in_root "$A" bash /tmp/gd/purge.sh >"$work/run2.out" 2>&1 || fail "the second run failed: $(tail -5 "$work/run2.out")"
tree_state "$A" >"$work/A3"
cmp -s "$work/A2" "$work/A3" || fail "the second run changed the root: $(diff "$work/A2" "$work/A3" | sed -n 1,5p)"
grep -q 'nothing needed changing' "$work/run2.out" || fail "the second run did not say it changed nothing: $(tail "$work/run2.out")"
pass "a second run changes nothing"
declare -A after_edit
for f in "${edited[@]}"; do after_edit[$f]=$(digest "$A$f"); done
rm -rf "$A"

# ==== 2. --apply killed at random moments; undo ===============================================================
check_torn() { # every edited file holds its old or its new content
  local root=$1 f d
  for f in "${edited[@]}"; do
    d=$(digest "$root$f")
    [[ $d == "${before_edit[$f]}" || $d == "${after_edit[$f]}" ]] || fail "$f is neither old nor new after the kill: $d"
  done
}
check_restored() {
  local root=$1 f
  for f in "${edited[@]}"; do
    [[ $(digest "$root$f") == "${before_edit[$f]}" ]] || fail "undo did not restore $f"
  done
}
D=$roots/rootD
machine "$D"
start=$(date +%s%N)
"$gpudoctor" fix purge-rocm --root "$D" --apply --yes >"$work/applyD.out" 2>&1 || fail "--apply failed: $(tail "$work/applyD.out")"
echo "a full --apply of purge-rocm took $((($(date +%s%N) - start) / 1000000)) ms"
journal_d=$work/journal-d
cp "$D"/var/log/gpudoctor/*.journal "$journal_d"
for f in "${edited[@]}"; do
  [[ $(digest "$D$f") == "${after_edit[$f]}" ]] || fail "--apply left $f other than the script does"
done
"$gpudoctor" undo --root "$D" --yes >"$work/undoD.out" 2>&1 || fail "undo failed: $(tail "$work/undoD.out")"
check_restored "$D"
is_installed "$D" rocm-core || fail "undo did not reinstall rocm-core from the cache: $(tail "$work/undoD.out")"
"$gpudoctor" undo --root "$D" --yes >"$work/undoD2.out" 2>&1 || fail "a second undo failed"
grep -q 'undone already' "$work/undoD2.out" || fail "a second undo did something: $(cat "$work/undoD2.out")"
pass "a full --apply then undo restores every file and reinstalls the purged packages from the script's cache"
rm -rf "$D"

# The steps of that apply, in order; each kill waits for one of them to begin (spread over the steps, at a
# random one of each slice), then kills the whole process group a random 0-40 ms later.
mapfile -t steps < <(grep $'\tstep-begin' "$journal_d" | cut -f3)
((${#steps[@]} >= 10)) || fail "the apply ran only ${#steps[@]} steps"
kills=${GPUDOCTOR_KILLS:-5}
for ((i = 1; i <= kills; i++)); do
  C=$roots/rootC$i
  machine "$C"
  target=${steps[$(((i - 1) * ${#steps[@]} / kills + RANDOM % (${#steps[@]} / kills)))]}
  setsid "$gpudoctor" fix purge-rocm --root "$C" --apply --yes >"$work/apply$i.out" 2>&1 &
  pid=$!
  for ((wait = 0; wait < 6000; wait++)); do
    if grep -qs $'\t'"$target"$'\tstep-begin' "$C"/var/log/gpudoctor/*.journal; then break; fi
    sleep 0.01
  done
  sleep "0.0$((RANDOM % 5))$((RANDOM % 10))"
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  check_torn "$C"
  if [[ -f $C/var/lib/gpudoctor/last-apply.json ]]; then
    "$gpudoctor" undo --root "$C" --yes >"$work/undo$i.out" 2>&1 || fail "undo failed: $(cat "$work/undo$i.out")"
  fi
  check_restored "$C"
  done_steps=$(cat "$C"/var/log/gpudoctor/*.journal 2>/dev/null | grep -c $'\tstep-done' || true)
  pass "killed in step $target ($done_steps steps done): every file old or new; undo restored them"
  rm -rf "$C"
done
