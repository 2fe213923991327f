#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix blacklist-nouveau: Blacklist nouveau
#
# What: Writes /etc/modprobe.d/blacklist-nouveau.conf (blacklist nouveau, options nouveau modeset=0) and
#       rebuilds the initramfs, so nouveau does not take the GPU at the next boot and the NVIDIA driver can.
#       Needs a reboot.
# Why:  driver.nouveau (error, gpu0 (0000:01:00.0)): The open-source nouveau driver owns this GPU; CUDA needs
#         the NVIDIA driver. Blacklist nouveau, rebuild the initramfs and reboot.
# For:  host mei-desktop, Ubuntu 22.04.4 LTS (ubuntu 22.04, debian family), kernel 6.5.0-28-generic
#       gpu0 (0000:01:00.0): NVIDIA GeForce RTX 3060 (sm_86), driver nouveau
# From: snapshot tests/machines/nvidia-nouveau/snapshot, by gpudoctor (test).
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. blacklist-nouveau.modprobe             R-B  Blacklist nouveau and rebuild the initramfs

set -euo pipefail

GD_SCRIPT_ID='blacklist-nouveau-9d4852fe'
GD_FAMILY=debian
GD_FOR_OS_ID=ubuntu
GD_FOR_OS_VERSION=22.04
GD_FOR_HOST=mei-desktop
GD_KERNEL=6.5.0-28-generic
GD_STEP_IDS=(
  blacklist-nouveau.modprobe
)
GD_STEP_TITLES=(
  'Blacklist nouveau and rebuild the initramfs'
)
GD_STEP_FLAGS=(
  'root reboot'
)

# @gpudoctor-golden: fixes/lib.bash is pasted here

# ---- the steps ------------------------------------------------------------------------

# 1. Blacklist nouveau and rebuild the initramfs [root, reboot] (fixes/blacklist-nouveau.yaml:9)
gd_step_1() {
local before=$GD_CHANGES
gd_write_file /etc/modprobe.d/blacklist-nouveau.conf 0644 <<'CONF'
# Written by gpudoctor (fix blacklist-nouveau): the NVIDIA driver cannot load while nouveau holds the GPU.
blacklist nouveau
options nouveau modeset=0
CONF
if ((GD_CHANGES > before)); then gd_owe initramfs; fi
gd_settle
}
gd_verify_1() {
  grep -qx 'blacklist nouveau' /etc/modprobe.d/blacklist-nouveau.conf
}

gd_main "$@"
