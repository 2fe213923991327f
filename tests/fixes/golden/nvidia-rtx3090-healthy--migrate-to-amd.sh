#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor migrate: Move this machine to AMD (ROCm)
#
# What: (install-rocm) Adds AMD's amdgpu and ROCm repositories for this OS release (or the --mirror, whose
#       sources replace AMD's) with their signing key (/etc/apt/keyrings/rocm.gpg) and pin, as AMD's guide
#       does (an existing source of the same repository is reused), installs the kernel headers, amdgpu-dkms
#       (its module built for the running kernel and the kernel that boots next, checked with modinfo) and the
#       rocm meta package, registers /opt/rocm's libraries with the dynamic linker and adds the user to render
#       and video (AMD's native install guide). Under Secure Boot it leaves out amdgpu-dkms and the headers
#       (ROCm's --no-dkms path: the kernel's own amdgpu is signed). The distribution's own ROCm packages
#       (Debian's and Ubuntu's rocminfo, hipcc, rocm-smi, libamdhip64-5, told by their Maintainer and Version)
#       are purged by the rocm step just before it installs: their versions outrank AMD's exact dependencies
#       and their files collide; what a package outside ROCm needs stays (libucx0's HIP). Needs a reboot.
#       (groups-render-video) Adds the user to the render and video groups, which own /dev/kfd and
#       /dev/dri/renderD* (AMD's ROCm install guide). The user must log out and in again (or run `newgrp
#       render`) for it to take effect.
#       (purge-nvidia) Purges CUDA, the NVIDIA driver, cuDNN, NCCL, the Fabric Manager, NVIDIA's container
#       packages and cuda-keyring as the installed dependency graph has them: every package of the stack and
#       every package of the stack that depends on one, never the kernel, Mesa's or another vendor's packages;
#       what a package outside the stack still needs stays, and the notes say so. Held packages stop the
#       script before it changes anything (unless --unhold); nvidia-persistenced and the Fabric Manager are
#       stopped, processes with /dev/nvidia* open stop the script (unless --stop-gpu-users). Then what the
#       packages leave: /usr/local/cuda* and DKMS trees, update-alternatives entries, NVIDIA's repositories
#       and keys, ld.so.conf.d entries, nvidia and nouveau modprobe files, OpenCL and Vulkan ICD files, CUDA
#       variables and folders in shell profiles, NVIDIA's runtime in Docker's and containerd's configuration
#       and its CDI specs; at the end, what only the purged packages needed (apt's autoremove, limited to what
#       this purge orphaned). Edited and removed files are backed up; the trees are not.
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
# For:  host gpu-vm01, Ubuntu 22.04.4 LTS (ubuntu 22.04, debian family), kernel 5.15.0-105-generic
#       gpu0 (0000:00:10.0): NVIDIA GeForce RTX 3090 (sm_86), driver nvidia
# From: snapshot tests/machines/nvidia-rtx3090-healthy/snapshot, by gpudoctor (test).
#
# Notes:
#   - ROCm 7.2 (amdgpu 30.30, PyTorch rocm7.2): the newest release gpudoctor installs that supports this OS
#   - no AMD GPU with a known gfx target: the release is not checked against a GPU
#   - no virtual or conda environment is in use: PyTorch is not reinstalled (gpudoctor never pip-installs into
#     the system Python)
#   - install before remove: the amdgpu driver and its module (for the running kernel and the kernel that
#     boots next, checked with modinfo -k) are installed before anything of the NVIDIA stack is removed, so a
#     failed DKMS build leaves the old stack as it was; every install is simulated first, and one that would
#     remove a package stops before it changes anything
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. install-rocm.repositories              R--  Add AMD's amdgpu 30.30 and ROCm 7.2 repositories, their
#                                                  signing key and pin
#   2. install-rocm.graphics-repository       R--  Add AMD's graphics repository (ROCm 7 packages depend on
#                                                  it)
#   3. purge-nvidia.holds                     R--  Release the holds on the packages the purge removes (or
#                                                  stop, saying which)
#   4. prepare.download                       R--  Download everything the next steps install (and keep the
#                                                  old stack's packages for undo)
#   5. install-rocm.headers                   R--  Install the headers of the running kernel and of the kernel
#                                                  that boots next (amdgpu-dkms is built against them)
#   6. install-rocm.modules-extra             R--  Install the extra modules of the running kernel and of the
#                                                  kernel that boots next (Ubuntu)
#   7. install-rocm.driver                    R-B  Install the amdgpu kernel driver (amdgpu-dkms)
#   8. install-rocm.module                    R--  Check that the amdgpu module is there for the running
#                                                  kernel and the kernel that boots next (built by DKMS, or
#                                                  the kernel's own under Secure Boot)
#   9. install-rocm.rocm                      R--  Install ROCm 7.2 (the distribution's own ROCm packages, if
#                                                  any, purged first)
#  10. install-rocm.ld-conf                   R--  Register ROCm's libraries with the dynamic linker
#  11. groups-render-video.groups             R--  Add the user to the render and video groups
#  12. purge-nvidia.gpu-users                 R--  Stop what uses the NVIDIA GPU (nvidia-persistenced, the
#                                                  Fabric Manager, processes with /dev/nvidia* open)
#  13. purge-nvidia.packages                  RD-  Purge the CUDA, driver and NVIDIA container packages
#  14. purge-nvidia.trees                     RD-  Remove the CUDA folders no package owns any more
#  15. purge-nvidia.alternatives              R--  Remove update-alternatives entries that point nowhere
#  16. purge-nvidia.profiles                  R--  Remove CUDA variables and folders from shell profiles
#  17. purge-nvidia.autoremove                RD-  Purge what only the removed packages needed (apt's
#                                                  autoremove, limited to what this purge orphaned)
#  18. reboot.swap-card                       R-B  Power off, take out NVIDIA GeForce RTX 3090 and put in the
#                                                  AMD card
#  19. migrate.check                          ---  Check the machine with gpudoctor (what must pass now)
# Afterwards these checks must pass: driver.not-bound driver.kfd-missing stack.both-vendors
#   stack.leftover-paths perm.kfd perm.render-node torch.cpu-build torch.vendor-mismatch torch.arch-missing
#   env.hsa-override-invalid env.hsa-override-mismatch env.visible-devices-empty env.visible-devices-foreign

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

