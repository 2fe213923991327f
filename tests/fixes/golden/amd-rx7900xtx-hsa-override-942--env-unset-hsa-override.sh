#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix env-unset-hsa-override: Unset HSA_OVERRIDE_GFX_VERSION
#
# What: Removes HSA_OVERRIDE_GFX_VERSION (and its per-node _N forms) from the users' shell profiles, and from
#       the system-wide ones where they set it. Open a new shell afterwards (or `unset
#       HSA_OVERRIDE_GFX_VERSION`). A service that sets it (a systemd unit's Environment=) is not edited:
#       check `systemctl cat` for it.
# Why:  env.hsa-override-mismatch (error, gpu0 (0000:03:00.0)): HSA_OVERRIDE_GFX_VERSION=9.4.2 makes ROCm load
#         gfx942 code, but GPU 0 (AMD Radeon RX 7900 XTX) is gfx1100, of another ISA family (GFX9 (Vega/CDNA)
#         vs GFX11 (RDNA3)): expect GPU faults, hangs or wrong results. Unset it.
# For:  host navi-box, Ubuntu 22.04.4 LTS (ubuntu 22.04, debian family), kernel 6.5.0-21-generic
#       gpu0 (0000:03:00.0): AMD Radeon RX 7900 XTX (gfx1100), driver amdgpu
# From: snapshot tests/machines/amd-rx7900xtx-hsa-override-942/snapshot, by gpudoctor (test).
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. env-unset-hsa-override.user-profiles   ---  Remove HSA_OVERRIDE_GFX_VERSION from the users' shell
#                                                  profiles

set -euo pipefail

GD_SCRIPT_ID='env-unset-hsa-override-8917a5bf'
GD_FAMILY=debian
GD_FOR_OS_ID=ubuntu
GD_FOR_OS_VERSION=22.04
GD_FOR_HOST=navi-box
GD_KERNEL=6.5.0-21-generic
GD_STEP_IDS=(
  env-unset-hsa-override.user-profiles
)
GD_STEP_TITLES=(
  'Remove HSA_OVERRIDE_GFX_VERSION from the users'\'' shell profiles'
)
GD_STEP_FLAGS=(
  ''
)

# @gpudoctor-golden: fixes/lib.bash is pasted here

# ---- the steps ------------------------------------------------------------------------

# 1. Remove HSA_OVERRIDE_GFX_VERSION from the users' shell profiles (fixes/env-unset-hsa-override.yaml:10)
gd_step_1() {
  gd_clean_profiles 'HSA_OVERRIDE_GFX_VERSION(_[0-9]+)?' '' /home/lena
}
gd_verify_1() {
  gd_verify_profiles 'HSA_OVERRIDE_GFX_VERSION(_[0-9]+)?' '' /home/lena
}

gd_main "$@"
