#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor migrate: Move this machine to NVIDIA (CUDA)
#
# What: (install-nvidia) Adds NVIDIA's CUDA repository for this OS release with NVIDIA's cuda-keyring package
#       (a source a machine has already is reused; with --mirror, gpudoctor's source for the mirror replaces
#       NVIDIA's), installs the kernel headers, the driver branch the chosen CUDA release needs (open kernel
#       modules for Turing and later, NVIDIA's proprietary ones before), builds its module with DKMS for the
#       running kernel and the kernel that boots next and checks that modinfo finds it for both, installs the
#       CUDA toolkit, puts it on PATH for login shells, and blacklists nouveau. The distribution's own builds
#       of the stack (Ubuntu's nvidia-driver-550, Debian's nvidia-driver, told by their Maintainer and
#       Version, never by name) are purged by the driver's step just before it installs, so the two are never
#       mixed; what a package outside the stack needs stays. In a migration all of this comes before anything
#       of the old stack is removed. Under Secure Boot it enrolls DKMS's signing key as a Machine Owner Key
#       (enroll-mok). Needs a reboot.
#       (blacklist-nouveau) Writes /etc/modprobe.d/blacklist-nouveau.conf (blacklist nouveau, options nouveau
#       modeset=0) and rebuilds the initramfs, so nouveau does not take the GPU at the next boot and the
#       NVIDIA driver can. Needs a reboot.
#       (enroll-mok) Secure Boot loads only signed kernel modules. DKMS signs the modules it builds with its
#       key; this makes that key where DKMS looks for it (unless it is there), asks the firmware to enroll its
#       certificate with mokutil --import (you choose a one-time password), stops before the reboot to say
#       what to do at the MOK screen, and after the reboot checks that the driver's module loaded.
#       (purge-rocm) Purges ROCm, amdgpu-dkms and AMD's own builds of Mesa and libdrm as the installed
#       dependency graph has them: every package of the stack and every package of the stack that depends on
#       one (versioned forms such as rocm-hip-sdk6.1.0 included), never the kernel, Mesa's or another vendor's
#       packages. What a package outside the stack still needs (Ubuntu's libucx0 needs libamdhip64-5) stays,
#       and the notes say so; the distribution's Mesa comes in the same transaction as AMD's goes. Held
#       packages stop the script before it changes anything (unless --unhold), so do processes with /dev/kfd
#       open (unless --stop-gpu-users). Then what the packages leave: /opt/rocm* and DKMS trees,
#       update-alternatives entries, AMD's repositories, keys and pins, ld.so.conf.d entries, amdgpu modprobe
#       files, OpenCL ICD files, ROCm variables, folders and scripts in shell profiles, MIOpen's caches; at
#       the end, what only the purged packages needed (apt's autoremove, limited to what this purge orphaned).
#       Edited and removed files are backed up; the trees and caches are not.
#       (torch-reinstall) Replaces torch (and torchvision and torchaudio where installed) in the virtual and
#       conda environments gpudoctor found with the build for this machine's GPU, removing the other vendor's
#       companion wheels (pytorch-triton-rocm, nvidia-*-cu12) that only PyTorch needed, from PyTorch's wheel
#       index for the CUDA or ROCm release chosen from the knowledge tables (a CUDA build the driver runs and
#       that has the GPU's sm_XX, or the ROCm build of the installed release). When pip fails, the environment
#       is put back as it was. Only virtual environments and conda environments are changed, never the system
#       Python.
#       (reboot) Reboots so the kernel module that matches the installed user-space driver is loaded. Run the
#       script again after the reboot and it goes on after this step. In a migration whose new card is not in
#       the machine yet, it is a power-off to swap the cards instead.
# Why:  asked for by name; no check of this machine points to it.
# For:  host navi-box, Ubuntu 22.04.4 LTS (ubuntu 22.04, debian family), kernel 6.5.0-21-generic
#       gpu0 (0000:03:00.0): AMD Radeon RX 7900 XTX (gfx1100), driver amdgpu
# From: snapshot tests/machines/amd-rx7900xtx-hsa-override-942/snapshot, by gpudoctor (test).
#
# Notes:
#   - CUDA 13.0 (the release of PyTorch's cu130 wheels, the newest of those gpudoctor recommends that builds
#     for any GPU) with driver branch 580 (CUDA 13.0 needs 580.65.06 or newer, NVIDIA's long-term support
#     branch)
#   - no NVIDIA GPU is in the machine and --gpu did not name the incoming card: gpudoctor assumed a card of
#     Turing (sm_75) or later, which the chosen CUDA release and the open kernel modules drive; name the card
#     with --gpu ("RTX 3090", or its PCI id such as 10de:2204) to choose for it
#   - open kernel modules: NVIDIA's default since R560, for Turing (sm_75) and later
#   - PyTorch from the cu130 wheel index: the newest whose CUDA driver 580 runs and whose wheels build for
#     these GPUs
#   - the signing key URL
#     https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/3bf863cc.pub is not confirmed
#   - install before remove: the NVIDIA driver and its module (for the running kernel and the kernel that
#     boots next, checked with modinfo -k) are installed before anything of the ROCm stack is removed, so a
#     failed DKMS build leaves the old stack as it was; every install is simulated first, and one that would
#     remove a package stops before it changes anything
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. install-nvidia.keyring                 R--  Add NVIDIA's CUDA repository with NVIDIA's cuda-keyring
#                                                  package (its source, key and pin)
#   2. purge-rocm.holds                       R--  Release the holds on the packages the purge removes (or
#                                                  stop, saying which)
#   3. prepare.download                       R--  Download everything the next steps install (and keep the
#                                                  old stack's packages for undo)
#   4. install-nvidia.headers                 R--  Install the headers of the running kernel and of the kernel
#                                                  that boots next (the driver's DKMS module is built against
#                                                  them)
#   5. install-nvidia.driver                  R-B  Install the NVIDIA driver 580 (open kernel modules; the
#                                                  distribution's own driver packages, if any, purged first;
#                                                  on the RHEL family NVIDIA's installed driver switched as
#                                                  NVIDIA's guide does)
#   6. install-nvidia.module                  R--  Build the nvidia module with DKMS for the running kernel
#                                                  and the kernel that boots next, and check that modinfo
#                                                  finds it for both
#   7. install-nvidia.toolkit                 R--  Install the CUDA toolkit 13.0
#   8. install-nvidia.path                    R--  Put CUDA 13.0 on PATH for login shells
#   9. blacklist-nouveau.modprobe             R-B  Blacklist nouveau and rebuild the initramfs
#  10. purge-rocm.gpu-users                   R--  Stop what uses the AMD GPU (no services, processes with
#                                                  /dev/kfd open)
#  11. purge-rocm.packages                    RD-  Purge the ROCm, amdgpu and AMD graphics packages (the
#                                                  distribution's Mesa in place of AMD's)
#  12. purge-rocm.trees                       RD-  Remove the ROCm folders no package owns any more
#  13. purge-rocm.alternatives                R--  Remove update-alternatives entries that point nowhere
#  14. purge-rocm.profiles                    R--  Remove ROCm variables and folders from shell profiles
#  15. torch-reinstall.reinstall              ---  Reinstall torch from https://download.pytorch.org/whl/cu130
#  16. purge-rocm.autoremove                  RD-  Purge what only the removed packages needed (apt's
#                                                  autoremove, limited to what this purge orphaned)
#  17. reboot.swap-card                       R-B  Power off, take out AMD Radeon RX 7900 XTX and put in the
#                                                  NVIDIA card
#  18. migrate.check                          ---  Check the machine with gpudoctor (what must pass now)
# Afterwards these checks must pass: driver.not-bound driver.nouveau driver.nvidia-mismatch cuda.no-driver
#   cuda.driver-too-old stack.both-vendors stack.leftover-paths torch.cpu-build torch.vendor-mismatch
#   torch.arch-missing torch.cuda-too-new perm.nvidia-dev env.visible-devices-empty
#   env.visible-devices-foreign

