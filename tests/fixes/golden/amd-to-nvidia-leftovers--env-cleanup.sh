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

set -euo pipefail

GD_SCRIPT_ID='env-cleanup-893c8aef'
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

# @gpudoctor-golden: fixes/lib.bash is pasted here

# ---- the steps ------------------------------------------------------------------------

# 1. Remove the stack's variables and folders from the users' shell profiles (fixes/env-cleanup.yaml:11)
gd_step_1() {
  gd_clean_profiles 'ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|HCC_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL|MIOPEN_[A-Z_]*' '/opt/rocm(-[0-9][0-9.]*)?|\$\{?(ROCM_PATH|ROCM_HOME|HIP_PATH)\}?' /home/sam
}
gd_verify_1() {
  gd_verify_profiles 'ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|HCC_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL|MIOPEN_[A-Z_]*' '/opt/rocm(-[0-9][0-9.]*)?|\$\{?(ROCM_PATH|ROCM_HOME|HIP_PATH)\}?' /home/sam
}

gd_main "$@"
