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
# migrate --to amd on this machine is fault_matrix.sh's amd-d13 plan: its clean run, across the reboot, must
# take Debian's driver and its module out and put AMD's ROCm in; its cells' undo must give Debian's back.
source "$(dirname "$0")/lib.bash"
root_setup
ensure_real_archive trixie "${debian_stacks[@]}"
serve_real_archive

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
[[ $replaced == "${debian_nvidia_packages[*]} " ]] ||
  fail "the driver step does not replace Debian's driver: $(grep -n 'gd_install_packages nvidia-open' "$A/tmp/gd/install.sh")"
grep -q "own builds installed here ([^)]*nvidia-driver[^)]*)" <<<"$(sed -n 's/^#  *//p' "$A/tmp/gd/install.sh" | tr '\n' ' ')" ||
  fail "the plan does not name Debian's driver packages"
grep -q "kept: [^;]*nvidia-installer-cleanup, which glx-diversions needs" <<<"$(sed -n 's/^#  *//p' "$A/tmp/gd/install.sh" | tr '\n' ' ')" ||
  fail "the plan does not say that glx-diversions keeps nvidia-installer-cleanup"
pass "the plan replaces Debian's ${debian_nvidia_packages[*]} in the driver step and names them"

"$gpudoctor" fix install-nvidia "${args[@]}" --root "$A" --apply --yes >"$work/run.out" 2>&1 ||
  fail "fix install-nvidia --apply failed: $(tail -20 "$work/run.out")"
for p in nvidia-open-580 nvidia-utils-580 cuda-toolkit-13-0; do is_installed "$A" "$p" || fail "$p is not installed"; done
for p in "${debian_nvidia_packages[@]}"; do ! is_installed "$A" "$p" || fail "Debian's $p is still installed"; done
[[ $(in_root "$A" dpkg-query -S /usr/bin/nvidia-smi 2>/dev/null) == "nvidia-utils-580: /usr/bin/nvidia-smi" ]] ||
  fail "/usr/bin/nvidia-smi is not NVIDIA's: $(in_root "$A" dpkg-query -S /usr/bin/nvidia-smi 2>&1)"
[[ -z $(in_root "$A" dpkg --audit) ]] || fail "dpkg --audit: $(in_root "$A" dpkg --audit)"
in_root "$A" apt-get check -q >/dev/null 2>&1 || fail "apt-get check fails after the install"
pass "apt accepts the result: NVIDIA's 580 (open modules) and CUDA 13.0 in, Debian's driver gone, nvidia-smi NVIDIA's"

# ==== 2. undo ===============================================================================================
"$gpudoctor" undo --root "$A" --yes >"$work/undo.out" 2>&1 || fail "undo failed: $(tail "$work/undo.out")"
for p in "${debian_nvidia_packages[@]}"; do is_installed "$A" "$p" || fail "undo left Debian's $p out: $(tail -5 "$work/undo.out")"; done
for p in nvidia-open-580 nvidia-utils-580; do ! is_installed "$A" "$p" || fail "undo left NVIDIA's $p"; done
smi=$(in_root "$A" readlink -f /usr/bin/nvidia-smi)
[[ $(in_root "$A" dpkg-query -S "$smi" 2>/dev/null) == "nvidia-smi: /usr/lib/nvidia/current/nvidia-smi" ]] ||
  fail "after undo /usr/bin/nvidia-smi is not Debian's alternative: it resolves to $smi"
[[ -f $A/lib/modules/$kernel/updates/dkms/nvidia-current.ko ]] || fail "after undo Debian's DKMS module is not built again"
pass "undo puts Debian's driver back from the script's cache (its DKMS module built again) and takes NVIDIA's out"
rm -rf "$A"