GD_SCRIPT_ID='migrate-to-amd-bbca7039'
GD_FAMILY=debian
GD_FOR_OS_ID=ubuntu
GD_FOR_OS_VERSION=22.04
GD_FOR_HOST=gpu-vm01
GD_KERNEL=5.15.0-105-generic
GD_STEP_IDS=(
  install-rocm.repositories
  install-rocm.graphics-repository
  purge-nvidia.holds
  prepare.download
  install-rocm.headers
  install-rocm.modules-extra
  install-rocm.driver
  install-rocm.module
  install-rocm.rocm
  install-rocm.ld-conf
  groups-render-video.groups
  purge-nvidia.gpu-users
  purge-nvidia.packages
  purge-nvidia.trees
  purge-nvidia.alternatives
  purge-nvidia.profiles
  purge-nvidia.autoremove
  reboot.swap-card
  migrate.check
)
GD_STEP_TITLES=(
  'Add AMD'\''s amdgpu 30.30 and ROCm 7.2 repositories, their signing key and pin'
  'Add AMD'\''s graphics repository (ROCm 7 packages depend on it)'
  'Release the holds on the packages the purge removes (or stop, saying which)'
  'Download everything the next steps install (and keep the old stack'\''s packages for undo)'
  'Install the headers of the running kernel and of the kernel that boots next (amdgpu-dkms is built against them)'
  'Install the extra modules of the running kernel and of the kernel that boots next (Ubuntu)'
  'Install the amdgpu kernel driver (amdgpu-dkms)'
  'Check that the amdgpu module is there for the running kernel and the kernel that boots next (built by DKMS, or the kernel'\''s own under Secure Boot)'
  'Install ROCm 7.2 (the distribution'\''s own ROCm packages, if any, purged first)'
  'Register ROCm'\''s libraries with the dynamic linker'
  'Add the user to the render and video groups'
  'Stop what uses the NVIDIA GPU (nvidia-persistenced, the Fabric Manager, processes with /dev/nvidia* open)'
  'Purge the CUDA, driver and NVIDIA container packages'
  'Remove the CUDA folders no package owns any more'
  'Remove update-alternatives entries that point nowhere'
  'Remove CUDA variables and folders from shell profiles'
  'Purge what only the removed packages needed (apt'\''s autoremove, limited to what this purge orphaned)'
  'Power off, take out NVIDIA GeForce RTX 3090 and put in the AMD card'
  'Check the machine with gpudoctor (what must pass now)'
)
GD_STEP_FLAGS=(
  'root prepare'
  'root prepare'
  'root prepare'
  'root prepare'
  root
  root
  'root reboot'
  root
  root
  root
  root
  root
  'root destructive'
  'root destructive'
  root
  root
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

# 1. Add AMD's amdgpu 30.30 and ROCm 7.2 repositories, their signing key and pin [root, prepare] (fixes/install-rocm.yaml:30)
gd_step_1() {
gd_install_key https://repo.radeon.com/rocm/rocm.gpg.key /etc/apt/keyrings/rocm.gpg dearmor
gd_add_apt_source /etc/apt/sources.list.d/amdgpu.list https://repo.radeon.com/amdgpu/30.30/ubuntu jammy main \
  'arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg' 'gpudoctor-vendor: amd (written by gpudoctor for ROCm 7.2)'
gd_add_apt_source /etc/apt/sources.list.d/rocm.list https://repo.radeon.com/rocm/apt/7.2 jammy main \
  'arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg' 'gpudoctor-vendor: amd (written by gpudoctor for ROCm 7.2)'
gd_disable_sources
gd_write_file /etc/apt/preferences.d/rocm-pin-600 0644 <<'PIN'
Package: *
Pin: release o=repo.radeon.com
Pin-Priority: 600
PIN
}
gd_verify_1() {
  test -s /etc/apt/keyrings/rocm.gpg -a -s /etc/apt/preferences.d/rocm-pin-600
  gd_verify_apt_source https://repo.radeon.com/amdgpu/30.30/ubuntu jammy
  gd_verify_apt_source https://repo.radeon.com/rocm/apt/7.2 jammy
}

# 2. Add AMD's graphics repository (ROCm 7 packages depend on it) [root, prepare] (fixes/install-rocm.yaml:72)
gd_step_2() {
  gd_add_apt_source /etc/apt/sources.list.d/amdgpu-graphics.list https://repo.radeon.com/graphics/7.2/ubuntu jammy main \
    'arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg' 'gpudoctor-vendor: amd (written by gpudoctor for ROCm 7.2)'
}
gd_verify_2() {
  gd_verify_apt_source https://repo.radeon.com/graphics/7.2/ubuntu jammy
}

# 3. Release the holds on the packages the purge removes (or stop, saying which) [root, prepare] (fixes/purge-nvidia.yaml:19)
gd_step_3() {
  gd_release_holds '' cuda-toolkit-12-0 libnvidia-compute-525 nvidia-dkms-525 nvidia-driver-525 nvidia-utils-525
}
gd_verify_3() {
  gd_verify_not_held cuda-toolkit-12-0 libnvidia-compute-525 nvidia-dkms-525 nvidia-driver-525 nvidia-utils-525
}

# 4. Download everything the next steps install (and keep the old stack's packages for undo) [root, prepare] (fixes/migrate.yaml:21)
gd_step_4() {
  gd_prepare_downloads
}
gd_verify_4() {
  gd_verify_downloads
}

# 5. Install the headers of the running kernel and of the kernel that boots next (amdgpu-dkms is built against them) [root] (fixes/install-rocm.yaml:93)
gd_step_5() {
  gd_install_kernel_packages linux-headers-
}
gd_verify_5() {
  gd_verify_kernel_packages linux-headers-
}

# 6. Install the extra modules of the running kernel and of the kernel that boots next (Ubuntu) [root] (fixes/install-rocm.yaml:101)
gd_step_6() {
  gd_install_kernel_packages linux-modules-extra-
}
gd_verify_6() {
  gd_verify_kernel_packages linux-modules-extra-
}

# 7. Install the amdgpu kernel driver (amdgpu-dkms) [root, reboot] (fixes/install-rocm.yaml:107)
gd_step_7() {
  gd_install_packages amdgpu-dkms
}
gd_verify_7() {
  gd_verify_installed amdgpu-dkms
}

# 8. Check that the amdgpu module is there for the running kernel and the kernel that boots next (built by DKMS, or the kernel's own under Secure Boot) [root] (fixes/install-rocm.yaml:114)
gd_step_8() {
  gd_build_module amdgpu yes
}
gd_verify_8() {
  gd_verify_module amdgpu yes
}

# 9. Install ROCm 7.2 (the distribution's own ROCm packages, if any, purged first) [root] (fixes/install-rocm.yaml:119)
gd_step_9() {
  gd_install_packages rocm --
}
gd_verify_9() {
  gd_verify_installed rocm
  gd_verify_builds_gone
}

# 10. Register ROCm's libraries with the dynamic linker [root] (fixes/install-rocm.yaml:127)
gd_step_10() {
local before=$GD_CHANGES
gd_write_file /etc/ld.so.conf.d/rocm.conf 0644 <<'CONF'
/opt/rocm/lib
/opt/rocm/lib64
CONF
if ((GD_CHANGES > before)); then gd_owe ldconfig; fi
gd_settle
}
gd_verify_10() {
  grep -qx /opt/rocm/lib /etc/ld.so.conf.d/rocm.conf
}

# 11. Add the user to the render and video groups [root] (fixes/groups-render-video.yaml:8)
gd_step_11() {
  gd_add_groups dana render video
}
gd_verify_11() {
  gd_verify_in_groups dana render video
}

# 12. Stop what uses the NVIDIA GPU (nvidia-persistenced, the Fabric Manager, processes with /dev/nvidia* open) [root] (fixes/purge-nvidia.yaml:33)
gd_step_12() {
  gd_stop_gpu_users '/dev/nvidia(ctl|-uvm|-uvm-tools|-modeset|[0-9]+)' '' nvidia-persistenced nvidia-fabricmanager
}
gd_verify_12() {
  gd_verify_no_gpu_users '/dev/nvidia(ctl|-uvm|-uvm-tools|-modeset|[0-9]+)'
}

# 13. Purge the CUDA, driver and NVIDIA container packages [root, destructive] (fixes/purge-nvidia.yaml:39)
gd_step_13() {
  gd_purge_packages cuda-toolkit-12-0 libnvidia-compute-525 nvidia-dkms-525 nvidia-driver-525 nvidia-utils-525 --
}
gd_verify_13() {
  gd_verify_not_installed cuda-toolkit-12-0 libnvidia-compute-525 nvidia-dkms-525 nvidia-driver-525 nvidia-utils-525
}

# 14. Remove the CUDA folders no package owns any more [root, destructive] (fixes/purge-nvidia.yaml:60)
gd_step_14() {
  gd_remove_trees /usr/local/cuda-12.0 /usr/local/cuda
}
gd_verify_14() {
  gd_verify_absent /usr/local/cuda-12.0 /usr/local/cuda
}

# 15. Remove update-alternatives entries that point nowhere [root] (fixes/purge-nvidia.yaml:67)
gd_step_15() {
  gd_remove_dangling_alternatives cuda
}
gd_verify_15() {
  gd_verify_no_dangling_alternatives cuda
}

# 16. Remove CUDA variables and folders from shell profiles [root] (fixes/purge-nvidia.yaml:109)
gd_step_16() {
  gd_clean_profiles 'CUDA_[A-Z_]*|CUDNN_[A-Z_]*|NVIDIA_VISIBLE_DEVICES|NVIDIA_DRIVER_CAPABILITIES|TORCH_CUDA_ARCH_LIST|CUDAARCHS|CUDA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|GPU_DEVICE_ORDINAL' '/usr/local/cuda(-[0-9][0-9.]*)?|\$\{?(CUDA_HOME|CUDA_PATH|CUDA_ROOT)\}?' --system /home/dana
}
gd_verify_16() {
  gd_verify_profiles 'CUDA_[A-Z_]*|CUDNN_[A-Z_]*|NVIDIA_VISIBLE_DEVICES|NVIDIA_DRIVER_CAPABILITIES|TORCH_CUDA_ARCH_LIST|CUDAARCHS|CUDA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|GPU_DEVICE_ORDINAL' '/usr/local/cuda(-[0-9][0-9.]*)?|\$\{?(CUDA_HOME|CUDA_PATH|CUDA_ROOT)\}?' --system /home/dana
}

# 17. Purge what only the removed packages needed (apt's autoremove, limited to what this purge orphaned) [root, destructive] (fixes/purge-nvidia.yaml:124)
gd_step_17() {
  gd_autoremove_orphans libdrm2 libdrm-common libdrm-dev libdrm-tests libdrm-amdgpu1 'libdrm-[!a]*' libdrm 'mesa-[!a]*' 'mesa-libGL*' 'mesa-libEGL*' 'mesa-libgbm*' 'mesa-dri-drivers*' mesa-filesystem 'mesa-vulkan-drivers*' 'libgl1-mesa*' 'libglx-mesa*' 'libegl-mesa*' libgbm1 libgbm-dev 'libosmesa*' 'libglapi-mesa*' 'libvulkan*' xserver-xorg 'xserver-xorg-core*' 'xserver-xorg-video-[!n]*' 'xserver-xorg-video-nouveau*' 'xserver-xorg-input-*' xserver-xorg-legacy 'firmware-*' 'linux-firmware*' amdgpu-firmware 'linux-image-*' 'linux-headers-*' 'linux-modules-extra-*' 'kernel-*' dkms
}
gd_verify_17() {
  gd_verify_no_orphans libdrm2 libdrm-common libdrm-dev libdrm-tests libdrm-amdgpu1 'libdrm-[!a]*' libdrm 'mesa-[!a]*' 'mesa-libGL*' 'mesa-libEGL*' 'mesa-libgbm*' 'mesa-dri-drivers*' mesa-filesystem 'mesa-vulkan-drivers*' 'libgl1-mesa*' 'libglx-mesa*' 'libegl-mesa*' libgbm1 libgbm-dev 'libosmesa*' 'libglapi-mesa*' 'libvulkan*' xserver-xorg 'xserver-xorg-core*' 'xserver-xorg-video-[!n]*' 'xserver-xorg-video-nouveau*' 'xserver-xorg-input-*' xserver-xorg-legacy 'firmware-*' 'linux-firmware*' amdgpu-firmware 'linux-image-*' 'linux-headers-*' 'linux-modules-extra-*' 'kernel-*' dkms
}

# 18. Power off, take out NVIDIA GeForce RTX 3090 and put in the AMD card [root, reboot] (fixes/reboot.yaml:9)
gd_step_18() {
  gd_power_off_for_swap 'NVIDIA GeForce RTX 3090' 'the AMD card' ''
}
gd_verify_18() {
  true # the next run of the script sees the new boot
}

# 19. Check the machine with gpudoctor (what must pass now) (fixes/migrate.yaml:27)
gd_step_19() {
  gd_post_check /usr/bin/gpudoctor driver.not-bound,driver.kfd-missing,stack.both-vendors,stack.leftover-paths,perm.kfd,perm.render-node,torch.cpu-build,torch.vendor-mismatch,torch.arch-missing,env.hsa-override-invalid,env.hsa-override-mismatch,env.visible-devices-empty,env.visible-devices-foreign
}
gd_verify_19() {
  true # gpudoctor check reports by itself
}

gd_main "$@"
