#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix install-nvidia: Install the NVIDIA driver and CUDA toolkit
#
# What: Adds NVIDIA's CUDA repository for this OS release with NVIDIA's cuda-keyring package (a source a
#       machine has already is reused; with --mirror, gpudoctor's source for the mirror replaces NVIDIA's),
#       installs the kernel headers, the driver branch the chosen CUDA release needs (open kernel modules for
#       Turing and later, NVIDIA's proprietary ones before), builds its module with DKMS for the running
#       kernel and the kernel that boots next and checks that modinfo finds it for both, installs the CUDA
#       toolkit, puts it on PATH for login shells, and blacklists nouveau. The distribution's own builds of
#       the stack (Ubuntu's nvidia-driver-550, Debian's nvidia-driver, told by their Maintainer and Version,
#       never by name) are purged by the driver's step just before it installs, so the two are never mixed;
#       what a package outside the stack needs stays. In a migration all of this comes before anything of the
#       old stack is removed. Under Secure Boot it enrolls DKMS's signing key as a Machine Owner Key
#       (enroll-mok). Needs a reboot.
#       (blacklist-nouveau) Writes /etc/modprobe.d/blacklist-nouveau.conf (blacklist nouveau, options nouveau
#       modeset=0) and rebuilds the initramfs, so nouveau does not take the GPU at the next boot and the
#       NVIDIA driver can. Needs a reboot.
#       (enroll-mok) Secure Boot loads only signed kernel modules. DKMS signs the modules it builds with its
#       key; this makes that key where DKMS looks for it (unless it is there), asks the firmware to enroll its
#       certificate with mokutil --import (you choose a one-time password), stops before the reboot to say
#       what to do at the MOK screen, and after the reboot checks that the driver's module loaded.
# Why:  asked for by name; no check of this machine points to it.
# For:  host gpu-vm01, Fedora Linux 41 (Workstation Edition) (fedora 41, rhel family), kernel
#       6.11.4-301.fc41.x86_64
#       gpu0 (0000:00:10.0): Tesla V100 PCIe 16GB (sm_70), driver nvidia
# From: snapshot tests/fixes/machines/fedora41-v100-cuda/snapshot, by gpudoctor (test).
#
# Notes:
#   - CUDA 12.6 (the release of PyTorch's cu126 wheels, the newest of those gpudoctor recommends that builds
#     for Tesla V100 PCIe 16GB (sm_70): CUDA 13 no longer builds for compute capability below sm_75, and this
#     GPU is sm_70 (use CUDA 12)) with driver branch 580 (CUDA 12.6 needs 560.28.03 or newer; R560 is a
#     short-lived new-feature branch, R580 the first of NVIDIA's long-term support branches from there)
#   - proprietary kernel modules: the open modules do not drive Tesla V100 PCIe 16GB (Volta)
#   - PyTorch from the cu126 wheel index: the newest whose CUDA driver 580 runs and whose wheels build for
#     these GPUs
#   - NVIDIA's packages are installed (kmod-nvidia-latest-dkms, libnvidia-ml, nvidia-driver,
#     nvidia-driver-libs, nvidia-persistenced): the driver's step switches them as NVIDIA's driver
#     installation guide does (dnf install --allowerasing cuda-drivers), after dnf's transaction shows that it
#     removes or changes none but those; their RPMs are downloaded first, so gpudoctor undo puts them back at
#     their versions
#   - NVIDIA's repository folder fedora41 is not confirmed
#   - the signing key URL
#     https://developer.download.nvidia.com/compute/cuda/repos/fedora41/x86_64/D42D0685.pub is not confirmed
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. install-nvidia.rhel-repository         R--  Add NVIDIA's CUDA repository (or the mirror given with
#                                                  --mirror) as a .repo file; one of that address is reused
#   2. prepare.download                       R--  Download everything the next steps install (and keep the
#                                                  old stack's packages for undo)
#   3. install-nvidia.headers                 R--  Install the headers of the running kernel and of the kernel
#                                                  that boots next (the driver's DKMS module is built against
#                                                  them)
#   4. install-nvidia.driver                  RDB  Install the NVIDIA driver 580 (proprietary kernel modules;
#                                                  the distribution's own driver packages, if any, purged
#                                                  first; on the RHEL family NVIDIA's installed driver
#                                                  switched as NVIDIA's guide does)
#   5. install-nvidia.module                  R--  Build the nvidia module with DKMS for the running kernel
#                                                  and the kernel that boots next, and check that modinfo
#                                                  finds it for both
#   6. install-nvidia.toolkit                 R--  Install the CUDA toolkit 12.6
#   7. install-nvidia.path                    R--  Put CUDA 12.6 on PATH for login shells
#   8. blacklist-nouveau.modprobe             R-B  Blacklist nouveau and rebuild the initramfs

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

