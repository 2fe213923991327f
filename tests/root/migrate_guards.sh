#!/usr/bin/env bash
# What a migration must stop for, and what it must finish, in copies of the ROCm 6 workstation of
# tests/root/lib.bash, each asserted by what dpkg, the sources and the files say afterwards, and each plan
# also made --from a bundle of its root (the same script):
#   held packages; an existing NVIDIA source (cuda-keyring's) reused, or replaced by a mirror's; the mirror
#   unreachable before the purge; too little disk; PyTorch's index down; pip failing half-way (the old PyTorch
#   stays); a process holding the GPU (/proc mounted for it); a full /boot at the initramfs step, then a rerun
#   that finishes it; a profile line the step keeps on purpose (its check does not fail on it).
source "$(dirname "$0")/lib.bash"
root_setup

# migrate_apply ROOT ARGS...: migrate --to nvidia through the root's local mirror, --apply.
migrate_apply() {
  local root=$1
  shift
  GPUDOCTOR_BOOT_ID=boot-one "$gpudoctor" migrate --to nvidia --root "$root" --yes --apply "$@"
}
mirror_args=(--mirror file:///srv/mirror --python /home/sam/venv/bin/python3)
sources_of() { cat "$1"/etc/apt/sources.list "$1"/etc/apt/sources.list.d/*.list 2>/dev/null | grep -v '^#' | sort; }

# ==== held packages ===============================================================================================
H=$roots/held
new_machine rocm6 "$H"
add_local_mirror "$H"
in_root "$H" apt-mark hold rocm-core hip-runtime-amd >/dev/null
sources_before=$(sources_of "$H")
expect_refusal "$H" "a migration over held packages" "$work/held.out" migrate_apply "$H" "${mirror_args[@]}"
grep -q "held with apt-mark hold: hip-runtime-amd rocm-core" "$work/held.out" || fail "the refusal does not name the held packages: $(tail "$work/held.out")"
[[ $(sources_of "$H") == "$sources_before" ]] || fail "the refused migration changed the sources"
[[ $(in_root "$H" apt-mark showhold | tr '\n' ' ') == "hip-runtime-amd rocm-core " ]] || fail "the holds changed"
same_plan_from_snapshot "$H" --to nvidia "${mirror_args[@]}"
pass "held packages: the plan says so, the script stops before changing anything (sources, holds, packages)"
"$gpudoctor" migrate --to nvidia --unhold --root "$H" "${mirror_args[@]}" --emit "$H/tmp/gd/unhold.sh" 2>/dev/null
in_root "$H" bash /tmp/gd/unhold.sh --step purge-rocm.holds --run-id unhold-run >"$work/unhold.out" 2>&1 ||
  fail "--unhold did not release the holds: $(tail "$work/unhold.out")"
[[ -z $(in_root "$H" apt-mark showhold) ]] || fail "still held after --unhold"
grep -q $'\tunheld\trocm-core' "$H"/var/log/gpudoctor/*.journal || fail "the release is not journaled"
pass "--unhold releases them, journaled for undo"
rm -rf "$H"

# ==== an existing NVIDIA source (cuda-keyring's) ====================================================================
K=$roots/keyring
new_machine rocm6 "$K"
add_local_mirror "$K"
cp "$mirror/compute/cuda/repos/debian12/x86_64/cuda-keyring_1.1-1_all.deb" "$K/tmp/gd/"
in_root "$K" dpkg -i /tmp/gd/cuda-keyring_1.1-1_all.deb >/dev/null
"$gpudoctor" migrate --to nvidia --root "$K" --emit "$K/tmp/gd/direct.sh" 2>/dev/null || fail "migrate without a mirror"
grep -q '^  gd_cuda_keyring http' "$K/tmp/gd/direct.sh" || fail "without --mirror the plan does not use cuda-keyring"
in_root "$K" bash /tmp/gd/direct.sh --step install-nvidia.keyring >"$work/keyring.out" 2>&1 || fail "the keyring step failed: $(tail "$work/keyring.out")"
grep -q 'reusing the source of /etc/apt/sources.list.d/cuda-debian12-x86_64.list' "$work/keyring.out" ||
  fail "the keyring step did not reuse cuda-keyring's source: $(cat "$work/keyring.out")"
[[ $(grep -l 'developer.download.nvidia.com' "$K"/etc/apt/sources.list.d/*.list | wc -l) == 1 ]] || fail "a second NVIDIA source was added"
in_root "$K" bash /tmp/gd/direct.sh --step prepare.download >"$work/kdl.out" 2>&1 || fail "the download through cuda-keyring's source failed: $(tail "$work/kdl.out")"
same_plan_from_snapshot "$K" --to nvidia
pass "cuda-keyring's source is reused: no second entry, apt updates and downloads through it"
"$gpudoctor" migrate --to nvidia --root "$K" --mirror file:///srv/mirror --emit "$K/tmp/gd/mirror.sh" 2>/dev/null
in_root "$K" bash /tmp/gd/mirror.sh --step install-nvidia.repository >"$work/repo.out" 2>&1 || fail "the mirror's repository step failed: $(tail "$work/repo.out")"
grep -q '^# disabled by gpudoctor (its mirror replaces this source): deb \[signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg\] http://developer.download.nvidia.com' \
  "$K/etc/apt/sources.list.d/cuda-debian12-x86_64.list" || fail "the vendor's entry is not disabled"
in_root "$K" apt-get update -q >"$work/update.out" 2>&1 || fail "apt-get update fails with the mirror's source: $(tail "$work/update.out")"
grep -q 'Conflicting values set for option Signed-By' "$work/update.out" && fail "two entries with another Signed-By"
pass "with --mirror, gpudoctor's source replaces cuda-keyring's entry (disabled, backed up); apt stays usable"
rm -rf "$K"

# ==== the mirror unreachable, too little disk, PyTorch's index down: nothing removed ===================================
for case in repo disk pip; do
  M=$roots/case-$case
  new_machine rocm6 "$M"
  add_local_mirror "$M"
  args=("${mirror_args[@]}")
  case $case in
  repo) # a wrong mirror: it has NVIDIA's key, not its repository
    find "$M/srv/mirror/compute/cuda/repos/debian12/x86_64" -type f ! -name 3bf863cc.pub -delete ;;
  disk)
    mkdir -p "$M/var/cache/gpudoctor"
    # mode 0755 as gpudoctor makes it: a tmpfs is 1777 by default, which root's records must not be in
    mount -t tmpfs -o size=256k,mode=0755 gpudoctor-small "$M/var/cache/gpudoctor"
    ;;
  pip) rm -rf "$M/srv/mirror/whl/cu130" ;;
  esac
  sources_before=$(sources_of "$M")
  expect_refusal "$M" "a migration with the $case failing" "$work/$case.out" migrate_apply "$M" "${args[@]}"
  case $case in
  repo) want='apt-get update failed' ;;
  disk) want='not enough free space for the downloads in /var/cache/gpudoctor' ;;
  pip) want='pip could not download torch torchvision from file:///srv/mirror/whl/cu130' ;;
  esac
  grep -q "$want" "$work/$case.out" || fail "the $case failure does not say '$want': $(tail -5 "$work/$case.out")"
  grep -q '(nothing was removed or upgraded)' "$work/$case.out" || fail "the $case failure does not say nothing was removed"
  [[ $(sources_of "$M") == "$sources_before" ]] || fail "the sources added for the download stayed: $(diff <(echo "$sources_before") <(sources_of "$M"))"
  [[ -e $M/etc/apt/keyrings/cuda-archive.asc ]] && fail "the key added for the download stayed"
  [[ $(in_root "$M" /home/sam/venv/bin/python -c 'import torch; print(torch.__version__)') == 2.4.1+rocm6.1 ]] ||
    fail "the venv's torch changed"
  same_plan_from_snapshot "$M" --to nvidia "${args[@]}"
  pass "$case failing before the purge: exit 1, '$want', the sources and key put back, nothing removed or upgraded"
  if [[ $case == disk ]]; then umount "$M/var/cache/gpudoctor"; fi
  rm -rf "$M"
done

# ==== pip failing half-way: the old PyTorch stays ===================================================================
P=$roots/pipfail
new_machine rocm6 "$P"
add_local_mirror "$P"
rm -rf "$P/srv/mirror/whl"
"$host_python" "$root_dir/tools/make_wheels.py" "$root_dir/graphs/wheels.txt" "$P/srv/mirror/whl" --corrupt torch==2.9.0+cu130
"$gpudoctor" migrate --to nvidia --root "$P" "${mirror_args[@]}" --emit "$P/tmp/gd/migrate.sh" 2>/dev/null
status=0
in_root "$P" bash /tmp/gd/migrate.sh --step torch-reinstall.reinstall >"$work/pipfail.out" 2>&1 || status=$?
[[ $status == 1 ]] || fail "a failing pip install did not fail the step (status $status): $(tail "$work/pipfail.out")"
grep -q 'the environment is as it was (torch 2.4.1+rocm6.1)' "$work/pipfail.out" || fail "the failure does not say the old torch is back: $(tail -5 "$work/pipfail.out")"
venv_python() { in_root "$P" /home/sam/venv/bin/python -c "$1"; }
[[ $(venv_python 'import torch; print(torch.__version__)') == 2.4.1+rocm6.1 ]] || fail "the old torch is not back"
[[ $(venv_python 'import triton; print(triton.__version__)') == 3.0.0 ]] || fail "the triton module is not pytorch-triton-rocm's any more"
pip_list=$(in_root "$P" /home/sam/venv/bin/pip list 2>/dev/null)
grep -q '^pytorch-triton-rocm *3.0.0' <<<"$pip_list" || fail "pytorch-triton-rocm is not back: $pip_list"
grep -q '^triton ' <<<"$pip_list" && fail "the new triton stayed: $pip_list"
[[ $(stat -c %u "$P/home/sam/venv/lib/python3.11/site-packages/torch/__init__.py") == "$(in_root "$P" id -u sam)" ]] ||
  fail "the restored files changed owner"
pass "pip failing half-way (a corrupt wheel, after pip took the old torch out): the environment is as it was"
rm -rf "$P"

# ==== a process holding the GPU ======================================================================================
G=$roots/gpu
new_machine rocm6 "$G"
add_local_mirror "$G"
: >"$G/dev/kfd"
mount -t proc proc "$G/proc"
setsid chroot "$G" /bin/sh -c 'exec 3</dev/kfd; exec sleep 600' </dev/null >/dev/null 2>&1 &
holder=$!
root_bg_pids+=" $holder"
for _ in $(seq 50); do [[ $(readlink "/proc/$holder/exe" 2>/dev/null) == */sleep ]] && break; sleep 0.1; done
"$gpudoctor" migrate --to nvidia --root "$G" "${mirror_args[@]}" --emit "$G/tmp/gd/migrate.sh" 2>/dev/null
status=0
in_root "$G" bash /tmp/gd/migrate.sh --step purge-rocm.gpu-users >"$work/gpu.out" 2>&1 || status=$?
[[ $status == 1 ]] || fail "a process holding /dev/kfd did not stop the step (status $status): $(cat "$work/gpu.out")"
grep -q "these processes use the GPU (pid command user): $holder sleep root" "$work/gpu.out" || fail "the holder is not named: $(cat "$work/gpu.out")"
kill -0 "$holder" || fail "the holder was stopped without --stop-gpu-users"
in_root "$G" bash /tmp/gd/migrate.sh --step purge-rocm.gpu-users --stop-gpu-users >"$work/gpu2.out" 2>&1 ||
  fail "--stop-gpu-users failed: $(cat "$work/gpu2.out")"
