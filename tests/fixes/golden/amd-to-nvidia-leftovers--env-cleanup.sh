#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix env-cleanup: Remove stale GPU paths from the environment
#
# What: Removes the variables and folders of the stack whose GPUs are not in this machine (ROCm's on an
#       NVIDIA-only machine, CUDA's on an AMD-only one) from the users' shell profiles, system-wide profiles
#       and ld.so.conf.d. Open a new shell afterwards: a script cannot change the environment of the shell
#       that started it.
# Why:  stack.leftover-paths (warn, environment): The environment names 4 GPU-stack folders that are missing
#         or of the absent vendor: leftovers of an uninstalled or replaced stack. They slow every command
#         lookup at best, and load the wrong libraries at worst. Remove them from wherever they are set.
#       env.visible-devices-foreign (warn, HSA_OVERRIDE_GFX_VERSION): HSA_OVERRIDE_GFX_VERSION=11.0.0 is read
#         by AMD's ROCr (libhsakmt) only, and this machine has 1 NVIDIA GPU and no AMD GPU: it does nothing
#         here. Likely a leftover of a ROCm setup; remove it from the environment and your shell profile.
#       env.visible-devices-foreign (warn, PYTORCH_ROCM_ARCH): PYTORCH_ROCM_ARCH=gfx1100 picks the AMD GPU
#         targets that PyTorch's ROCm builds and extension builds compile for; this machine has 1 NVIDIA GPU
#         and no AMD GPU, and its ROCm would build for those targets: what is built here does not run on its
#         GPUs. Likely a leftover of a ROCm setup; remove it from the environment and your shell profile.
# For:  host sd-vm, Ubuntu 22.04.4 LTS (ubuntu 22.04, debian family), kernel 5.15.0-105-generic
#       gpu0 (0000:00:10.0): NVIDIA GeForce RTX 3090 (sm_86), driver nvidia
# From: snapshot tests/machines/amd-to-nvidia-leftovers/snapshot, by gpudoctor (test).
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. env-cleanup.user-profiles              ---  Remove the stack's variables and folders from the users'
#                                                  shell profiles

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

GD_SCRIPT_ID='env-cleanup-263ca73c'
GD_FAMILY=debian
GD_FOR_OS_ID=ubuntu
GD_FOR_OS_VERSION=22.04
GD_FOR_HOST=sd-vm
GD_KERNEL=5.15.0-105-generic
GD_STEP_IDS=(
  env-cleanup.user-profiles
)
GD_STEP_TITLES=(
  'Remove the stack'\''s variables and folders from the users'\'' shell profiles'
)
GD_STEP_FLAGS=(
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

# 1. Remove the stack's variables and folders from the users' shell profiles (fixes/env-cleanup.yaml:10)
gd_step_1() {
  gd_clean_profiles 'ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|HCC_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL|MIOPEN_[A-Z_]*|AMD_SERIALIZE_KERNEL|AMD_SERIALIZE_COPY|AMD_LOG_LEVEL' '/opt/rocm(-[0-9][0-9.]*)?|\$\{?(ROCM_PATH|ROCM_HOME|HIP_PATH)\}?' /home/sam
}
gd_verify_1() {
  gd_verify_profiles 'ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|HCC_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL|MIOPEN_[A-Z_]*|AMD_SERIALIZE_KERNEL|AMD_SERIALIZE_COPY|AMD_LOG_LEVEL' '/opt/rocm(-[0-9][0-9.]*)?|\$\{?(ROCM_PATH|ROCM_HOME|HIP_PATH)\}?' /home/sam
}

gd_main "$@"
