#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix groups-render-video: Add the user to render and video
#
# What: Adds the user to the render and video groups, which own /dev/kfd and /dev/dri/renderD* (AMD's ROCm
#       install guide). The user must log out and in again (or run `newgrp render`) for it to take effect.
# Why:  perm.kfd (error): User navin cannot open /dev/kfd read-write, so ROCm sees no GPU: /dev/kfd is mode
#         0660, group render, and user navin is not in group render. Add the user to the render and video
#         groups, then log in again.
#       perm.render-node (error, gpu0 (0000:30:00.0)): User navin cannot open /dev/dri/renderD128:
#         /dev/dri/renderD128 is mode 0660, group render, and user navin is not in group render. Add the user
#         to the render and video groups, then log in again.
# For:  host navin-pc, Linux Mint 21 (linuxmint 21, debian family), kernel 5.15.0-76-generic
#       gpu0 (0000:30:00.0): Cezanne [Radeon Vega Series / Radeon Vega Mobile Series] (gfx90c), driver amdgpu
# From: snapshot tests/machines/amd-user-not-in-render/snapshot, by gpudoctor (test).
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. groups-render-video.groups             R--  Add the user to the render and video groups

set -euo pipefail

GD_SCRIPT_ID='groups-render-video-dd5087eb'
GD_FAMILY=debian
GD_FOR_OS_ID=linuxmint
GD_FOR_OS_VERSION=21
GD_FOR_HOST=navin-pc
GD_KERNEL=5.15.0-76-generic
GD_STEP_IDS=(
  groups-render-video.groups
)
GD_STEP_TITLES=(
  'Add the user to the render and video groups'
)
GD_STEP_FLAGS=(
  root
)

# @gpudoctor-golden: fixes/lib.bash is pasted here

# ---- the steps ------------------------------------------------------------------------

# 1. Add the user to the render and video groups [root] (fixes/groups-render-video.yaml:9)
gd_step_1() {
  gd_add_groups navin render video
}
gd_verify_1() {
  gd_verify_in_groups navin render video
}

gd_main "$@"