for _ in $(seq 50); do kill -0 "$holder" 2>/dev/null || break; sleep 0.1; done
kill -0 "$holder" 2>/dev/null && fail "--stop-gpu-users did not stop the holder"
same_plan_from_snapshot "$G" --to nvidia "${mirror_args[@]}"
pass "a process with /dev/kfd open is named and stops the step; --stop-gpu-users stops it (SIGTERM)"
umount "$G/proc"
rm -rf "$G"

# ==== a full /boot at the initramfs step, then a rerun; a profile line kept on purpose ==================================
B=$roots/boot
new_machine rocm6 "$B"
cat >"$B/usr/local/sbin/update-initramfs" <<'SH'
#!/bin/sh
echo "update-initramfs $*" >>/var/log/fake-initramfs.log
if [ -e /tmp/gd/boot-full ]; then echo "cpio: write error: No space left on device" >&2; exit 1; fi
echo "update-initramfs: Generating /boot/initrd.img"
SH
chmod 0755 "$B/usr/local/sbin/update-initramfs"
: >"$B/tmp/gd/boot-full"
echo 'export FOO=1; export ROCM_PATH=/opt/rocm' >>"$B/home/sam/.bashrc"
"$gpudoctor" fix purge-rocm --root "$B" --emit "$B/tmp/gd/purge.sh" 2>/dev/null
status=0
in_root "$B" bash /tmp/gd/purge.sh --step purge-rocm.modprobe >"$work/boot1.out" 2>&1 || status=$?
[[ $status == 1 && ! -e $B/etc/modprobe.d/amdgpu.conf ]] || fail "the full /boot did not fail the step after the file went (status $status)"
grep -qx initramfs "$B/var/lib/gpudoctor/owed-effects" || fail "the initramfs is not owed after the failure"
rm "$B/tmp/gd/boot-full"
in_root "$B" bash /tmp/gd/purge.sh --step purge-rocm.modprobe >"$work/boot2.out" 2>&1 || fail "the rerun failed: $(tail "$work/boot2.out")"
grep -q 'nothing needed changing' "$work/boot2.out" && fail "the rerun said nothing needed changing"
[[ $(grep -c 'update-initramfs -u' "$B/var/log/fake-initramfs.log") == 2 ]] || fail "the rerun did not rebuild the initramfs"
[[ ! -s $B/var/lib/gpudoctor/owed-effects ]] || fail "the initramfs is still owed"
grep -q $'\tpaid\tinitramfs' "$B"/var/log/gpudoctor/*.journal || fail "the payment is not journaled"
pass "a full /boot fails the step and leaves the initramfs owed; the rerun rebuilds it (not 'nothing needed changing')"
in_root "$B" bash /tmp/gd/purge.sh --step purge-rocm.profiles >"$work/prof.out" 2>&1 || fail "the profiles step failed on a line it keeps: $(tail "$work/prof.out")"
grep -qxF 'export FOO=1; export ROCM_PATH=/opt/rocm' "$B/home/sam/.bashrc" || fail "the profiles step removed a line it must keep"
pass "the profiles step keeps 'export FOO=1; export ROCM_PATH=...' and its check does not fail on it"
rm -rf "$B"
