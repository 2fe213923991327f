#!/usr/bin/env bash
# An Ubuntu-shaped root: Ubuntu's archive cannot be reached from here, so the root is the Debian 12 one with
# Ubuntu 24.04's os-release and Ubuntu's own NVIDIA driver 550 installed by apt from a dummy graph of Ubuntu's
# names, versions and Maintainers (graphs/ubuntu-2404-nvidia.txt: nvidia-driver-550 and Canonical's signed
# linux-modules-nvidia-550-*), served as archive.ubuntu.com. The plan is made --from a bundle of the root, as
# a support engineer would, and its script runs in the root.
#   1. The plan made --from the bundle is the live one; its driver step replaces Ubuntu's packages (told by
#      Maintainer and Version: NVIDIA's repository uses the same names) and names them.
#   2. The script passes its OS guard (made for ubuntu 24.04, run on it) and installs NVIDIA's 580 with CUDA
#      13.0 from NVIDIA's ubuntu2404 folder: Ubuntu's packages gone, /usr/bin/nvidia-smi NVIDIA's, dpkg and
#      apt consistent.
#   3. undo puts Ubuntu's driver and its signed modules back.
source "$(dirname "$0")/lib.bash"
root_setup

# Ubuntu 24.04's os-release over the Debian userland (apt and dpkg are what the scripts use), Ubuntu's
# archive beside the dummy Debian suite that holds the kernels.
machine_ubuntu_nvidia() {
  local root=$1
  rm -f "$root/etc/os-release"
  cat >"$root/etc/os-release" <<'EOF'
PRETTY_NAME="Ubuntu 24.04.3 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="24.04.3 LTS (Noble Numbat)"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
UBUNTU_CODENAME=noble
EOF
  echo "deb http://archive.ubuntu.com/ubuntu noble main restricted" >"$root/etc/apt/sources.list.d/ubuntu.list"
  in_root "$root" apt-get update -q
  in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "linux-image-$kernel" "linux-headers-$kernel"
  in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    nvidia-driver-550 linux-modules-nvidia-550-generic
}

ubuntu_nvidia=(libnvidia-common-550 libnvidia-compute-550 libnvidia-gl-550 "linux-modules-nvidia-550-$kernel"
  linux-modules-nvidia-550-generic "linux-signatures-nvidia-$kernel" nvidia-compute-utils-550 nvidia-driver-550
  nvidia-firmware-550-550.163.01 nvidia-kernel-common-550 nvidia-utils-550 xserver-xorg-video-nvidia-550)
args=(--gpu "RTX 3090" --mirror file:///srv/mirror)

# ==== 1. the plan, made --from a bundle of the root =========================================================
R=$roots/ubuntu
new_machine ubuntu_nvidia "$R"
add_local_mirror "$R"
[[ $(installed_version "$R" nvidia-driver-550) == "ii  550.163.01-0ubuntu0.24.04.1" ]] ||
  fail "the root does not hold Ubuntu's driver"
same_plan_from_snapshot "$R" fix install-nvidia "${args[@]}"
cp "$work/offline.sh" "$R/tmp/gd/install.sh" # the script made --from the bundle is the one that runs
shellcheck "$R/tmp/gd/install.sh" || fail "the install script does not pass shellcheck"
grep -q "^GD_FOR_OS_ID='\?ubuntu'\?$" "$R/tmp/gd/install.sh" || fail "the script is not made for Ubuntu"
replaced=$(sed -n 's/^  gd_install_packages nvidia-open-580 -- //p' "$R/tmp/gd/install.sh" | tr ' ' '\n' | sed 's/=.*//' | sort | tr '\n' ' ')
expected=$(printf '%s\n' "${ubuntu_nvidia[@]}" | sort | tr '\n' ' ')
[[ $replaced == "$expected" ]] ||
  fail "the driver step does not replace Ubuntu's driver: $(grep -n 'gd_install_packages nvidia-open' "$R/tmp/gd/install.sh")"
grep -q "Ubuntu 24.04.3 LTS's own builds installed here" <<<"$(sed -n 's/^#  *//p' "$R/tmp/gd/install.sh" | tr '\n' ' ')" ||
  fail "the plan does not name Ubuntu's own builds"
pass "the plan made --from the bundle is the live one; it replaces Ubuntu's ${#ubuntu_nvidia[@]} packages in the driver step, naming them"

# ==== 2. the script in the root ==============================================================================
in_root "$R" bash /tmp/gd/install.sh >"$work/run.out" 2>&1 || fail "the install script failed: $(tail -20 "$work/run.out")"
for p in nvidia-open-580 nvidia-utils-580 cuda-toolkit-13-0; do is_installed "$R" "$p" || fail "$p is not installed"; done
for p in "${ubuntu_nvidia[@]}"; do ! is_installed "$R" "$p" || fail "Ubuntu's $p is still installed"; done
[[ $(in_root "$R" dpkg-query -S /usr/bin/nvidia-smi 2>/dev/null) == "nvidia-utils-580: /usr/bin/nvidia-smi" ]] ||
  fail "/usr/bin/nvidia-smi is not NVIDIA's: $(in_root "$R" dpkg-query -S /usr/bin/nvidia-smi 2>&1)"
grep -q 'compute/cuda/repos/ubuntu2404/x86_64' "$R/etc/apt/sources.list.d/cuda-gpudoctor.list" ||
  fail "NVIDIA's source is not its ubuntu2404 folder: $(cat "$R"/etc/apt/sources.list.d/cuda*.list)"
[[ -z $(in_root "$R" dpkg --audit) ]] || fail "dpkg --audit: $(in_root "$R" dpkg --audit)"
in_root "$R" apt-get check -q >/dev/null 2>&1 || fail "apt-get check fails after the install"
pass "the script passes its OS guard in the Ubuntu root; NVIDIA's 580 and CUDA 13.0 in, Ubuntu's driver gone, apt consistent"

# ==== 3. undo ===============================================================================================
# The script ran by hand: its runs are in root's journal under the script's id.
script_id=$(sed -n "s/^GD_SCRIPT_ID='\(.*\)'/\1/p" "$R/tmp/gd/install.sh")
"$gpudoctor" undo --root "$R" --script "$script_id" --yes >"$work/undo.out" 2>&1 ||
  fail "undo --script $script_id failed: $(tail "$work/undo.out")"
for p in "${ubuntu_nvidia[@]}"; do is_installed "$R" "$p" || fail "undo left Ubuntu's $p out: $(tail -5 "$work/undo.out")"; done
for p in nvidia-open-580 nvidia-utils-580; do ! is_installed "$R" "$p" || fail "undo left NVIDIA's $p"; done
[[ $(in_root "$R" dpkg-query -S /usr/bin/nvidia-smi 2>/dev/null) == "nvidia-utils-550: /usr/bin/nvidia-smi" ]] ||
  fail "after undo /usr/bin/nvidia-smi is not Ubuntu's"
pass "undo puts Ubuntu's driver and its signed modules back and takes NVIDIA's out"
