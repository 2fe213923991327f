#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix install-fabric-manager: Install the NVIDIA Fabric Manager
#
# What: Installs the Fabric Manager of exactly the loaded driver's version (Debian and Ubuntu:
#       nvidia-fabricmanager-<branch> where the repository has it, else nvidia-fabricmanager at that version;
#       RHEL: nvidia-fabric-manager at that version), nvlsm beside it for Blackwell GPUs, and enables and
#       starts the nvidia-fabricmanager service. The driver must be installed and loaded first (fix
#       install-nvidia); NVIDIA's repository must be configured.
# Why:  fabric.manager (error): This is an NVSwitch system and its NVLink fabric is not up: 8 of 8 GPUs report
#         the fabric state "Not Started" (status N/A), not Completed; the nvidia-fabricmanager package is not
#         installed; the nvidia-fabricmanager service is inactive. Until it is, CUDA fails with error 802
#         ("system not yet initialized"). Install nvidia-fabricmanager of exactly the driver's version, enable
#         and start it (systemctl enable --now nvidia-fabricmanager).
# For:  host hgx07, Ubuntu 24.04.3 LTS (ubuntu 24.04, debian family), kernel 6.18.44-fc-v657-gpu
#       gpu0 (0000:18:00.0): NVIDIA H200 (sm_90), driver nvidia
#       gpu1 (0000:2a:00.0): NVIDIA H200 (sm_90), driver nvidia
#       gpu2 (0000:3a:00.0): NVIDIA H200 (sm_90), driver nvidia
#       gpu3 (0000:5d:00.0): NVIDIA H200 (sm_90), driver nvidia
#       gpu4 (0000:9a:00.0): NVIDIA H200 (sm_90), driver nvidia
#       gpu5 (0000:ab:00.0): NVIDIA H200 (sm_90), driver nvidia
#       gpu6 (0000:ba:00.0): NVIDIA H200 (sm_90), driver nvidia
#       gpu7 (0000:db:00.0): NVIDIA H200 (sm_90), driver nvidia
# From: snapshot tests/machines/nvidia-hgx-h200-no-fabric-manager/snapshot, by gpudoctor (test).
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. install-fabric-manager.package         R--  Install the Fabric Manager of the loaded driver's version
#   2. install-fabric-manager.subnet-manager  R--  Install the NVLink Subnet Manager (4th-generation NVSwitch
#                                                  systems)
#   3. install-fabric-manager.service         R--  Enable and start the nvidia-fabricmanager service

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

GD_SCRIPT_ID='install-fabric-manager-176a0a27'
GD_FAMILY=debian
GD_FOR_OS_ID=ubuntu
GD_FOR_OS_VERSION=24.04
GD_FOR_HOST=hgx07
GD_KERNEL=6.18.44-fc-v657-gpu
GD_STEP_IDS=(
  install-fabric-manager.package
  install-fabric-manager.subnet-manager
  install-fabric-manager.service
)
GD_STEP_TITLES=(
  'Install the Fabric Manager of the loaded driver'\''s version'
  'Install the NVLink Subnet Manager (4th-generation NVSwitch systems)'
  'Enable and start the nvidia-fabricmanager service'
)
GD_STEP_FLAGS=(
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

# 1. Install the Fabric Manager of the loaded driver's version [root] (fixes/install-fabric-manager.yaml:13)
gd_step_1() {
  local version branch package
  version=$(cat /sys/module/nvidia/version 2>/dev/null || true)
  [[ -n $version ]] || gd_die "no NVIDIA driver is loaded: install and load it first, then run this again"
  branch=${version%%.*}
  package=nvidia-fabricmanager
  if apt-cache show "nvidia-fabricmanager-$branch" >/dev/null 2>&1; then package=nvidia-fabricmanager-$branch; fi
  if gd_pkg_installed "$package" && [[ $(gd_pkg_version "$package") == "$version"* ]]; then
    gd_note "$package $version is installed"
    return 0
  fi
  local exact
  exact=$(apt-cache madison "$package" 2>/dev/null | awk -v v="$version" '$3 ~ "^" v "-" && !found { print $3; found = 1 }')
  [[ -n $exact ]] || gd_die "the repositories have no $package $version: add NVIDIA's repository of this driver"
  gd_install_packages "$package=$exact"
}
gd_verify_1() {
  grep -q "^$(cat /sys/module/nvidia/version)" <<<"$(dpkg-query -W -f='${Version}\n' 'nvidia-fabricmanager*' 2>/dev/null)"
}

# 2. Install the NVLink Subnet Manager (4th-generation NVSwitch systems) [root] (fixes/install-fabric-manager.yaml:42)
gd_step_2() {
  if ! grep -Eq '(^| )G?B[0-9]{3}' <<<"$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)"; then
    gd_note "no Blackwell NVSwitch GPU: the NVLink Subnet Manager is not needed"
    return 0
  fi
  gd_install_packages nvlsm
}
gd_verify_2() {
  ! grep -Eq '(^| )G?B[0-9]{3}' <<<"$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)" || gd_pkg_installed nvlsm
}

# 3. Enable and start the nvidia-fabricmanager service [root] (fixes/install-fabric-manager.yaml:52)
gd_step_3() {
  gd_run systemctl enable --now nvidia-fabricmanager
}
gd_verify_3() {
  systemctl is-active --quiet nvidia-fabricmanager
}

gd_main "$@"
