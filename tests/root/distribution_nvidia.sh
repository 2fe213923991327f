#!/usr/bin/env bash
# `gpudoctor fix install-nvidia` on a Debian 13 (trixie) root running Debian's own NVIDIA driver: the real
# packages of `apt install nvidia-driver nvidia-smi libcuda1` from Debian's archive (550.163.01, Maintainer
# Debian NVIDIA Maintainers; ensure_real_archive), for an RTX 3090. NVIDIA's nvidia-utils-580 ships the file
# /usr/bin/nvidia-smi where Debian's driver has its alternatives' link (nvidia-alternative): undo must take
# NVIDIA's out before it puts Debian's back.
#   1. The plan replaces Debian's driver packages in the driver step and names them, keeping what the
#      distribution's GLX diversions need; --apply: NVIDIA's 580 with open modules and CUDA 13.0 in, Debian's
#      gone, dpkg and apt consistent.
#   2. undo puts Debian's driver back from the script's cache and takes NVIDIA's out.
#   3. migrate --to amd purges Debian's driver and installs AMD's ROCm, across the reboot; undo.
source "$(dirname "$0")/lib.bash"
root_setup
ensure_real_archive trixie "${debian_stacks[@]}"
serve_real_archive

machine_suites[distro_nvidia]=trixie
machine_distro_nvidia() { distribution_machine "$1" nvidia-driver nvidia-smi libcuda1; }

# Debian's driver as apt installs it: every package of its, the GL, EGL and GLX ones whose names carry nvidia
# inside too (before the stack's globs took "*nvidia*" as NVIDIA's guide does, libegl-nvidia0 and the like
# stayed, holding on to the 550 libraries beside NVIDIA's 580).
debian_nvidia=(glx-alternative-nvidia libcuda1 libegl-nvidia0 libgl1-nvidia-glvnd-glx libglx-nvidia0
  libnvidia-eglcore libnvidia-glcore libnvidia-glvkspirv libnvidia-gpucomp libnvidia-ml1 libnvidia-pkcs11-openssl3
  libnvidia-ptxjitcompiler1 nvidia-alternative nvidia-driver nvidia-driver-bin nvidia-driver-libs nvidia-egl-common
  nvidia-egl-icd nvidia-kernel-common nvidia-kernel-dkms nvidia-kernel-support nvidia-legacy-check nvidia-modprobe
  nvidia-smi nvidia-support nvidia-vdpau-driver xserver-xorg-video-nvidia)
