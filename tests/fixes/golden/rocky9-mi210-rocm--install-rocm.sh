#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor fix install-rocm: Install ROCm and the amdgpu driver
#
# What: Adds AMD's amdgpu and ROCm repositories for this OS release (or the --mirror, whose sources replace
#       AMD's) with their signing key (/etc/apt/keyrings/rocm.gpg) and pin, as AMD's guide does (an existing
#       source of the same repository is reused), installs the kernel headers, amdgpu-dkms and the rocm meta
#       package, registers /opt/rocm's libraries with the dynamic linker and adds the user to render and video
#       (AMD's native install guide). Under Secure Boot it leaves out amdgpu-dkms and the headers (ROCm's
#       --no-dkms path: the kernel's own amdgpu is signed). Needs a reboot.
#       (groups-render-video) Adds the user to the render and video groups, which own /dev/kfd and
#       /dev/dri/renderD* (AMD's ROCm install guide). The user must log out and in again (or run `newgrp
#       render`) for it to take effect.
# Why:  asked for by name; no check of this machine points to it.
# For:  host mi210-node03, Rocky Linux 9.4 (Blue Onyx) (rocky 9.4, rhel family), kernel
#       5.14.0-427.13.1.el9_4.x86_64
#       gpu0 (0000:63:00.0): AMD Instinct MI210 (gfx90a), driver amdgpu
# From: snapshot tests/fixes/machines/rocky9-mi210-rocm/snapshot, by gpudoctor (test).
#
# Notes:
#   - ROCm 6.2 (amdgpu 6.2.4, PyTorch rocm6.2.4) (--rocm)
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. install-rocm.epel                      R--  Enable the crb repository and EPEL (ROCm needs packages
#                                                  from them)
#   2. install-rocm.repositories              R--  Add AMD's amdgpu 6.2.4 and ROCm 6.2 repositories, their
#                                                  signing key and pin
#   3. prepare.download                       R--  Download everything the next steps install (and keep the
#                                                  old stack's packages for undo)
#   4. install-rocm.headers                   R--  Install the headers of the kernel (amdgpu-dkms is built
#                                                  against them)
#   5. install-rocm.driver                    R-B  Install the amdgpu kernel driver (amdgpu-dkms)
#   6. install-rocm.rocm                      R--  Install ROCm 6.2
#   7. install-rocm.ld-conf                   R--  Register ROCm's libraries with the dynamic linker
#   8. groups-render-video.groups             R--  Add the user to the render and video groups

set -euo pipefail

GD_SCRIPT_ID='install-rocm-16879560'
GD_FAMILY=rhel
GD_FOR_OS_ID=rocky
GD_FOR_OS_VERSION=9.4
GD_FOR_HOST=mi210-node03
GD_KERNEL=5.14.0-427.13.1.el9_4.x86_64
GD_STEP_IDS=(
  install-rocm.epel
  install-rocm.repositories
  prepare.download
  install-rocm.headers
  install-rocm.driver
  install-rocm.rocm
  install-rocm.ld-conf
  groups-render-video.groups
)
GD_STEP_TITLES=(
  'Enable the crb repository and EPEL (ROCm needs packages from them)'
  'Add AMD'\''s amdgpu 6.2.4 and ROCm 6.2 repositories, their signing key and pin'
  'Download everything the next steps install (and keep the old stack'\''s packages for undo)'
  'Install the headers of the kernel (amdgpu-dkms is built against them)'
  'Install the amdgpu kernel driver (amdgpu-dkms)'
  'Install ROCm 6.2'
  'Register ROCm'\''s libraries with the dynamic linker'
  'Add the user to the render and video groups'
)
GD_STEP_FLAGS=(
  root
  root
  root
  root
  'root reboot'
  root
  root
  root
)

# @gpudoctor-golden: fixes/lib.bash is pasted here

# ---- the steps ------------------------------------------------------------------------

# 1. Enable the crb repository and EPEL (ROCm needs packages from them) [root] (fixes/install-rocm.yaml:16)
gd_step_1() {
  gd_enable_dnf_repo crb
  gd_install_epel epel-release
}
gd_verify_1() {
  gd_verify_dnf_repo_enabled crb
  gd_verify_installed epel-release
}

# 2. Add AMD's amdgpu 6.2.4 and ROCm 6.2 repositories, their signing key and pin [root] (fixes/install-rocm.yaml:27)
gd_step_2() {
gd_write_file /etc/yum.repos.d/amdgpu.repo 0644 <<'REPO'
# gpudoctor-vendor: amd (written by gpudoctor for ROCm 6.2)
[amdgpu]
name=amdgpu 6.2.4
baseurl=https://repo.radeon.com/amdgpu/6.2.4/el/9.4/main/x86_64/
enabled=1
priority=50
gpgcheck=1
gpgkey=https://repo.radeon.com/rocm/rocm.gpg.key
REPO
gd_write_file /etc/yum.repos.d/rocm.repo 0644 <<'REPO'
# gpudoctor-vendor: amd (written by gpudoctor for ROCm 6.2)
[rocm]
name=ROCm 6.2
baseurl=https://repo.radeon.com/rocm/el9/6.2.4/main
enabled=1
priority=50
gpgcheck=1
gpgkey=https://repo.radeon.com/rocm/rocm.gpg.key
REPO
}
gd_verify_2() {
  gd_verify_nonempty /etc/yum.repos.d/rocm.repo /etc/yum.repos.d/amdgpu.repo
}

# 3. Download everything the next steps install (and keep the old stack's packages for undo) [root] (fixes/migrate.yaml:18)
gd_step_3() {
  gd_prepare_downloads
}
gd_verify_3() {
  gd_verify_downloads
}

# 4. Install the headers of the kernel (amdgpu-dkms is built against them) [root] (fixes/install-rocm.yaml:78)
gd_step_4() {
  gd_install_packages "kernel-devel-$(gd_kernel)" kernel-headers
}
gd_verify_4() {
  gd_verify_installed "kernel-devel-$(gd_kernel)"
}

# 5. Install the amdgpu kernel driver (amdgpu-dkms) [root, reboot] (fixes/install-rocm.yaml:92)
gd_step_5() {
  gd_install_packages amdgpu-dkms
}
gd_verify_5() {
  gd_verify_installed amdgpu-dkms
}

# 6. Install ROCm 6.2 [root] (fixes/install-rocm.yaml:99)
gd_step_6() {
  gd_install_packages rocm
}
gd_verify_6() {
  gd_verify_installed rocm
}

# 7. Register ROCm's libraries with the dynamic linker [root] (fixes/install-rocm.yaml:104)
gd_step_7() {
local before=$GD_CHANGES
gd_write_file /etc/ld.so.conf.d/rocm.conf 0644 <<'CONF'
/opt/rocm/lib
/opt/rocm/lib64
CONF
if ((GD_CHANGES > before)); then gd_owe ldconfig; fi
gd_settle
}
gd_verify_7() {
  grep -qx /opt/rocm/lib /etc/ld.so.conf.d/rocm.conf
}

# 8. Add the user to the render and video groups [root] (fixes/groups-render-video.yaml:9)
gd_step_8() {
  gd_add_groups ravi render video
}
gd_verify_8() {
  gd_verify_in_groups ravi render video
}

gd_main "$@"
