#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix install-rocm: Install ROCm and the amdgpu driver
#
# What: Adds AMD's amdgpu and ROCm repositories for this OS release (or the --mirror, whose sources replace
#       AMD's) with their signing key (/etc/apt/keyrings/rocm.gpg) and pin, as AMD's guide does (an existing
#       source of the same repository is reused), installs the kernel headers, amdgpu-dkms (its module built
#       for the running kernel and the kernel that boots next, checked with modinfo) and the rocm meta
#       package, registers /opt/rocm's libraries with the dynamic linker and adds the user to render and video
#       (AMD's native install guide). Under Secure Boot it leaves out amdgpu-dkms and the headers (ROCm's
#       --no-dkms path: the kernel's own amdgpu is signed). The distribution's own ROCm packages (Debian's and
#       Ubuntu's rocminfo, hipcc, rocm-smi, libamdhip64-5, told by their Maintainer and Version) are purged by
#       the rocm step just before it installs: their versions outrank AMD's exact dependencies and their files
#       collide; what a package outside ROCm needs stays (libucx0's HIP). Needs a reboot.
#       (groups-render-video) Adds the user to the render and video groups, which own /dev/kfd and
#       /dev/dri/renderD* (AMD's ROCm install guide). The user must log out and in again (or run `newgrp
#       render`) for it to take effect.
# Why:  asked for by name; no check of this machine points to it.
# For:  host mi210-node03, Rocky Linux 9.4 (Blue Onyx) (rocky 9.4, rhel family), kernel
#       5.14.0-427.13.1.el9_4.x86_64
#       gpu0 (0000:63:00.0): AMD Instinct MI210 (gfx90a), driver amdgpu
# From: snapshot tests/fixes/machines/rocky9-mi210-rocm/snapshot, by gpudoctor (test).
#
# Notes:
#   - ROCm 6.2 (amdgpu 6.2.4, PyTorch rocm6.2.4) (--rocm)
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. install-rocm.epel                      R--  Enable the crb repository and EPEL (ROCm needs packages
#                                                  from them)
#   2. install-rocm.repositories              R--  Add AMD's amdgpu 6.2.4 and ROCm 6.2 repositories, their
#                                                  signing key and pin
#   3. prepare.download                       R--  Download everything the next steps install (and keep the
#                                                  old stack's packages for undo)
#   4. install-rocm.headers                   R--  Install the headers of the running kernel and of the kernel
#                                                  that boots next (amdgpu-dkms is built against them)
#   5. install-rocm.driver                    R-B  Install the amdgpu kernel driver (amdgpu-dkms)
#   6. install-rocm.module                    R--  Check that the amdgpu module is there for the running
#                                                  kernel and the kernel that boots next (built by DKMS, or
#                                                  the kernel's own under Secure Boot)
#   7. install-rocm.rocm                      R--  Install ROCm 6.2 (the distribution's own ROCm packages, if
#                                                  any, purged first)
#   8. install-rocm.ld-conf                   R--  Register ROCm's libraries with the dynamic linker
#   9. groups-render-video.groups             R--  Add the user to the render and video groups

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

GD_SCRIPT_ID='install-rocm-1ef9331d'
GD_FAMILY=rhel
GD_FOR_OS_ID=rocky
GD_FOR_OS_VERSION=9.4
GD_FOR_HOST=mi210-node03
GD_KERNEL=5.14.0-427.13.1.el9_4.x86_64
GD_STEP_IDS=(
  install-rocm.epel
  install-rocm.repositories
  prepare.download
  install-rocm.headers
  install-rocm.driver
  install-rocm.module
  install-rocm.rocm
  install-rocm.ld-conf
  groups-render-video.groups
)
GD_STEP_TITLES=(
  'Enable the crb repository and EPEL (ROCm needs packages from them)'
  'Add AMD'\''s amdgpu 6.2.4 and ROCm 6.2 repositories, their signing key and pin'
  'Download everything the next steps install (and keep the old stack'\''s packages for undo)'
  'Install the headers of the running kernel and of the kernel that boots next (amdgpu-dkms is built against them)'
  'Install the amdgpu kernel driver (amdgpu-dkms)'
  'Check that the amdgpu module is there for the running kernel and the kernel that boots next (built by DKMS, or the kernel'\''s own under Secure Boot)'
  'Install ROCm 6.2 (the distribution'\''s own ROCm packages, if any, purged first)'
  'Register ROCm'\''s libraries with the dynamic linker'
  'Add the user to the render and video groups'
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

