#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor migrate: Move this machine to NVIDIA (CUDA)
#
# What: (purge-rocm) Purges ROCm, amdgpu-dkms and AMD's own builds of Mesa and libdrm as the installed
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
#       (install-nvidia) Adds NVIDIA's CUDA repository for this OS release with NVIDIA's cuda-keyring package
#       (a source a machine has already is reused; with --mirror, gpudoctor's source for the mirror replaces
#       NVIDIA's), installs the kernel headers, the driver branch the chosen CUDA release needs (open kernel
#       modules for Turing and later, NVIDIA's proprietary ones before), the CUDA toolkit, puts it on PATH for
#       login shells, and blacklists nouveau. Under Secure Boot it enrolls DKMS's signing key as a Machine
#       Owner Key (enroll-mok). Needs a reboot.
#       (blacklist-nouveau) Writes /etc/modprobe.d/blacklist-nouveau.conf (blacklist nouveau, options nouveau
#       modeset=0) and rebuilds the initramfs, so nouveau does not take the GPU at the next boot and the
#       NVIDIA driver can. Needs a reboot.
#       (enroll-mok) Secure Boot loads only signed kernel modules. DKMS signs the modules it builds with its
#       key; this makes that key where DKMS looks for it (unless it is there), asks the firmware to enroll its
#       certificate with mokutil --import (you choose a one-time password), stops before the reboot to say
#       what to do at the MOK screen, and after the reboot checks that the driver's module loaded.
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
# Why:  stack.both-vendors (warn): Only NVIDIA GPUs are present, but ROCm 6.0.2 (/opt/rocm-6.0.2) is installed
#         too: its libraries and paths can shadow the ones you need. Remove it.
#       stack.leftover-paths (warn, environment): The environment names 4 GPU-stack folders that are missing
#         or of the absent vendor: leftovers of an uninstalled or replaced stack. They slow every command
#         lookup at best, and load the wrong libraries at worst. Remove them from wherever they are set.
#       torch.vendor-mismatch (error, python3 (PATH: /home/sam/venvs/sd-rocm/bin/python3)): PyTorch
#         2.3.1+rocm6.0 is a ROCm (HIP 6.0.32830-d62f6a171) build but this machine has only NVIDIA GPUs: it
#         will not see them. Reinstall PyTorch from the CUDA wheel index.
# For:  host sd-vm, Ubuntu 22.04.4 LTS (ubuntu 22.04, debian family), kernel 5.15.0-105-generic
#       gpu0 (0000:00:10.0): NVIDIA GeForce RTX 3090 (sm_86), driver nvidia
# From: snapshot tests/machines/amd-to-nvidia-leftovers/snapshot, by gpudoctor (test).
#
# Notes:
#   - CUDA 13.0 (the newest gpudoctor installs that builds for NVIDIA GeForce RTX 3090 (sm_86)) with driver
#     branch 580 (CUDA 13.0 needs 580.65.06 or newer, NVIDIA's long-term support branch)
#   - open kernel modules: NVIDIA's default since R560, for Turing (sm_75) and later
#   - PyTorch from the cu130 wheel index: the newest whose CUDA driver 580 runs and whose wheels build for
#     these GPUs
#   - the signing key URL
#     https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/3bf863cc.pub is not confirmed
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. purge-rocm.holds                       R--  Release the holds on the packages the purge removes (or
#                                                  stop, saying which)
#   2. install-nvidia.keyring                 R--  Add NVIDIA's CUDA repository with NVIDIA's cuda-keyring
#                                                  package (its source, key and pin)
#   3. prepare.download                       R--  Download everything the next steps install (and keep the
#                                                  old stack's packages for undo)
#   4. purge-rocm.gpu-users                   R--  Stop what uses the AMD GPU (no services, processes with
#                                                  /dev/kfd open)
#   5. purge-rocm.packages                    RD-  Purge the ROCm, amdgpu and AMD graphics packages (the
#                                                  distribution's Mesa in place of AMD's)
#   6. purge-rocm.config-files                RD-  Purge the configuration files removed ROCm packages left
#   7. purge-rocm.trees                       RD-  Remove the ROCm folders no package owns any more
#   8. purge-rocm.alternatives                R--  Remove update-alternatives entries that point nowhere
#   9. purge-rocm.profiles                    R--  Remove ROCm variables and folders from shell profiles
#  10. install-nvidia.headers                 R--  Install the headers of the kernel (the driver's DKMS module
#                                                  is built against them)
#  11. install-nvidia.driver                  R-B  Install the NVIDIA driver 580 (open kernel modules)
#  12. install-nvidia.toolkit                 R--  Install the CUDA toolkit 13.0
#  13. install-nvidia.path                    R--  Put CUDA 13.0 on PATH for login shells
#  14. blacklist-nouveau.modprobe             R-B  Blacklist nouveau and rebuild the initramfs
#  15. torch-reinstall.reinstall              ---  Reinstall torch from https://download.pytorch.org/whl/cu130
#  16. purge-rocm.autoremove                  RD-  Purge what only the removed packages needed (apt's
#                                                  autoremove, limited to what this purge orphaned)
#  17. reboot.reboot                          R-B  Reboot the machine
#  18. migrate.check                          ---  Check the machine with gpudoctor (what must pass now)
# Afterwards these checks must pass: driver.not-bound driver.nouveau driver.nvidia-mismatch cuda.no-driver
#   cuda.driver-too-old stack.both-vendors stack.leftover-paths torch.cpu-build torch.vendor-mismatch
#   torch.arch-missing torch.cuda-too-new perm.nvidia-dev env.visible-devices-empty
#   env.visible-devices-foreign

set -euo pipefail

GD_SCRIPT_ID='migrate-to-nvidia-91021dbe'
GD_FAMILY=debian
GD_FOR_OS_ID=ubuntu
GD_FOR_OS_VERSION=22.04
GD_FOR_HOST=sd-vm
GD_KERNEL=5.15.0-105-generic
GD_STEP_IDS=(
  purge-rocm.holds
  install-nvidia.keyring
  prepare.download
  purge-rocm.gpu-users
  purge-rocm.packages
  purge-rocm.config-files
  purge-rocm.trees
  purge-rocm.alternatives
  purge-rocm.profiles
  install-nvidia.headers
  install-nvidia.driver
  install-nvidia.toolkit
  install-nvidia.path
  blacklist-nouveau.modprobe
  torch-reinstall.reinstall
  purge-rocm.autoremove
  reboot.reboot
  migrate.check
)
GD_STEP_TITLES=(
  'Release the holds on the packages the purge removes (or stop, saying which)'
  'Add NVIDIA'\''s CUDA repository with NVIDIA'\''s cuda-keyring package (its source, key and pin)'
  'Download everything the next steps install (and keep the old stack'\''s packages for undo)'
  'Stop what uses the AMD GPU (no services, processes with /dev/kfd open)'
  'Purge the ROCm, amdgpu and AMD graphics packages (the distribution'\''s Mesa in place of AMD'\''s)'
  'Purge the configuration files removed ROCm packages left'
  'Remove the ROCm folders no package owns any more'
  'Remove update-alternatives entries that point nowhere'
  'Remove ROCm variables and folders from shell profiles'
  'Install the headers of the kernel (the driver'\''s DKMS module is built against them)'
  'Install the NVIDIA driver 580 (open kernel modules)'
  'Install the CUDA toolkit 13.0'
  'Put CUDA 13.0 on PATH for login shells'
  'Blacklist nouveau and rebuild the initramfs'
  'Reinstall torch from https://download.pytorch.org/whl/cu130'
  'Purge what only the removed packages needed (apt'\''s autoremove, limited to what this purge orphaned)'
  'Reboot the machine'
  'Check the machine with gpudoctor (what must pass now)'
)
GD_STEP_FLAGS=(
  root
  root
  root
  root
  'root destructive'
  'root destructive'
  'root destructive'
  root
  root
  root
  'root reboot'
  root
  root
  'root reboot'
  ''
  'root destructive'
  'root reboot'
  ''
)

