#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix purge-rocm: Remove the ROCm stack
#
# What: Purges ROCm, amdgpu-dkms and AMD's own builds of Mesa and libdrm as the installed dependency graph has
#       them: every package of the stack and every package of the stack that depends on one (versioned forms
#       such as rocm-hip-sdk6.1.0 included), never the kernel, Mesa's or another vendor's packages. What a
#       package outside the stack still needs (Ubuntu's libucx0 needs libamdhip64-5) stays, and the notes say
#       so; the distribution's Mesa comes in the same transaction as AMD's goes. Held packages stop the script
#       before it changes anything (unless --unhold), so do processes with /dev/kfd open (unless
#       --stop-gpu-users). Then what the packages leave: /opt/rocm* and DKMS trees, update-alternatives
#       entries, AMD's repositories, keys and pins, ld.so.conf.d entries, amdgpu modprobe files, OpenCL ICD
#       files, ROCm variables, folders and scripts in shell profiles, MIOpen's caches; at the end, what only
#       the purged packages needed (apt's autoremove, limited to what this purge orphaned). Edited and removed
#       files are backed up; the trees and caches are not.
# Why:  asked for by name; no check of this machine points to it.
# For:  host mi210-node03, Rocky Linux 9.4 (Blue Onyx) (rocky 9.4, rhel family), kernel
#       5.14.0-427.13.1.el9_4.x86_64
#       gpu0 (0000:63:00.0): AMD Instinct MI210 (gfx90a), driver amdgpu
# From: snapshot tests/fixes/machines/rocky9-mi210-rocm/snapshot, by gpudoctor (test).
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. prepare.download                       R--  Download everything the next steps install (and keep the
#                                                  old stack's packages for undo)
#   2. purge-rocm.gpu-users                   R--  Stop what uses the AMD GPU (no services, processes with
#                                                  /dev/kfd open)
#   3. purge-rocm.packages                    RD-  Purge the ROCm, amdgpu and AMD graphics packages (the
#                                                  distribution's Mesa in place of AMD's)
#   4. purge-rocm.trees                       RD-  Remove the ROCm folders no package owns any more
#   5. purge-rocm.alternatives                R--  Remove update-alternatives entries that point nowhere
#   6. purge-rocm.repositories                R--  Remove AMD's package repositories, keys and pins
#   7. purge-rocm.profiles                    R--  Remove ROCm variables and folders from shell profiles

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

GD_SCRIPT_ID='purge-rocm-925f83d0'
GD_FAMILY=rhel
GD_FOR_OS_ID=rocky
GD_FOR_OS_VERSION=9.4
GD_FOR_HOST=mi210-node03
GD_KERNEL=5.14.0-427.13.1.el9_4.x86_64
GD_STEP_IDS=(
  prepare.download
  purge-rocm.gpu-users
  purge-rocm.packages
  purge-rocm.trees
  purge-rocm.alternatives
  purge-rocm.repositories
  purge-rocm.profiles
)
GD_STEP_TITLES=(
  'Download everything the next steps install (and keep the old stack'\''s packages for undo)'
  'Stop what uses the AMD GPU (no services, processes with /dev/kfd open)'
  'Purge the ROCm, amdgpu and AMD graphics packages (the distribution'\''s Mesa in place of AMD'\''s)'
  'Remove the ROCm folders no package owns any more'
  'Remove update-alternatives entries that point nowhere'
  'Remove AMD'\''s package repositories, keys and pins'
  'Remove ROCm variables and folders from shell profiles'
)
GD_STEP_FLAGS=(
  'root prepare'
  root
  'root destructive'
  'root destructive'
  root
  root
  root
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

# 1. Download everything the next steps install (and keep the old stack's packages for undo) [root, prepare] (fixes/migrate.yaml:21)
gd_step_1() {
  gd_prepare_downloads
}
gd_verify_1() {
  gd_verify_downloads
}

# 2. Stop what uses the AMD GPU (no services, processes with /dev/kfd open) [root] (fixes/purge-rocm.yaml:32)
gd_step_2() {
  gd_stop_gpu_users /dev/kfd ''
}
gd_verify_2() {
  gd_verify_no_gpu_users /dev/kfd
}

# 3. Purge the ROCm, amdgpu and AMD graphics packages (the distribution's Mesa in place of AMD's) [root, destructive] (fixes/purge-rocm.yaml:38)
gd_step_3() {
  gd_purge_packages amdgpu-dkms amdgpu-dkms-firmware hip-runtime-amd hsa-rocr rccl rocm-core rocm-hip-runtime rocm-smi-lib rocminfo --
}
gd_verify_3() {
  gd_verify_not_installed amdgpu-dkms amdgpu-dkms-firmware hip-runtime-amd hsa-rocr rccl rocm-core rocm-hip-runtime rocm-smi-lib rocminfo
}

# 4. Remove the ROCm folders no package owns any more [root, destructive] (fixes/purge-rocm.yaml:59)
gd_step_4() {
  gd_remove_trees /opt/rocm-6.0.2 /opt/rocm
}
gd_verify_4() {
  gd_verify_absent /opt/rocm-6.0.2 /opt/rocm
}

# 5. Remove update-alternatives entries that point nowhere [root] (fixes/purge-rocm.yaml:66)
gd_step_5() {
  gd_remove_dangling_alternatives rocm
}
gd_verify_5() {
  gd_verify_no_dangling_alternatives rocm
}

# 6. Remove AMD's package repositories, keys and pins [root] (fixes/purge-rocm.yaml:72)
gd_step_6() {
  gd_remove_files /etc/yum.repos.d/amdgpu.repo /etc/yum.repos.d/rocm.repo
  gd_remove_source_lines repo.radeon.com --
}
gd_verify_6() {
  gd_verify_absent /etc/yum.repos.d/amdgpu.repo /etc/yum.repos.d/rocm.repo
  gd_verify_no_mentions repo.radeon.com --
}

# 7. Remove ROCm variables and folders from shell profiles [root] (fixes/purge-rocm.yaml:108)
gd_step_7() {
  gd_clean_profiles 'ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|HCC_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL|MIOPEN_[A-Z_]*|AMD_SERIALIZE_KERNEL|AMD_SERIALIZE_COPY|AMD_LOG_LEVEL' '/opt/rocm(-[0-9][0-9.]*)?|\$\{?(ROCM_PATH|ROCM_HOME|HIP_PATH)\}?' --system /home/ravi
}
gd_verify_7() {
  gd_verify_profiles 'ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|HCC_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL|MIOPEN_[A-Z_]*|AMD_SERIALIZE_KERNEL|AMD_SERIALIZE_COPY|AMD_LOG_LEVEL' '/opt/rocm(-[0-9][0-9.]*)?|\$\{?(ROCM_PATH|ROCM_HOME|HIP_PATH)\}?' --system /home/ravi
}

gd_main "$@"