# 1. Enable the crb repository and EPEL (ROCm needs packages from them) [root, prepare] (fixes/install-rocm.yaml:19)
gd_step_1() {
  gd_enable_dnf_repo crb
  gd_install_epel epel-release
}
gd_verify_1() {
  gd_verify_dnf_repo_enabled crb
  gd_verify_installed epel-release
}

# 2. Add AMD's amdgpu 6.2.4 and ROCm 6.2 repositories, their signing key and pin [root, prepare] (fixes/install-rocm.yaml:30)
gd_step_2() {
gd_write_file /etc/yum.repos.d/amdgpu.repo 0644 <<'REPO'
# gpudoctor-vendor: amd (written by gpudoctor for ROCm 6.2)
[amdgpu]
name=amdgpu 6.2.4
baseurl=https://repo.radeon.com/amdgpu/6.2.4/el/9.4/main/x86_64/
enabled=1
priority=50
gpgcheck=1
gpgkey=https://repo.radeon.com/rocm/rocm.gpg.key
REPO
gd_write_file /etc/yum.repos.d/rocm.repo 0644 <<'REPO'
# gpudoctor-vendor: amd (written by gpudoctor for ROCm 6.2)
[rocm]
name=ROCm 6.2
baseurl=https://repo.radeon.com/rocm/el9/6.2.4/main
enabled=1
priority=50
gpgcheck=1
gpgkey=https://repo.radeon.com/rocm/rocm.gpg.key
REPO
}
gd_verify_2() {
  gd_verify_nonempty /etc/yum.repos.d/rocm.repo /etc/yum.repos.d/amdgpu.repo
}

# 3. Download everything the next steps install (and keep the old stack's packages for undo) [root, prepare] (fixes/migrate.yaml:21)
gd_step_3() {
  gd_prepare_downloads
}
gd_verify_3() {
  gd_verify_downloads
}

# 4. Install the headers of the running kernel and of the kernel that boots next (amdgpu-dkms is built against them) [root] (fixes/install-rocm.yaml:93)
gd_step_4() {
  gd_install_kernel_packages kernel-devel- -- kernel-headers
}
gd_verify_4() {
  gd_verify_kernel_packages kernel-devel-
}

# 5. Install the amdgpu kernel driver (amdgpu-dkms) [root, reboot] (fixes/install-rocm.yaml:107)
gd_step_5() {
  gd_install_packages amdgpu-dkms
}
gd_verify_5() {
  gd_verify_installed amdgpu-dkms
}

# 6. Check that the amdgpu module is there for the running kernel and the kernel that boots next (built by DKMS, or the kernel's own under Secure Boot) [root] (fixes/install-rocm.yaml:114)
gd_step_6() {
  gd_build_module amdgpu yes
}
gd_verify_6() {
  gd_verify_module amdgpu yes
}

# 7. Install ROCm 6.2 (the distribution's own ROCm packages, if any, purged first) [root] (fixes/install-rocm.yaml:119)
gd_step_7() {
  gd_install_packages rocm --
}
gd_verify_7() {
  gd_verify_installed rocm
  gd_verify_builds_gone
}

# 8. Register ROCm's libraries with the dynamic linker [root] (fixes/install-rocm.yaml:127)
gd_step_8() {
local before=$GD_CHANGES
gd_write_file /etc/ld.so.conf.d/rocm.conf 0644 <<'CONF'
/opt/rocm/lib
/opt/rocm/lib64
CONF
if ((GD_CHANGES > before)); then gd_owe ldconfig; fi
gd_settle
}
gd_verify_8() {
  grep -qx /opt/rocm/lib /etc/ld.so.conf.d/rocm.conf
}

# 9. Add the user to the render and video groups [root] (fixes/groups-render-video.yaml:8)
gd_step_9() {
  gd_add_groups ravi render video
}
gd_verify_9() {
  gd_verify_in_groups ravi render video
}

gd_main "$@"
