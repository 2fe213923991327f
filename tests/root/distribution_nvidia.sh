#!/usr/bin/env bash
# `gpudoctor fix install-nvidia` on a Debian root running the distribution's own NVIDIA driver (Debian 13's
# nvidia-driver 550 of graphs/debian-13-nvidia.txt, Maintainer Debian NVIDIA Maintainers), for an RTX 3090.
# Debian's nvidia-smi and NVIDIA's nvidia-utils-580 both ship /usr/bin/nvidia-smi: before the plan knew the
# distribution's builds, dpkg refused to unpack NVIDIA's driver over Debian's and the install failed.
#   1. The plan replaces Debian's driver packages in the driver step and names them; --apply: NVIDIA's 580
#      with open modules and CUDA 13.0 in, Debian's gone, dpkg and apt consistent.
#   2. undo puts Debian's driver back from the script's cache and takes NVIDIA's out.
source "$(dirname "$0")/lib.bash"
root_setup

machine_distro_nvidia() { distribution_machine "$1" debian-nvidia nvidia-driver; }

debian_nvidia=(libcuda1 libnvidia-ml1 libnvidia-ptxjitcompiler1 nvidia-driver nvidia-kernel-dkms nvidia-smi)
args=(--gpu "RTX 3090" --mirror file:///srv/mirror)

# ==== 1. the plan and its run ===============================================================================
A=$roots/rootA
new_machine distro_nvidia "$A"
add_local_mirror "$A"
[[ $(installed_version "$A" nvidia-driver) == "ii  550.163.01-2" ]] || fail "the root does not hold Debian's driver"
"$gpudoctor" fix install-nvidia "${args[@]}" --root "$A" --emit "$A/tmp/gd/install.sh" 2>"$work/emit.err" ||
  fail "fix install-nvidia --root: $(cat "$work/emit.err")"
shellcheck "$A/tmp/gd/install.sh" || fail "the install script does not pass shellcheck"
replaced=$(sed -n 's/^  gd_install_packages nvidia-open-580 -- //p' "$A/tmp/gd/install.sh" | tr ' ' '\n' | sed 's/=.*//' | tr '\n' ' ')
[[ $replaced == "${debian_nvidia[*]} " ]] ||
  fail "the driver step does not replace Debian's driver: $(grep -n 'gd_install_packages nvidia-open' "$A/tmp/gd/install.sh")"
grep -q "own builds installed here ([^)]*nvidia-driver[^)]*)" <<<"$(sed -n 's/^#  *//p' "$A/tmp/gd/install.sh" | tr '\n' ' ')" ||
  fail "the plan does not name Debian's driver packages"
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
[[ $(in_root "$A" dpkg-query -S /usr/bin/nvidia-smi 2>/dev/null) == "nvidia-smi: /usr/bin/nvidia-smi" ]] ||
  fail "after undo /usr/bin/nvidia-smi is not Debian's"
pass "undo puts Debian's driver back from the script's cache and takes NVIDIA's out"