GD_SCRIPT_ID='install-nvidia-2b04c754'
GD_FAMILY=rhel
GD_FOR_OS_ID=fedora
GD_FOR_OS_VERSION=41
GD_FOR_HOST=gpu-vm01
GD_KERNEL=6.11.4-301.fc41.x86_64
GD_STEP_IDS=(
  install-nvidia.rhel-repository
  prepare.download
  install-nvidia.headers
  install-nvidia.driver
  install-nvidia.module
  install-nvidia.toolkit
  install-nvidia.path
  blacklist-nouveau.modprobe
)
GD_STEP_TITLES=(
  'Add NVIDIA'\''s CUDA repository (or the mirror given with --mirror) as a .repo file; one of that address is reused'
  'Download everything the next steps install (and keep the old stack'\''s packages for undo)'
  'Install the headers of the running kernel and of the kernel that boots next (the driver'\''s DKMS module is built against them)'
  'Install the NVIDIA driver 580 (proprietary kernel modules; the distribution'\''s own driver packages, if any, purged first; on the RHEL family NVIDIA'\''s installed driver switched as NVIDIA'\''s guide does)'
  'Build the nvidia module with DKMS for the running kernel and the kernel that boots next, and check that modinfo finds it for both'
  'Install the CUDA toolkit 12.6'
  'Put CUDA 12.6 on PATH for login shells'
  'Blacklist nouveau and rebuild the initramfs'
)
GD_STEP_FLAGS=(
  'root prepare'
  'root prepare'
  root
  'root destructive reboot'
  root
  root
  root
  'root reboot'
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

# 1. Add NVIDIA's CUDA repository (or the mirror given with --mirror) as a .repo file; one of that address is reused [root, prepare] (fixes/install-nvidia.yaml:48)
gd_step_1() {
  gd_add_dnf_repo /etc/yum.repos.d/cuda-gpudoctor.repo cuda-gpudoctor 'NVIDIA CUDA' https://developer.download.nvidia.com/compute/cuda/repos/fedora41/x86_64/ https://developer.download.nvidia.com/compute/cuda/repos/fedora41/x86_64/D42D0685.pub \
    'gpudoctor-vendor: nvidia (written by gpudoctor for CUDA 12.6)'
}
gd_verify_1() {
  gd_verify_dnf_repo https://developer.download.nvidia.com/compute/cuda/repos/fedora41/x86_64/
}

# 2. Download everything the next steps install (and keep the old stack's packages for undo) [root, prepare] (fixes/migrate.yaml:21)
gd_step_2() {
  gd_prepare_downloads
}
gd_verify_2() {
  gd_verify_downloads
}

# 3. Install the headers of the running kernel and of the kernel that boots next (the driver's DKMS module is built against them) [root] (fixes/install-nvidia.yaml:57)
gd_step_3() {
  gd_install_kernel_packages kernel-devel-
}
gd_verify_3() {
  gd_verify_kernel_packages kernel-devel-
}

# 4. Install the NVIDIA driver 580 (proprietary kernel modules; the distribution's own driver packages, if any, purged first; on the RHEL family NVIDIA's installed driver switched as NVIDIA's guide does) [root, destructive, reboot] (fixes/install-nvidia.yaml:71)
gd_step_4() {
  gd_switch_driver '' -- cuda-drivers -- kmod-nvidia-latest-dkms libnvidia-ml nvidia-driver nvidia-driver-libs nvidia-persistenced
}
gd_verify_4() {
  gd_verify_installed cuda-drivers
  gd_verify_builds_gone
}

# 5. Build the nvidia module with DKMS for the running kernel and the kernel that boots next, and check that modinfo finds it for both [root] (fixes/install-nvidia.yaml:81)
gd_step_5() {
  gd_build_module nvidia yes
}
gd_verify_5() {
  gd_verify_module nvidia yes
}

# 6. Install the CUDA toolkit 12.6 [root] (fixes/install-nvidia.yaml:86)
gd_step_6() {
  gd_install_packages cuda-toolkit-12-6
}
gd_verify_6() {
  gd_verify_installed cuda-toolkit-12-6
}

# 7. Put CUDA 12.6 on PATH for login shells [root] (fixes/install-nvidia.yaml:91)
gd_step_7() {
gd_write_file /etc/profile.d/cuda-path.sh 0644 <<'PROFILE'
# Written by gpudoctor (install-nvidia): the CUDA 12.6 toolkit on PATH.
export PATH=/usr/local/cuda-12.6/bin${PATH:+:${PATH}}
PROFILE
}
gd_verify_7() {
  grep -qF /usr/local/cuda-12.6 /etc/profile.d/cuda-path.sh
}

# 8. Blacklist nouveau and rebuild the initramfs [root, reboot] (fixes/blacklist-nouveau.yaml:8)
gd_step_8() {
local before=$GD_CHANGES
gd_write_file /etc/modprobe.d/blacklist-nouveau.conf 0644 <<'CONF'
# Written by gpudoctor (fix blacklist-nouveau): the NVIDIA driver cannot load while nouveau holds the GPU.
blacklist nouveau
options nouveau modeset=0
CONF
if ((GD_CHANGES > before)); then gd_owe initramfs; fi
gd_settle
}
gd_verify_8() {
  grep -qx 'blacklist nouveau' /etc/modprobe.d/blacklist-nouveau.conf
}

gd_main "$@"
