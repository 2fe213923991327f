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
# Why:  torch.arch-missing (error, gpu0 (0000:c5:00.0)): PyTorch 2.5.1+cu124 (cu124 wheels of 2.5, which carry
#         [sm_50, sm_60, sm_70, sm_75, sm_80, sm_86, sm_90]) has no code for this GPU's sm_120 (NVIDIA GeForce
#         RTX 5090): kernels fail with "no kernel image is available for execution on the device". The first
#         release whose wheels carry sm_120 is PyTorch 2.7 on https://download.pytorch.org/whl/cu128 (the
#         newest: 2.14 on https://download.pytorch.org/whl/cu130). Run with --probes to ask PyTorch itself.
# For:  host gpu-vm01, Ubuntu 22.04.4 LTS (ubuntu 22.04, debian family), kernel 5.15.0-105-generic
#       gpu0 (0000:c5:00.0): NVIDIA GeForce RTX 5090 (sm_120), driver nvidia
# From: snapshot tests/machines/nvidia-rtx5090-torch-cu124/snapshot, by gpudoctor (test).
#
# Notes:
#   - PyTorch index cu130: PyTorch 2.14 for CUDA 13.0, the newest release whose CUDA driver 595.71.05 runs
#     (minor-version compatibility included) and whose wheels carry code for sm_120
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. torch-reinstall.reinstall              ---  Reinstall torch from https://download.pytorch.org/whl/cu130

set -euo pipefail

GD_SCRIPT_ID='torch-reinstall-105120f3'
GD_FAMILY=debian
GD_FOR_OS_ID=ubuntu
GD_FOR_OS_VERSION=22.04
GD_FOR_HOST=gpu-vm01
GD_KERNEL=5.15.0-105-generic
GD_STEP_IDS=(
  torch-reinstall.reinstall
)
GD_STEP_TITLES=(
  'Reinstall torch from https://download.pytorch.org/whl/cu130'
)
GD_STEP_FLAGS=(
  ''
)

# @gpudoctor-golden: fixes/lib.bash is pasted here

# ---- the steps ------------------------------------------------------------------------

# 1. Reinstall torch from https://download.pytorch.org/whl/cu130 (fixes/torch-reinstall.yaml:14)
gd_step_1() {
  gd_torch_reinstall dana https://download.pytorch.org/whl/cu130 cu130 torch /home/dana/venvs/comfy/bin/python3 -- pytorch-triton-rocm
}
gd_verify_1() {
  gd_verify_torch cu130 /home/dana/venvs/comfy/bin/python3
}

gd_main "$@"
