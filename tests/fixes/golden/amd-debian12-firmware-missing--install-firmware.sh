#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix install-firmware: Install the GPU firmware
#
# What: Installs the package that carries the amdgpu firmware on this distribution: AMD's amdgpu-dkms-firmware
#       beside amdgpu-dkms, else Debian's firmware-amd-graphics (enabling the non-free-firmware component
#       first), Ubuntu's linux-firmware, Fedora's amd-gpu-firmware or RHEL's linux-firmware. Then rebuilds the
#       initramfs, which the kernel loads the firmware from at boot, and asks for a reboot.
# Why:  driver.firmware-missing (error, gpu0 (0000:63:00.0)): amdgpu could not load 5 firmware files this
#         boot, so the GPU does not initialise. Missing (/lib/firmware/amdgpu lacks them, also as .zst and
#         .xz): amdgpu/psp_14_0_3_sos.bin, amdgpu/gc_12_0_1_pfp.bin, amdgpu/gc_12_0_1_me.bin,
#         amdgpu/gc_12_0_1_mec.bin, amdgpu/gc_12_0_1_rlc.bin. Install a newer firmware-amd-graphics than the
#         installed 20230210-5 (which predates this GPU: take it from the release's backports, or the files
#         from upstream linux-firmware), then rebuild the initramfs (sudo update-initramfs -u -k all, or sudo
#         dracut --force) and reboot.
# For:  host ws03, Debian GNU/Linux 12 (bookworm) (debian 12, debian family), kernel 6.1.0-28-amd64
#       gpu0 (0000:63:00.0): AMD Radeon AI PRO R9700 (gfx1201), no driver bound
# From: snapshot tests/machines/amd-debian12-firmware-missing/snapshot, by gpudoctor (test).
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. install-firmware.component             R--  Enable Debian's non-free-firmware component (where
#                                                  firmware-amd-graphics lives)
#   2. install-firmware.package               R--  Install the package that carries the amdgpu firmware
#   3. install-firmware.initramfs             R-B  Rebuild the initramfs, so the kernel finds the firmware at
#                                                  boot

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

GD_SCRIPT_ID='install-firmware-5d9d823e'
GD_FAMILY=debian
GD_FOR_OS_ID=debian
GD_FOR_OS_VERSION=12
GD_FOR_HOST=ws03
GD_KERNEL=6.1.0-28-amd64
GD_STEP_IDS=(
  install-firmware.component
  install-firmware.package
  install-firmware.initramfs
)
GD_STEP_TITLES=(
  'Enable Debian'\''s non-free-firmware component (where firmware-amd-graphics lives)'
  'Install the package that carries the amdgpu firmware'
  'Rebuild the initramfs, so the kernel finds the firmware at boot'
)
GD_STEP_FLAGS=(
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

# 1. Enable Debian's non-free-firmware component (where firmware-amd-graphics lives) [root] (fixes/install-firmware.yaml:11)
gd_step_1() {
local ubuntu=''
if [[ $ubuntu == yes ]] || gd_pkg_installed amdgpu-dkms; then return 0; fi
if apt-cache show firmware-amd-graphics >/dev/null 2>&1; then
  gd_note "firmware-amd-graphics is already available"
  return 0
fi
local codename
codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release | tr -d '"')
[[ -n $codename ]] || gd_die "/etc/os-release names no VERSION_CODENAME: enable non-free-firmware by hand"
gd_write_file /etc/apt/sources.list.d/gpudoctor-non-free-firmware.sources 0644 <<SOURCES
# Written by gpudoctor (fix install-firmware): Debian's firmware for AMD GPUs.
Types: deb
URIs: http://deb.debian.org/debian
Suites: $codename $codename-updates
Components: non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
GD_APT_UPDATED=0
}
gd_verify_1() {
  local ubuntu=''; [[ $ubuntu == yes ]] || gd_pkg_installed amdgpu-dkms || apt-cache show firmware-amd-graphics >/dev/null 2>&1
}

# 2. Install the package that carries the amdgpu firmware [root] (fixes/install-firmware.yaml:34)
gd_step_2() {
  local package=firmware-amd-graphics ubuntu=''
  if [[ $ubuntu == yes ]]; then package=linux-firmware; fi
  if gd_pkg_installed amdgpu-dkms; then package=amdgpu-dkms-firmware; fi
  if gd_pkg_installed "$package"; then
    gd_note "$package is installed: if the file is still missing, this release's package is older than the GPU (take a newer one: backports, upstream linux-firmware)"
  fi
  gd_install_packages "$package"
}
gd_verify_2() {
  gd_pkg_installed firmware-amd-graphics || gd_pkg_installed linux-firmware || gd_pkg_installed amdgpu-dkms-firmware
}

# 3. Rebuild the initramfs, so the kernel finds the firmware at boot [root, reboot] (fixes/install-firmware.yaml:55)
gd_step_3() {
  gd_update_initramfs
}
gd_verify_3() {
  test -e "/boot/initrd.img-$(gd_kernel)" || ! gd_have update-initramfs
}

gd_main "$@"