# @gpudoctor-golden: fixes/lib.bash is pasted here

# ---- the steps ------------------------------------------------------------------------

# 1. Release the holds on the packages the purge removes (or stop, saying which) [root] (fixes/purge-rocm.yaml:19)
gd_step_1() {
  gd_release_holds '' hip-runtime-amd rocm-core rocminfo
}
gd_verify_1() {
  gd_verify_not_held hip-runtime-amd rocm-core rocminfo
}

# 2. Add NVIDIA's CUDA repository with NVIDIA's cuda-keyring package (its source, key and pin) [root] (fixes/install-nvidia.yaml:15)
gd_step_2() {
  gd_cuda_keyring https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/
}
gd_verify_2() {
  gd_verify_apt_source https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/ /
}

# 3. Download everything the next steps install (and keep the old stack's packages for undo) [root] (fixes/migrate.yaml:18)
gd_step_3() {
  gd_prepare_downloads
}
gd_verify_3() {
  gd_verify_downloads
}

# 4. Stop what uses the AMD GPU (no services, processes with /dev/kfd open) [root] (fixes/purge-rocm.yaml:33)
gd_step_4() {
  gd_stop_gpu_users /dev/kfd ''
}
gd_verify_4() {
  gd_verify_no_gpu_users /dev/kfd
}

