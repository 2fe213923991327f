#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix torch-reinstall: Reinstall PyTorch from the right wheel index
#
# What: Replaces torch (and torchvision and torchaudio where installed) in the virtual and conda environments
#       gpudoctor found with the build for this machine's GPU, removing the other vendor's companion wheels
#       (pytorch-triton-rocm, nvidia-*-cu12) that only PyTorch needed, from PyTorch's wheel index for the CUDA
#       or ROCm release chosen from the knowledge tables (a CUDA build the driver runs and that has the GPU's
#       sm_XX, or the ROCm build of the installed release). When pip fails, the environment is put back as it
#       was. Only virtual environments and conda environments are changed, never the system Python.
# Why:  torch.vendor-mismatch (error, python3 (PATH: /home/sam/venvs/sd-rocm/bin/python3)): PyTorch
#         2.3.1+rocm6.0 is a ROCm (HIP 6.0.32830-d62f6a171) build but this machine has only NVIDIA GPUs: it
#         will not see them. Reinstall PyTorch from the CUDA wheel index.
# For:  host sd-vm, Ubuntu 22.04.4 LTS (ubuntu 22.04, debian family), kernel 5.15.0-105-generic
#       gpu0 (0000:00:10.0): NVIDIA GeForce RTX 3090 (sm_86), driver nvidia
# From: snapshot tests/machines/amd-to-nvidia-leftovers/snapshot, by gpudoctor (test).
#
# Notes:
#   - PyTorch index cu126: PyTorch 2.14 for CUDA 12.6, the newest release whose CUDA driver 525.147.05 runs
#     (minor-version compatibility included) and whose wheels carry code for sm_86
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. torch-reinstall.reinstall              ---  Reinstall torch from https://download.pytorch.org/whl/cu126

set -euo pipefail

GD_SCRIPT_ID='torch-reinstall-a2e94b95'
GD_FAMILY=debian
GD_FOR_OS_ID=ubuntu
GD_FOR_OS_VERSION=22.04
GD_FOR_HOST=sd-vm
GD_KERNEL=5.15.0-105-generic
GD_STEP_IDS=(
  torch-reinstall.reinstall
)
GD_STEP_TITLES=(
  'Reinstall torch from https://download.pytorch.org/whl/cu126'
)
GD_STEP_FLAGS=(
  ''
)

# @gpudoctor-golden: fixes/lib.bash is pasted here

# ---- the steps ------------------------------------------------------------------------

# 1. Reinstall torch from https://download.pytorch.org/whl/cu126 (fixes/torch-reinstall.yaml:14)
gd_step_1() {
  gd_torch_reinstall sam https://download.pytorch.org/whl/cu126 cu126 torch /home/sam/venvs/sd-rocm/bin/python3 -- pytorch-triton-rocm
}
gd_verify_1() {
  gd_verify_torch cu126 /home/sam/venvs/sd-rocm/bin/python3
}

gd_main "$@"