# ---- a fixed PATH and an environment without the caller's hooks (docs/fixes.md, "The scripts") ----
IFS=$' \t\n'
# LD_*: the dynamic loader (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT); PYTHON*, PERL5LIB/PERLLIB/PERL5OPT,
# RUBYOPT/RUBYLIB, NODE_OPTIONS/NODE_PATH, BASH_ENV/ENV: what interpreters load or run first (apt's hooks,
# debconf, dnf, dkms and update-initramfs are such programs); APT_CONFIG, DPKG_*, DEBCONF_*: another
# configuration for the package manager (its hooks run as root); GCONV_PATH, LOCPATH, NLSPATH, GLIBC_TUNABLES:
# modules and data glibc loads; OPENSSL_CONF/OPENSSL_ENGINES/OPENSSL_MODULES: engines openssl loads;
# CURL_HOME, WGETRC, SSL_CERT_FILE, SSL_CERT_DIR, CURL_CA_BUNDLE, HOSTALIASES, LOCALDOMAIN, RES_OPTIONS: whom a
# download trusts and reaches; SYSTEMD_*, PAGER, MANPAGER, LESSOPEN, LESSCLOSE: programs tools start; TMPDIR:
# root's temporary files go to /tmp, never a folder the caller chose; CDPATH, GLOBIGNORE, PS4, BASH_XTRACEFD:
# what this script's own cd, globs and trace do.
unset -v "${!LD_@}" "${!PYTHON@}" "${!DPKG_@}" "${!DEBCONF_@}" "${!SYSTEMD_@}" BASH_ENV ENV APT_CONFIG   PERL5LIB PERLLIB PERL5OPT RUBYOPT RUBYLIB NODE_OPTIONS NODE_PATH GCONV_PATH LOCPATH NLSPATH GLIBC_TUNABLES   OPENSSL_CONF OPENSSL_ENGINES OPENSSL_MODULES CURL_HOME WGETRC SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE   HOSTALIASES LOCALDOMAIN RES_OPTIONS PAGER MANPAGER LESSOPEN LESSCLOSE TMPDIR CDPATH GLOBIGNORE PS4 BASH_XTRACEFD
# Functions the caller exported (bash imported them before this line) would stand in for commands.
while read -r _ _ gd_function; do unset -f -- "$gd_function"; done <<<"$(declare -F)"
unset -v gd_function
# As root, a folder of PATH counts only when it and every folder above it (as written and with links
# resolved) are root's and writable by neither group nor others: one realpath and one stat for them all.
gd_folders=(/usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin)
gd_path=
if ((EUID != 0)); then
  gd_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
