#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix env-cuda-paths: Point the CUDA paths at one toolkit
#
# What: Removes CUDA_HOME, CUDA_PATH and CUDA folders from the users' shell profiles, then names one toolkit,
#       the one gpudoctor chose (/usr/local/cuda-12.0: the newest installed one the driver runs), in
#       /etc/profile.d/cuda-path.sh and as the update-alternatives choice for /usr/local/cuda, and takes a
#       toolkit's stubs folder out of the dynamic loader's configuration (env.cuda-stubs; LD_LIBRARY_PATH
#       entries under a CUDA folder go with the profiles' CUDA folders). Open a new shell afterwards.
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
#   1. env-cuda-paths.user-profiles           ---  Remove CUDA variables and folders from the users' shell
#                                                  profiles
#   2. env-cuda-paths.system-profile          R--  Name /usr/local/cuda-12.0 in /etc/profile.d/cuda-path.sh

set -euo pipefail

GD_SCRIPT_ID='env-cuda-paths-cdfb24d5'
GD_FAMILY=rhel
GD_FOR_OS_ID=rhel
GD_FOR_OS_VERSION=9.4
GD_FOR_HOST=gpu-vm01
GD_KERNEL=5.14.0-427.13.1.el9_4.x86_64
GD_STEP_IDS=(
  env-cuda-paths.user-profiles
  env-cuda-paths.system-profile
)
GD_STEP_TITLES=(
  'Remove CUDA variables and folders from the users'\'' shell profiles'
  'Name /usr/local/cuda-12.0 in /etc/profile.d/cuda-path.sh'
)
GD_STEP_FLAGS=(
  ''
  root
)

# @gpudoctor-golden: fixes/lib.bash is pasted here

# ---- the steps ------------------------------------------------------------------------

# 1. Remove CUDA variables and folders from the users' shell profiles (fixes/env-cuda-paths.yaml:13)
gd_step_1() {
  gd_clean_profiles 'CUDA_HOME|CUDA_PATH|CUDA_ROOT' '/usr/local/cuda(-[0-9][0-9.]*)?|\$\{?(CUDA_HOME|CUDA_PATH|CUDA_ROOT)\}?' /home/dana
}
gd_verify_1() {
  gd_verify_profiles 'CUDA_HOME|CUDA_PATH|CUDA_ROOT' '/usr/local/cuda(-[0-9][0-9.]*)?|\$\{?(CUDA_HOME|CUDA_PATH|CUDA_ROOT)\}?' /home/dana
}

# 2. Name /usr/local/cuda-12.0 in /etc/profile.d/cuda-path.sh [root] (fixes/env-cuda-paths.yaml:18)
gd_step_2() {
gd_write_file /etc/profile.d/cuda-path.sh 0644 <<'PROFILE'
# Written by gpudoctor (env-cuda-paths): one CUDA toolkit for PATH and CUDA_HOME.
export CUDA_HOME=/usr/local/cuda-12.0
export PATH=/usr/local/cuda-12.0/bin${PATH:+:${PATH}}
PROFILE
if [[ -L /etc/alternatives/cuda && $(readlink /etc/alternatives/cuda) != /usr/local/cuda-12.0 ]]; then
  gd_run update-alternatives --set cuda /usr/local/cuda-12.0
fi
}
gd_verify_2() {
  grep -qF /usr/local/cuda-12.0 /etc/profile.d/cuda-path.sh
}

gd_main "$@"