# 5. Purge the ROCm, amdgpu and AMD graphics packages (the distribution's Mesa in place of AMD's) [root, destructive] (fixes/purge-rocm.yaml:39)
gd_step_5() {
  gd_purge_packages hip-runtime-amd rocm-core rocminfo --
}
gd_verify_5() {
  gd_verify_not_installed hip-runtime-amd rocm-core rocminfo
}

# 6. Purge the configuration files removed ROCm packages left [root, destructive] (fixes/purge-rocm.yaml:46)
gd_step_6() {
  gd_purge_config_packages amdgpu-dkms
}
gd_verify_6() {
  gd_verify_no_config_packages amdgpu-dkms
}

# 7. Remove the ROCm folders no package owns any more [root, destructive] (fixes/purge-rocm.yaml:60)
gd_step_7() {
  gd_remove_trees /opt/rocm-6.0.2 /opt/rocm
}
gd_verify_7() {
  gd_verify_absent /opt/rocm-6.0.2 /opt/rocm
}

# 8. Remove update-alternatives entries that point nowhere [root] (fixes/purge-rocm.yaml:67)
gd_step_8() {
  gd_remove_dangling_alternatives rocm
}
gd_verify_8() {
  gd_verify_no_dangling_alternatives rocm
}

# 9. Remove ROCm variables and folders from shell profiles [root] (fixes/purge-rocm.yaml:109)
gd_step_9() {
  gd_clean_profiles 'ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|HCC_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL|MIOPEN_[A-Z_]*|CUDA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|GPU_DEVICE_ORDINAL' '/opt/rocm(-[0-9][0-9.]*)?|\$\{?(ROCM_PATH|ROCM_HOME|HIP_PATH)\}?' --system /home/sam
}
gd_verify_9() {
  gd_verify_profiles 'ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|HCC_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL|MIOPEN_[A-Z_]*|CUDA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|GPU_DEVICE_ORDINAL' '/opt/rocm(-[0-9][0-9.]*)?|\$\{?(ROCM_PATH|ROCM_HOME|HIP_PATH)\}?' --system /home/sam
}

# 10. Install the headers of the kernel (the driver's DKMS module is built against them) [root] (fixes/install-nvidia.yaml:53)
gd_step_10() {
  gd_install_packages "linux-headers-$(gd_kernel)"
}
gd_verify_10() {
  gd_verify_installed "linux-headers-$(gd_kernel)"
}

# 11. Install the NVIDIA driver 580 (open kernel modules) [root, reboot] (fixes/install-nvidia.yaml:67)
gd_step_11() {
  gd_install_packages nvidia-open-580
}
gd_verify_11() {
  gd_verify_installed nvidia-open-580
}

# 12. Install the CUDA toolkit 13.0 [root] (fixes/install-nvidia.yaml:73)
gd_step_12() {
  gd_install_packages cuda-toolkit-13-0
}
gd_verify_12() {
  gd_verify_installed cuda-toolkit-13-0
}

# 13. Put CUDA 13.0 on PATH for login shells [root] (fixes/install-nvidia.yaml:78)
gd_step_13() {
gd_write_file /etc/profile.d/cuda-path.sh 0644 <<'PROFILE'
# Written by gpudoctor (install-nvidia): the CUDA 13.0 toolkit on PATH.
export PATH=/usr/local/cuda-13.0/bin${PATH:+:${PATH}}
PROFILE
}
gd_verify_13() {
  grep -qF /usr/local/cuda-13.0 /etc/profile.d/cuda-path.sh
}