else
  declare -A gd_root_only=()
  gd_parts=()
  gd_physical=()
  for gd_folder in "${gd_folders[@]}"; do
    gd_physical+=("$(/usr/bin/realpath -e -- "$gd_folder" 2>/dev/null || echo /nonexistent/"$gd_folder")")
  done
  for gd_folder in "${gd_folders[@]}" "${gd_physical[@]}"; do
    while [[ $gd_folder != / ]]; do
      gd_parts+=("$gd_folder")
      gd_folder=${gd_folder%/*}
      gd_folder=${gd_folder:-/}
    done
  done
  # A link is judged by the folder it stands in (its owner alone can replace it) and by where it leads.
  while IFS=: read -r gd_uid gd_mode gd_type gd_folder; do
    if [[ $gd_type == 'symbolic link' ]] || [[ $gd_uid == 0 && $(((8#$gd_mode & 8#022) == 0)) == 1 ]]; then
      gd_root_only[$gd_folder]=1
    fi
  done <<<"$(/usr/bin/stat -c '%u:%a:%F:%n' -- / "${gd_parts[@]}" 2>/dev/null)"
  for gd_i in "${!gd_folders[@]}"; do
    gd_folder=${gd_folders[gd_i]}
    gd_ok=1
    for gd_part in "$gd_folder" "${gd_physical[gd_i]}"; do
      while :; do
        [[ -n ${gd_root_only[$gd_part]:-} ]] || gd_ok=0
        [[ $gd_part == / ]] && break
        gd_part=${gd_part%/*}
        gd_part=${gd_part:-/}
      done
    done
    if ((gd_ok)); then
      gd_path=${gd_path:+$gd_path:}$gd_folder
    elif [[ -e $gd_folder ]]; then
      printf 'gpudoctor script: %s is left out of PATH: it or a folder above it is not only root'"'"'s to change\n' "$gd_folder" >&2
    fi
  done
  unset -v gd_root_only gd_parts gd_physical gd_uid gd_mode gd_type gd_i gd_ok gd_part
fi
export PATH=$gd_path
unset -v gd_folders gd_folder gd_path

set -euo pipefail

GD_SCRIPT_ID='migrate-to-nvidia-a527f275'
GD_FAMILY=debian
GD_FOR_OS_ID=ubuntu
GD_FOR_OS_VERSION=22.04
GD_FOR_HOST=navi-box
GD_KERNEL=6.5.0-21-generic
GD_STEP_IDS=(
  install-nvidia.keyring
  purge-rocm.holds
  prepare.download
  install-nvidia.headers
  install-nvidia.driver
  install-nvidia.module
  install-nvidia.toolkit
  install-nvidia.path
  blacklist-nouveau.modprobe
  purge-rocm.gpu-users
  purge-rocm.packages
  purge-rocm.trees
  purge-rocm.alternatives
  purge-rocm.profiles
  torch-reinstall.reinstall
  purge-rocm.autoremove
  reboot.swap-card
  migrate.check
)
GD_STEP_TITLES=(
  'Add NVIDIA'\''s CUDA repository with NVIDIA'\''s cuda-keyring package (its source, key and pin)'
  'Release the holds on the packages the purge removes (or stop, saying which)'
  'Download everything the next steps install (and keep the old stack'\''s packages for undo)'
  'Install the headers of the running kernel and of the kernel that boots next (the driver'\''s DKMS module is built against them)'
  'Install the NVIDIA driver 580 (open kernel modules; the distribution'\''s own driver packages, if any, purged first; on the RHEL family NVIDIA'\''s installed driver switched as NVIDIA'\''s guide does)'
  'Build the nvidia module with DKMS for the running kernel and the kernel that boots next, and check that modinfo finds it for both'
  'Install the CUDA toolkit 13.0'
  'Put CUDA 13.0 on PATH for login shells'
  'Blacklist nouveau and rebuild the initramfs'
  'Stop what uses the AMD GPU (no services, processes with /dev/kfd open)'
  'Purge the ROCm, amdgpu and AMD graphics packages (the distribution'\''s Mesa in place of AMD'\''s)'
  'Remove the ROCm folders no package owns any more'
  'Remove update-alternatives entries that point nowhere'
  'Remove ROCm variables and folders from shell profiles'
  'Reinstall torch from https://download.pytorch.org/whl/cu130'
  'Purge what only the removed packages needed (apt'\''s autoremove, limited to what this purge orphaned)'
  'Power off, take out AMD Radeon RX 7900 XTX and put in the NVIDIA card'
  'Check the machine with gpudoctor (what must pass now)'
)
GD_STEP_FLAGS=(
  'root prepare'
  'root prepare'
  'root prepare'
  root
  'root reboot'
  root
  root
  root
  'root reboot'
  root
  'root destructive'
  'root destructive'
  root
  root
  ''
  'root destructive'
  'root reboot'
  ''
)
# The files gd_clean_profiles edits: system/config_files.hpp's table.
GD_PROFILE_HOME_FILES=(
  /.bashrc
  /.profile
  /.bash_profile
  /.bash_login
  /.zshenv
  /.zprofile
  /.zshrc
  /.zlogin
  /.nccl.conf
)
GD_PROFILE_SYSTEM_FILES=(
  /etc/profile
  /etc/bash.bashrc
  '/etc/profile.d/*.sh'
  /etc/zsh/zshenv
  /etc/zsh/zprofile
  /etc/zsh/zshrc
  /etc/zsh/zlogin
  /etc/zshenv
  /etc/zprofile
  /etc/zshrc
  /etc/zlogin
  /etc/environment
  /etc/nccl.conf
)

# @gpudoctor-golden: fixes/lib.bash is pasted here

# ---- the steps ------------------------------------------------------------------------

# 1. Add NVIDIA's CUDA repository with NVIDIA's cuda-keyring package (its source, key and pin) [root, prepare] (fixes/install-nvidia.yaml:19)
gd_step_1() {
  gd_cuda_keyring https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/
}
gd_verify_1() {
  gd_verify_apt_source https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/ /
}

# 2. Release the holds on the packages the purge removes (or stop, saying which) [root, prepare] (fixes/purge-rocm.yaml:18)
gd_step_2() {
  gd_release_holds '' hip-runtime-amd rocm-core rocminfo
}
gd_verify_2() {
  gd_verify_not_held hip-runtime-amd rocm-core rocminfo
}

# 3. Download everything the next steps install (and keep the old stack's packages for undo) [root, prepare] (fixes/migrate.yaml:21)
gd_step_3() {
  gd_prepare_downloads
}
gd_verify_3() {
  gd_verify_downloads
}

# 4. Install the headers of the running kernel and of the kernel that boots next (the driver's DKMS module is built against them) [root] (fixes/install-nvidia.yaml:57)
gd_step_4() {
  gd_install_kernel_packages linux-headers-
}
gd_verify_4() {
  gd_verify_kernel_packages linux-headers-
}

# 5. Install the NVIDIA driver 580 (open kernel modules; the distribution's own driver packages, if any, purged first; on the RHEL family NVIDIA's installed driver switched as NVIDIA's guide does) [root, reboot] (fixes/install-nvidia.yaml:71)
gd_step_5() {
  gd_install_packages nvidia-open-580 --
}
gd_verify_5() {
  gd_verify_installed nvidia-open-580
  gd_verify_builds_gone
}

# 6. Build the nvidia module with DKMS for the running kernel and the kernel that boots next, and check that modinfo finds it for both [root] (fixes/install-nvidia.yaml:81)
gd_step_6() {
  gd_build_module nvidia yes
}
gd_verify_6() {
  gd_verify_module nvidia yes
}

# 7. Install the CUDA toolkit 13.0 [root] (fixes/install-nvidia.yaml:86)
gd_step_7() {
  gd_install_packages cuda-toolkit-13-0
}
gd_verify_7() {
  gd_verify_installed cuda-toolkit-13-0
}

# 8. Put CUDA 13.0 on PATH for login shells [root] (fixes/install-nvidia.yaml:91)
gd_step_8() {
gd_write_file /etc/profile.d/cuda-path.sh 0644 <<'PROFILE'
# Written by gpudoctor (install-nvidia): the CUDA 13.0 toolkit on PATH.
export PATH=/usr/local/cuda-13.0/bin${PATH:+:${PATH}}
PROFILE
}
gd_verify_8() {
  grep -qF /usr/local/cuda-13.0 /etc/profile.d/cuda-path.sh
}

# 9. Blacklist nouveau and rebuild the initramfs [root, reboot] (fixes/blacklist-nouveau.yaml:8)
gd_step_9() {
local before=$GD_CHANGES
gd_write_file /etc/modprobe.d/blacklist-nouveau.conf 0644 <<'CONF'
# Written by gpudoctor (fix blacklist-nouveau): the NVIDIA driver cannot load while nouveau holds the GPU.
blacklist nouveau
options nouveau modeset=0
CONF
if ((GD_CHANGES > before)); then gd_owe initramfs; fi
gd_settle
}
gd_verify_9() {
  grep -qx 'blacklist nouveau' /etc/modprobe.d/blacklist-nouveau.conf
}

# 10. Stop what uses the AMD GPU (no services, processes with /dev/kfd open) [root] (fixes/purge-rocm.yaml:32)
gd_step_10() {
  gd_stop_gpu_users /dev/kfd ''
}
gd_verify_10() {
  gd_verify_no_gpu_users /dev/kfd
}

# 11. Purge the ROCm, amdgpu and AMD graphics packages (the distribution's Mesa in place of AMD's) [root, destructive] (fixes/purge-rocm.yaml:38)
gd_step_11() {
  gd_purge_packages hip-runtime-amd rocm-core rocminfo --
}
gd_verify_11() {
  gd_verify_not_installed hip-runtime-amd rocm-core rocminfo
}

# 12. Remove the ROCm folders no package owns any more [root, destructive] (fixes/purge-rocm.yaml:59)
gd_step_12() {
  gd_remove_trees /opt/rocm-6.0.2 /opt/rocm
}
gd_verify_12() {
  gd_verify_absent /opt/rocm-6.0.2 /opt/rocm
}

# 13. Remove update-alternatives entries that point nowhere [root] (fixes/purge-rocm.yaml:66)
gd_step_13() {
  gd_remove_dangling_alternatives rocm
}
gd_verify_13() {
  gd_verify_no_dangling_alternatives rocm
}

# 14. Remove ROCm variables and folders from shell profiles [root] (fixes/purge-rocm.yaml:108)
gd_step_14() {
  gd_clean_profiles 'ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|HCC_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL|MIOPEN_[A-Z_]*|AMD_SERIALIZE_KERNEL|AMD_SERIALIZE_COPY|AMD_LOG_LEVEL|CUDA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|GPU_DEVICE_ORDINAL' '/opt/rocm(-[0-9][0-9.]*)?|\$\{?(ROCM_PATH|ROCM_HOME|HIP_PATH)\}?' --system /home/lena
}
gd_verify_14() {
  gd_verify_profiles 'ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|HCC_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL|MIOPEN_[A-Z_]*|AMD_SERIALIZE_KERNEL|AMD_SERIALIZE_COPY|AMD_LOG_LEVEL|CUDA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|GPU_DEVICE_ORDINAL' '/opt/rocm(-[0-9][0-9.]*)?|\$\{?(ROCM_PATH|ROCM_HOME|HIP_PATH)\}?' --system /home/lena
}

# 15. Reinstall torch from https://download.pytorch.org/whl/cu130 (fixes/torch-reinstall.yaml:13)
gd_step_15() {
  gd_torch_reinstall lena https://download.pytorch.org/whl/cu130 cu130 torch /home/lena/venvs/sd/bin/python3 -- pytorch-triton-rocm
}
gd_verify_15() {
  gd_verify_torch cu130 /home/lena/venvs/sd/bin/python3
}

# 16. Purge what only the removed packages needed (apt's autoremove, limited to what this purge orphaned) [root, destructive] (fixes/purge-rocm.yaml:119)
gd_step_16() {
  gd_autoremove_orphans libdrm2 libdrm-common libdrm-dev libdrm-tests libdrm-amdgpu1 'libdrm-[!a]*' libdrm 'mesa-[!a]*' 'mesa-libGL*' 'mesa-libEGL*' 'mesa-libgbm*' 'mesa-dri-drivers*' mesa-filesystem 'mesa-vulkan-drivers*' 'libgl1-mesa*' 'libglx-mesa*' 'libegl-mesa*' libgbm1 libgbm-dev 'libosmesa*' 'libglapi-mesa*' 'libvulkan*' xserver-xorg 'xserver-xorg-core*' 'xserver-xorg-video-[!n]*' 'xserver-xorg-video-nouveau*' 'xserver-xorg-input-*' xserver-xorg-legacy 'firmware-*' 'linux-firmware*' amdgpu-firmware 'linux-image-*' 'linux-headers-*' 'linux-modules-extra-*' 'kernel-*' dkms
}
gd_verify_16() {
  gd_verify_no_orphans libdrm2 libdrm-common libdrm-dev libdrm-tests libdrm-amdgpu1 'libdrm-[!a]*' libdrm 'mesa-[!a]*' 'mesa-libGL*' 'mesa-libEGL*' 'mesa-libgbm*' 'mesa-dri-drivers*' mesa-filesystem 'mesa-vulkan-drivers*' 'libgl1-mesa*' 'libglx-mesa*' 'libegl-mesa*' libgbm1 libgbm-dev 'libosmesa*' 'libglapi-mesa*' 'libvulkan*' xserver-xorg 'xserver-xorg-core*' 'xserver-xorg-video-[!n]*' 'xserver-xorg-video-nouveau*' 'xserver-xorg-input-*' xserver-xorg-legacy 'firmware-*' 'linux-firmware*' amdgpu-firmware 'linux-image-*' 'linux-headers-*' 'linux-modules-extra-*' 'kernel-*' dkms
}

# 17. Power off, take out AMD Radeon RX 7900 XTX and put in the NVIDIA card [root, reboot] (fixes/reboot.yaml:9)
gd_step_17() {
  gd_power_off_for_swap 'AMD Radeon RX 7900 XTX' 'the NVIDIA card' ''
}
gd_verify_17() {
  true # the next run of the script sees the new boot
}

# 18. Check the machine with gpudoctor (what must pass now) (fixes/migrate.yaml:27)
gd_step_18() {
  gd_post_check /usr/bin/gpudoctor driver.not-bound,driver.nouveau,driver.nvidia-mismatch,cuda.no-driver,cuda.driver-too-old,stack.both-vendors,stack.leftover-paths,torch.cpu-build,torch.vendor-mismatch,torch.arch-missing,torch.cuda-too-new,perm.nvidia-dev,env.visible-devices-empty,env.visible-devices-foreign
}
gd_verify_18() {
  true # gpudoctor check reports by itself
}

gd_main "$@"
