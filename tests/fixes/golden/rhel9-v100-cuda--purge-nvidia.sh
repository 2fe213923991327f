#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix purge-nvidia: Remove the NVIDIA stack
#
# What: Purges CUDA, the NVIDIA driver, cuDNN, NCCL, the Fabric Manager, NVIDIA's container packages and
#       cuda-keyring as the installed dependency graph has them: every package of the stack and every package
#       of the stack that depends on one, never the kernel, Mesa's or another vendor's packages; what a
#       package outside the stack still needs stays, and the notes say so. Held packages stop the script
#       before it changes anything (unless --unhold); nvidia-persistenced and the Fabric Manager are stopped,
#       processes with /dev/nvidia* open stop the script (unless --stop-gpu-users). Then what the packages
#       leave: /usr/local/cuda* and DKMS trees, update-alternatives entries, NVIDIA's repositories and keys,
#       ld.so.conf.d entries, nvidia and nouveau modprobe files, OpenCL and Vulkan ICD files, CUDA variables
#       and folders in shell profiles, NVIDIA's runtime in Docker's and containerd's configuration and its CDI
#       specs; at the end, what only the purged packages needed (apt's autoremove, limited to what this purge
#       orphaned). Edited and removed files are backed up; the trees are not.
# Why:  asked for by name; no check of this machine points to it.
# For:  host gpu-vm01, Red Hat Enterprise Linux 9.4 (Plow) (rhel 9.4, rhel family), kernel
#       5.14.0-427.13.1.el9_4.x86_64
#       gpu0 (0000:00:10.0): Tesla V100 PCIe 16GB (sm_70), driver nvidia
# From: snapshot tests/fixes/machines/rhel9-v100-cuda/snapshot, by gpudoctor (test).
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. prepare.download                       R--  Download everything the next steps install (and keep the
#                                                  old stack's packages for undo)
#   2. purge-nvidia.gpu-users                 R--  Stop what uses the NVIDIA GPU (nvidia-persistenced, the
#                                                  Fabric Manager, processes with /dev/nvidia* open)
#   3. purge-nvidia.packages                  RD-  Purge the CUDA, driver and NVIDIA container packages
#   4. purge-nvidia.trees                     RD-  Remove the CUDA folders no package owns any more
#   5. purge-nvidia.alternatives              R--  Remove update-alternatives entries that point nowhere
#   6. purge-nvidia.repositories              R--  Remove NVIDIA's package repositories, keys and pins
#   7. purge-nvidia.profiles                  R--  Remove CUDA variables and folders from shell profiles
#   8. purge-nvidia.driver-module             R--  Reset dnf's nvidia-driver module (an enabled stream would
#                                                  hold the next driver to the old branch)

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

GD_SCRIPT_ID='purge-nvidia-34a5c76e'
GD_FAMILY=rhel
GD_FOR_OS_ID=rhel
GD_FOR_OS_VERSION=9.4
GD_FOR_HOST=gpu-vm01
GD_KERNEL=5.14.0-427.13.1.el9_4.x86_64
GD_STEP_IDS=(
  prepare.download
  purge-nvidia.gpu-users
  purge-nvidia.packages
  purge-nvidia.trees
  purge-nvidia.alternatives
  purge-nvidia.repositories
  purge-nvidia.profiles
  purge-nvidia.driver-module
)
GD_STEP_TITLES=(
  'Download everything the next steps install (and keep the old stack'\''s packages for undo)'
  'Stop what uses the NVIDIA GPU (nvidia-persistenced, the Fabric Manager, processes with /dev/nvidia* open)'
  'Purge the CUDA, driver and NVIDIA container packages'
  'Remove the CUDA folders no package owns any more'
  'Remove update-alternatives entries that point nowhere'
  'Remove NVIDIA'\''s package repositories, keys and pins'
  'Remove CUDA variables and folders from shell profiles'
  'Reset dnf'\''s nvidia-driver module (an enabled stream would hold the next driver to the old branch)'
)
GD_STEP_FLAGS=(
  'root prepare'
  root
  'root destructive'
  'root destructive'
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

# 1. Download everything the next steps install (and keep the old stack's packages for undo) [root, prepare] (fixes/migrate.yaml:21)
gd_step_1() {
  gd_prepare_downloads
}
gd_verify_1() {
  gd_verify_downloads
}

# 2. Stop what uses the NVIDIA GPU (nvidia-persistenced, the Fabric Manager, processes with /dev/nvidia* open) [root] (fixes/purge-nvidia.yaml:33)
gd_step_2() {
  gd_stop_gpu_users '/dev/nvidia(ctl|-uvm|-uvm-tools|-modeset|[0-9]+)' '' nvidia-persistenced nvidia-fabricmanager
}
gd_verify_2() {
  gd_verify_no_gpu_users '/dev/nvidia(ctl|-uvm|-uvm-tools|-modeset|[0-9]+)'
}

# 3. Purge the CUDA, driver and NVIDIA container packages [root, destructive] (fixes/purge-nvidia.yaml:39)
gd_step_3() {
  gd_purge_packages cuda-drivers-535 cuda-nvcc-12-2 cuda-toolkit-12-2 kmod-nvidia-latest-dkms libnvidia-ml nvidia-driver nvidia-driver-libs nvidia-persistenced --
}
gd_verify_3() {
  gd_verify_not_installed cuda-drivers-535 cuda-nvcc-12-2 cuda-toolkit-12-2 kmod-nvidia-latest-dkms libnvidia-ml nvidia-driver nvidia-driver-libs nvidia-persistenced
}

# 4. Remove the CUDA folders no package owns any more [root, destructive] (fixes/purge-nvidia.yaml:60)
gd_step_4() {
  gd_remove_trees /usr/local/cuda-12.0 /usr/local/cuda
}
gd_verify_4() {
  gd_verify_absent /usr/local/cuda-12.0 /usr/local/cuda
}

# 5. Remove update-alternatives entries that point nowhere [root] (fixes/purge-nvidia.yaml:67)
gd_step_5() {
  gd_remove_dangling_alternatives cuda
}
gd_verify_5() {
  gd_verify_no_dangling_alternatives cuda
}

# 6. Remove NVIDIA's package repositories, keys and pins [root] (fixes/purge-nvidia.yaml:73)
gd_step_6() {
  gd_remove_files /etc/yum.repos.d/cuda-rhel9.repo
  gd_remove_source_lines developer.download.nvidia.com nvidia.github.io --
}
gd_verify_6() {
  gd_verify_absent /etc/yum.repos.d/cuda-rhel9.repo
  gd_verify_no_mentions developer.download.nvidia.com nvidia.github.io --
}

# 7. Remove CUDA variables and folders from shell profiles [root] (fixes/purge-nvidia.yaml:109)
gd_step_7() {
  gd_clean_profiles 'CUDA_[A-Z_]*|CUDNN_[A-Z_]*|NVIDIA_VISIBLE_DEVICES|NVIDIA_DRIVER_CAPABILITIES|TORCH_CUDA_ARCH_LIST|CUDAARCHS' '/usr/local/cuda(-[0-9][0-9.]*)?|\$\{?(CUDA_HOME|CUDA_PATH|CUDA_ROOT)\}?' --system /home/dana
}
gd_verify_7() {
  gd_verify_profiles 'CUDA_[A-Z_]*|CUDNN_[A-Z_]*|NVIDIA_VISIBLE_DEVICES|NVIDIA_DRIVER_CAPABILITIES|TORCH_CUDA_ARCH_LIST|CUDAARCHS' '/usr/local/cuda(-[0-9][0-9.]*)?|\$\{?(CUDA_HOME|CUDA_PATH|CUDA_ROOT)\}?' --system /home/dana
}

# 8. Reset dnf's nvidia-driver module (an enabled stream would hold the next driver to the old branch) [root] (fixes/purge-nvidia.yaml:132)
gd_step_8() {
  gd_reset_module nvidia-driver
}
gd_verify_8() {
  gd_verify_module_reset nvidia-driver
}

gd_main "$@"