args=(--gpu "RTX 3090" --mirror file:///srv/mirror)

# ==== 1. the plan and its run ===============================================================================
A=$roots/rootA
new_machine distro_nvidia "$A"
add_local_mirror "$A"
[[ $(installed_version "$A" nvidia-driver) == "ii  550.163.01-2" ]] || fail "the root does not hold Debian's driver"
[[ -f $A/lib/modules/$kernel/updates/dkms/nvidia-current.ko ]] || fail "Debian's DKMS module is not built in the root"
"$gpudoctor" fix install-nvidia "${args[@]}" --root "$A" --emit "$A/tmp/gd/install.sh" 2>"$work/emit.err" ||
  fail "fix install-nvidia --root: $(cat "$work/emit.err")"
shellcheck "$A/tmp/gd/install.sh" || fail "the install script does not pass shellcheck"
replaced=$(sed -n 's/^  gd_install_packages nvidia-open-580 -- //p' "$A/tmp/gd/install.sh" | tr ' ' '\n' | sed 's/=.*//' | tr '\n' ' ')
[[ $replaced == "${debian_nvidia[*]} " ]] ||
  fail "the driver step does not replace Debian's driver: $(grep -n 'gd_install_packages nvidia-open' "$A/tmp/gd/install.sh")"
grep -q "own builds installed here ([^)]*nvidia-driver[^)]*)" <<<"$(sed -n 's/^#  *//p' "$A/tmp/gd/install.sh" | tr '\n' ' ')" ||
  fail "the plan does not name Debian's driver packages"
grep -q "kept: [^;]*nvidia-installer-cleanup, which glx-diversions needs" <<<"$(sed -n 's/^#  *//p' "$A/tmp/gd/install.sh" | tr '\n' ' ')" ||
  fail "the plan does not say that glx-diversions keeps nvidia-installer-cleanup"
pass "the plan replaces Debian's ${debian_nvidia[*]} in the driver step and names them"

"$gpudoctor" fix install-nvidia "${args[@]}" --root "$A" --apply --yes >"$work/run.out" 2>&1 ||
  fail "fix install-nvidia --apply failed: $(tail -20 "$work/run.out")"
for p in nvidia-open-580 nvidia-utils-580 cuda-toolkit-13-0; do is_installed "$A" "$p" || fail "$p is not installed"; done
for p in "${debian_nvidia[@]}"; do ! is_installed "$A" "$p" || fail "Debian's $p is still installed"; done
[[ $(in_root "$A" dpkg-query -S /usr/bin/nvidia-smi 2>/dev/null) == "nvidia-utils-580: /usr/bin/nvidia-smi" ]] ||
  fail "/usr/bin/nvidia-smi is not NVIDIA's: $(in_root "$A" dpkg-query -S /usr/bin/nvidia-smi 2>&1)"
[[ -z $(in_root "$A" dpkg --audit) ]] || fail "dpkg --audit: $(in_root "$A" dpkg --audit)"
in_root "$A" apt-get check -q >/dev/null 2>&1 || fail "apt-get check fails after the install"
pass "apt accepts the result: NVIDIA's 580 (open modules) and CUDA 13.0 in, Debian's driver gone, nvidia-smi NVIDIA's"

# ==== 2. undo ===============================================================================================
"$gpudoctor" undo --root "$A" --yes >"$work/undo.out" 2>&1 || fail "undo failed: $(tail "$work/undo.out")"
for p in "${debian_nvidia[@]}"; do is_installed "$A" "$p" || fail "undo left Debian's $p out: $(tail -5 "$work/undo.out")"; done
for p in nvidia-open-580 nvidia-utils-580; do ! is_installed "$A" "$p" || fail "undo left NVIDIA's $p"; done
smi=$(in_root "$A" readlink -f /usr/bin/nvidia-smi)
[[ $(in_root "$A" dpkg-query -S "$smi" 2>/dev/null) == "nvidia-smi: /usr/lib/nvidia/current/nvidia-smi" ]] ||
  fail "after undo /usr/bin/nvidia-smi is not Debian's alternative: it resolves to $smi"
[[ -f $A/lib/modules/$kernel/updates/dkms/nvidia-current.ko ]] || fail "after undo Debian's DKMS module is not built again"
pass "undo puts Debian's driver back from the script's cache (its DKMS module built again) and takes NVIDIA's out"
rm -rf "$A"

# ==== 3. migrate --to amd: Debian's driver out, AMD's ROCm in, across the reboot; undo =======================
B=$roots/rootB
new_machine distro_nvidia "$B"
add_local_mirror "$B"
migrate_apply "$B" --to amd --gpu "Radeon PRO W7900" --mirror file:///srv/mirror
for p in "${debian_nvidia[@]}"; do ! is_installed "$B" "$p" || fail "the migration left Debian's $p"; done
for p in rocm amdgpu-dkms; do is_installed "$B" "$p" || fail "$p is not installed after the migration"; done
[[ ! -e $B/lib/modules/$kernel/updates/dkms/nvidia-current.ko ]] || fail "Debian's NVIDIA module is still installed"
apt_consistent "$B" "after the migration"
migrate_resume "$B"
"$gpudoctor" undo --root "$B" --yes >"$work/undoB.out" 2>&1 || fail "undo of the migration failed: $(tail -20 "$work/undoB.out")"
for p in "${debian_nvidia[@]}"; do is_installed "$B" "$p" || fail "undo of the migration left Debian's $p out"; done
! is_installed "$B" rocm || fail "undo of the migration left AMD's rocm"
[[ -f $B/lib/modules/$kernel/updates/dkms/nvidia-current.ko ]] || fail "after undo of the migration Debian's module is not built"
pass "migrate --to amd purges Debian's driver (its DKMS module too), installs AMD's ROCm, apt accepts it; undo puts Debian's driver back"