# 14. Blacklist nouveau and rebuild the initramfs [root, reboot] (fixes/blacklist-nouveau.yaml:9)
gd_step_14() {
local before=$GD_CHANGES
gd_write_file /etc/modprobe.d/blacklist-nouveau.conf 0644 <<'CONF'
# Written by gpudoctor (fix blacklist-nouveau): the NVIDIA driver cannot load while nouveau holds the GPU.
blacklist nouveau
options nouveau modeset=0
CONF
if ((GD_CHANGES > before)); then gd_owe initramfs; fi
gd_settle
}
gd_verify_14() {
  grep -qx 'blacklist nouveau' /etc/modprobe.d/blacklist-nouveau.conf
}

# 15. Reinstall torch from https://download.pytorch.org/whl/cu130 (fixes/torch-reinstall.yaml:14)
gd_step_15() {
  gd_torch_reinstall sam https://download.pytorch.org/whl/cu130 cu130 torch /home/sam/venvs/sd-rocm/bin/python3 -- pytorch-triton-rocm
}
gd_verify_15() {
  gd_verify_torch cu130 /home/sam/venvs/sd-rocm/bin/python3
}

# 16. Purge what only the removed packages needed (apt's autoremove, limited to what this purge orphaned) [root, destructive] (fixes/purge-rocm.yaml:120)
gd_step_16() {
  gd_autoremove_orphans libdrm2 libdrm-common libdrm-dev libdrm-tests libdrm-amdgpu1 'libdrm-[!a]*' libdrm 'mesa-[!a]*' 'mesa-libGL*' 'mesa-libEGL*' 'mesa-libgbm*' 'mesa-dri-drivers*' mesa-filesystem 'mesa-vulkan-drivers*' 'libgl1-mesa*' 'libglx-mesa*' 'libegl-mesa*' libgbm1 libgbm-dev 'libosmesa*' 'libglapi-mesa*' 'libvulkan*' xserver-xorg 'xserver-xorg-core*' 'xserver-xorg-video-[!n]*' 'xserver-xorg-video-nouveau*' 'xserver-xorg-input-*' xserver-xorg-legacy 'firmware-*' 'linux-firmware*' amdgpu-firmware 'linux-image-*' 'linux-headers-*' 'linux-modules-extra-*' 'kernel-*' dkms
}
gd_verify_16() {
  gd_verify_no_orphans libdrm2 libdrm-common libdrm-dev libdrm-tests libdrm-amdgpu1 'libdrm-[!a]*' libdrm 'mesa-[!a]*' 'mesa-libGL*' 'mesa-libEGL*' 'mesa-libgbm*' 'mesa-dri-drivers*' mesa-filesystem 'mesa-vulkan-drivers*' 'libgl1-mesa*' 'libglx-mesa*' 'libegl-mesa*' libgbm1 libgbm-dev 'libosmesa*' 'libglapi-mesa*' 'libvulkan*' xserver-xorg 'xserver-xorg-core*' 'xserver-xorg-video-[!n]*' 'xserver-xorg-video-nouveau*' 'xserver-xorg-input-*' xserver-xorg-legacy 'firmware-*' 'linux-firmware*' amdgpu-firmware 'linux-image-*' 'linux-headers-*' 'linux-modules-extra-*' 'kernel-*' dkms
}

# 17. Reboot the machine [root, reboot] (fixes/reboot.yaml:17)
gd_step_17() {
  gd_reboot
}
gd_verify_17() {
  true # the next run of the script sees the new boot
}

# 18. Check the machine with gpudoctor (what must pass now) (fixes/migrate.yaml:24)
gd_step_18() {
  gd_post_check /usr/bin/gpudoctor driver.not-bound,driver.nouveau,driver.nvidia-mismatch,cuda.no-driver,cuda.driver-too-old,stack.both-vendors,stack.leftover-paths,torch.cpu-build,torch.vendor-mismatch,torch.arch-missing,torch.cuda-too-new,perm.nvidia-dev,env.visible-devices-empty,env.visible-devices-foreign
}
gd_verify_18() {
  true # gpudoctor check reports by itself
}

gd_main "$@"
