#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix env-cuda-paths: Point the CUDA paths at one toolkit
#
# What: Removes CUDA_HOME, CUDA_PATH and CUDA folders from the users' shell profiles, then names one toolkit,
#       the one gpudoctor chose (/usr/local/cuda-12.0: the newest installed one the driver runs), in
#       /etc/profile.d/cuda-path.sh and as the update-alternatives choice for /usr/local/cuda, and takes a
#       toolkit's stubs folder out of the dynamic loader's configuration (env.cuda-stubs; LD_LIBRARY_PATH
#       entries under a CUDA folder go with the profiles' CUDA folders). Open a new shell afterwards.
# Why:  env.cuda-stubs (error, /usr/local/cuda-12.0/targets/x86_64-linux/lib/stubs):
#         /usr/local/cuda-12.0/targets/x86_64-linux/lib/stubs (/etc/ld.so.conf.d/cuda-stubs.conf:1) is a CUDA
#         toolkit's stubs folder holding a libcuda.so.1: every CUDA program loads this stub instead of the
#         driver and fails with "CUDA driver version is insufficient" or error 34 (stub library). Remove the
#         folder from the loader's path (and the libcuda.so.1 someone linked into it).
# For:  host gpu-vm01, Ubuntu 22.04.4 LTS (ubuntu 22.04, debian family), kernel 5.15.0-105-generic
#       gpu0 (0000:00:10.0): NVIDIA GeForce RTX 3090 (sm_86), driver nvidia
# From: snapshot tests/machines/nvidia-cuda-stubs-ld-conf/snapshot, by gpudoctor (test).
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
#   3. env-cuda-paths.loader-stubs            R--  Remove CUDA stubs folders from the dynamic loader's
#                                                  configuration

set -euo pipefail

GD_SCRIPT_ID='env-cuda-paths-b261849a'
GD_FAMILY=debian
GD_FOR_OS_ID=ubuntu
GD_FOR_OS_VERSION=22.04
GD_FOR_HOST=gpu-vm01
GD_KERNEL=5.15.0-105-generic
GD_STEP_IDS=(
  env-cuda-paths.user-profiles
  env-cuda-paths.system-profile
  env-cuda-paths.loader-stubs
)
GD_STEP_TITLES=(
  'Remove CUDA variables and folders from the users'\'' shell profiles'
  'Name /usr/local/cuda-12.0 in /etc/profile.d/cuda-path.sh'
  'Remove CUDA stubs folders from the dynamic loader'\''s configuration'
)
GD_STEP_FLAGS=(
  ''
  root
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

# 3. Remove CUDA stubs folders from the dynamic loader's configuration [root] (fixes/env-cuda-paths.yaml:32)
gd_step_3() {
  local before=$GD_CHANGES
  gd_clean_ld_conf '/usr/local/cuda-12\.0/targets/x86_64-linux/lib/stubs' /etc/ld.so.conf.d/cuda-stubs.conf
  if ((GD_CHANGES > before)); then gd_ldconfig; fi
}
gd_verify_3() {
  gd_verify_ld_conf '/usr/local/cuda-12\.0/targets/x86_64-linux/lib/stubs' /etc/ld.so.conf.d/cuda-stubs.conf
}

gd_main "$@"
