#!/usr/bin/env bash
# shellcheck disable=SC2119,SC2120
# gpudoctor migrate: Move this machine to NVIDIA (CUDA)
#
# What: (purge-rocm) Purges the ROCm and amdgpu-dkms packages that are installed (exactly those, never Mesa's
#       graphics packages nor another vendor's; the script stops if the package manager would take anything
#       else with them), then what they leave: /opt/rocm* and DKMS trees, update-alternatives entries, AMD's
#       repositories, keys and pins, ld.so.conf.d entries, amdgpu modprobe files, OpenCL ICD files, and ROCm
#       variables and folders in shell profiles. Edited and removed files are backed up; the trees are not.
#       (install-nvidia) Adds NVIDIA's CUDA repository for this OS release (or the --mirror), installs the
#       kernel headers, the driver branch the chosen CUDA release needs (open kernel modules for Turing and
#       later, NVIDIA's proprietary ones before), the CUDA toolkit, puts it on PATH for login shells, and
#       blacklists nouveau. Needs a reboot.
#       (blacklist-nouveau) Writes /etc/modprobe.d/blacklist-nouveau.conf (blacklist nouveau, options nouveau
#       modeset=0) and rebuilds the initramfs, so nouveau does not take the GPU at the next boot and the
#       NVIDIA driver can. Needs a reboot.
#       (torch-reinstall) Replaces torch (and torchvision and torchaudio where installed) in the Python
#       environment in use with the build for this machine's GPU, from PyTorch's wheel index for the CUDA or
#       ROCm release chosen from the knowledge tables (a CUDA build the driver runs and that has the GPU's
#       sm_XX, or the ROCm build of the installed release). Only virtual environments and conda environments
#       are changed, never the system Python.
#       (reboot) Reboots so the kernel module that matches the installed user-space driver is loaded. Run the
#       script again after the reboot and it goes on after this step.
# Why:  stack.leftover-paths (warn, /home/dana/.bashrc): /home/dana/.bashrc names 2 GPU-stack folders that are
#         missing: leftovers of an uninstalled or replaced stack. They slow every command lookup at best, and
#         load the wrong libraries at worst. Remove them.
# For:  host gpu-vm01, Red Hat Enterprise Linux 9.4 (Plow) (rhel 9.4, rhel family), kernel
#       5.14.0-427.13.1.el9_4.x86_64
#       gpu0 (0000:00:10.0): Tesla V100 PCIe 16GB (sm_70), driver nvidia
# From: snapshot tests/fixes/machines/rhel9-v100-cuda/snapshot, by gpudoctor (test).
#
# Notes:
#   - CUDA 12.6 (the newest gpudoctor installs that builds for Tesla V100 PCIe 16GB (sm_70)) with driver
#     branch 560 (CUDA 12.6 needs 560.28.03 or newer)
#   - proprietary kernel modules: the open modules do not drive Tesla V100 PCIe 16GB (Volta)
#   - PyTorch from the cu126 wheel index: the newest whose CUDA driver 560 runs and whose wheels build for
#     these GPUs
#   - the signing key URL https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64/D42D0685.pub
#     is not confirmed
#   - no virtual or conda environment is in use: PyTorch is not reinstalled (gpudoctor never pip-installs into
#     the system Python)
#
# Run it with --dry-run first: it prints every command and every change and changes nothing.
# It refuses another OS release or host than the one above, writes a journal of every step to
# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under
# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes nothing.
#
# Steps (R: needs root, D: destructive, B: needs a reboot):
#   1. purge-rocm.profiles                    R--  Remove ROCm variables and folders from shell profiles
#   2. install-nvidia.repository              R--  Add NVIDIA's CUDA repository and its signing key
#   3. install-nvidia.headers                 R--  Install the headers of the kernel (the driver's DKMS module
#                                                  is built against them)
#   4. install-nvidia.driver-stream           R--  Enable the driver's module stream 560-dkms
#   5. install-nvidia.driver                  R-B  Install the NVIDIA driver 560 (proprietary kernel modules)
#   6. install-nvidia.toolkit                 R--  Install the CUDA toolkit 12.6
#   7. install-nvidia.path                    R--  Put CUDA 12.6 on PATH for login shells
#   8. blacklist-nouveau.modprobe             R-B  Blacklist nouveau and rebuild the initramfs
#   9. reboot.reboot                          R-B  Reboot the machine
#  10. migrate.check                          ---  Check the machine with gpudoctor (what must pass now)
# Afterwards these checks must pass: driver.not-bound driver.nouveau driver.nvidia-mismatch cuda.no-driver
#   cuda.driver-too-old stack.both-vendors stack.leftover-paths torch.cpu-build torch.vendor-mismatch
#   torch.arch-missing torch.cuda-too-new perm.nvidia-dev

set -euo pipefail

GD_SCRIPT_ID=migrate-to-nvidia-9046a979
GD_FAMILY=rhel
GD_FOR_OS_ID=rhel
GD_FOR_OS_VERSION=9.4
GD_FOR_HOST=gpu-vm01
GD_KERNEL=5.14.0-427.13.1.el9_4.x86_64
GD_STEP_IDS=(
  purge-rocm.profiles
  install-nvidia.repository
  install-nvidia.headers
  install-nvidia.driver-stream
  install-nvidia.driver
  install-nvidia.toolkit
  install-nvidia.path
  blacklist-nouveau.modprobe
  reboot.reboot
  migrate.check
)
GD_STEP_TITLES=(
  'Remove ROCm variables and folders from shell profiles'
  'Add NVIDIA'\''s CUDA repository and its signing key'
  'Install the headers of the kernel (the driver'\''s DKMS module is built against them)'
  'Enable the driver'\''s module stream 560-dkms'
  'Install the NVIDIA driver 560 (proprietary kernel modules)'
  'Install the CUDA toolkit 12.6'
  'Put CUDA 12.6 on PATH for login shells'
  'Blacklist nouveau and rebuild the initramfs'
  'Reboot the machine'
  'Check the machine with gpudoctor (what must pass now)'
)
GD_STEP_FLAGS=(
  root
  root
  root
  root
  'root reboot'
  root
  root
  'root reboot'
  'root reboot'
  ''
)

# ---------------------------------------------------------------------------------------------------------
# gpudoctor script library (fixes/lib.bash), copied into every script gpudoctor writes, so a script runs on
# its own. Every change to the machine goes through these functions: they print what they do, do nothing
# with --dry-run, write the journal, back up every file before changing it and replace files atomically
# (temporary file in the same folder, fsync, rename). Each one checks the state first, so a second run
# changes nothing. Documented in docs/fixes.md.
# ---------------------------------------------------------------------------------------------------------
# shellcheck shell=bash

GD_DRY_RUN=0
GD_ANY_HOST=0
GD_NO_REBOOT=0
GD_ONLY_STEP=
GD_RUN_ID=
GD_STEP=-
GD_PHASE=
GD_APT_UPDATED=0
GD_CHANGES=0

gd_say() { printf '%s\n' "$*"; }
gd_note() { printf '    %s\n' "$*"; }
gd_die() {
  printf 'gpudoctor script: %s\n' "$*" >&2
  exit 1
}
gd_now() { date -u +%Y-%m-%dT%H:%M:%SZ; }
gd_is_root() { [[ $(id -u) -eq 0 ]]; }

# Words as bash would need them typed.
gd_quote() {
  local out='' word
  for word in "$@"; do out+=" $(printf '%q' "$word")"; done
  printf '%s' "${out# }"
}

# Whether $1 is one of the remaining arguments.
gd_in_list() {
  local want=$1 item
  shift
  for item in "$@"; do
    if [[ $item == "$want" ]]; then return 0; fi
  done
  return 1
}

gd_init_dirs() {
  if gd_is_root; then
    GD_LOG_DIR=/var/log/gpudoctor
    GD_BACKUP_ROOT=/var/backups/gpudoctor
  else
    local state=${XDG_STATE_HOME:-$HOME/.local/state}/gpudoctor
    GD_LOG_DIR=$state/log
    GD_BACKUP_ROOT=$state/backups
  fi
  GD_JOURNAL=$GD_LOG_DIR/$GD_SCRIPT_ID.journal
  if [[ -z $GD_RUN_ID ]]; then GD_RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)-$$; fi
  GD_BACKUP_DIR=$GD_BACKUP_ROOT/$GD_SCRIPT_ID/$GD_RUN_ID
}

# One journal line: time, run, step, event, arguments (tab-separated). Nothing is written with --dry-run.
gd_journal() {
  if ((GD_DRY_RUN)); then return 0; fi
  mkdir -p -- "$GD_LOG_DIR"
  local IFS=$'\t'
  printf '%s\t%s\t%s\t%s\n' "$(gd_now)" "$GD_RUN_ID" "$GD_STEP" "$*" >>"$GD_JOURNAL"
}
gd_journal_sync() {
  if ((GD_DRY_RUN)); then return 0; fi
  sync -- "$GD_JOURNAL"
}

# Runs a command that changes the machine (only prints it with --dry-run).
gd_run() {
  if ((GD_DRY_RUN)); then
    gd_note "would run: $(gd_quote "$@")"
    return 0
  fi
  gd_note "+ $(gd_quote "$@")"
  "$@"
}

# Runs a command as the user the script was made for (with runuser when the script runs as root).
gd_as_user() {
  local user=$1
  shift
  if [[ $(id -un) == "$user" ]]; then
    gd_run "$@"
  elif gd_is_root; then
    gd_run runuser -u "$user" -- "$@"
  else
    gd_die "this step runs as $user: run the script as $user or as root"
  fi
}

gd_have() { command -v "$1" >/dev/null 2>&1; }

# The kernel the script was made for, else the running one.
gd_kernel() { printf '%s' "${GD_KERNEL:-$(uname -r)}"; }

# ---- files ----------------------------------------------------------------------------------------------

# Copies FILE into this run's backup folder (once per run: the first copy is the state before the run).
gd_backup() {
  local file=$1 dest=$GD_BACKUP_DIR$1
  if [[ ! -e $dest && ! -L $dest ]]; then
    # Backups may hold secrets (a profile's tokens): only root (or the user) may read them.
    if [[ ! -d $GD_BACKUP_ROOT ]]; then (umask 077 && mkdir -p -- "$GD_BACKUP_ROOT"); fi
    mkdir -p -- "${dest%/*}"
    cp -P -p -- "$file" "$dest"
    sync -- "$dest"
  fi
  gd_journal backup "$file" "$dest"
  gd_journal_sync
}

# The folder of a path, for fsync after a rename.
gd_dir_of() {
  local dir=${1%/*}
  printf '%s' "${dir:-/}"
}

# gd_edit_file FILE FILTER [ARG...]: replaces FILE by what `FILTER ARG... <FILE` prints, atomically and
# with a backup; nothing happens when the output equals the file. With --dry-run it prints the diff.
gd_edit_file() {
  local file=$1 dir tmp
  shift
  if [[ -L $file ]]; then
    gd_note "$file is a symbolic link: not edited"
    return 0
  fi
  if [[ ! -f $file ]]; then return 0; fi
  if ((GD_DRY_RUN)); then
    # shellcheck disable=SC2094 # the file is only read here
    "$@" <"$file" | diff -u --label "$file" --label "$file (after)" -- "$file" - | sed 's/^/      /' || true
    return 0
  fi
  dir=$(gd_dir_of "$file")
  tmp=$(mktemp "$dir/.gpudoctor-XXXXXX.tmp")
  if ! "$@" <"$file" >"$tmp"; then
    rm -f -- "$tmp"
    gd_die "could not filter $file"
  fi
  if cmp -s -- "$file" "$tmp"; then
    rm -f -- "$tmp"
    return 0
  fi
  gd_backup "$file"
  chown --reference="$file" -- "$tmp" 2>/dev/null || true
  chmod --reference="$file" -- "$tmp"
  sync -- "$tmp"
  mv -f -- "$tmp" "$file"
  sync -- "$dir"
  gd_journal edited "$file"
  GD_CHANGES=$((GD_CHANGES + 1))
  gd_note "edited $file (backup: $GD_BACKUP_DIR$file)"
}

# gd_write_file FILE MODE <CONTENT: makes FILE hold exactly CONTENT, atomically (backup when it existed).
gd_write_file() {
  local file=$1 mode=$2 content current dir tmp
  content=$(
    cat
    printf x
  )
  content=${content%x}
  if [[ -f $file && ! -L $file ]]; then
    current=$(
      cat -- "$file"
      printf x
    )
    if [[ ${current%x} == "$content" ]]; then return 0; fi
  fi
  if ((GD_DRY_RUN)); then
    gd_note "would write $file:"
    printf '%s' "$content" | sed 's/^/      /'
    return 0
  fi
  dir=$(gd_dir_of "$file")
  mkdir -p -- "$dir"
  tmp=$(mktemp "$dir/.gpudoctor-XXXXXX.tmp")
  printf '%s' "$content" >"$tmp"
  chmod "$mode" -- "$tmp"
  sync -- "$tmp"
  if [[ -e $file || -L $file ]]; then
    gd_backup "$file"
  else
    gd_journal created "$file"
    gd_journal_sync
  fi
  mv -f -- "$tmp" "$file"
  sync -- "$dir"
  GD_CHANGES=$((GD_CHANGES + 1))
  # A new package source: the index is updated again before the next install.
  case $file in /etc/apt/* | /etc/yum.repos.d/*) GD_APT_UPDATED=0 ;; esac
  gd_note "wrote $file"
}

# Removes files (or symbolic links), keeping a backup of each.
gd_remove_files() {
  local file dir
  for file in "$@"; do
    if [[ ! -e $file && ! -L $file ]]; then continue; fi
    if [[ -d $file && ! -L $file ]]; then
      gd_note "$file is a folder: not removed"
      continue
    fi
    if gd_owned_by_package "$file"; then
      gd_note "$file belongs to an installed package: left to the package manager"
      continue
    fi
    if ((GD_DRY_RUN)); then
      gd_note "would remove $file (keeping a backup)"
      continue
    fi
    gd_backup "$file"
    rm -f -- "$file"
    dir=$(gd_dir_of "$file")
    sync -- "$dir"
    gd_journal removed-file "$file" "$GD_BACKUP_DIR$file"
    GD_CHANGES=$((GD_CHANGES + 1))
    gd_note "removed $file (backup: $GD_BACKUP_DIR$file)"
  done
}

# The vendor trees gpudoctor may delete without a backup; anything else is refused.
gd_tree_allowed() {
  [[ $1 =~ ^/opt/rocm(-[0-9][0-9.]*)?$ || $1 =~ ^/usr/local/cuda(-[0-9][0-9.]*)?$ ||
    $1 =~ ^/var/lib/dkms/(amdgpu|nvidia[a-z-]*)(/[^/]+)?$ ||
    $1 =~ ^/usr/src/(amdgpu|nvidia[a-z-]*)-[0-9][^/]*$ ]]
}

# Removes vendor trees (/opt/rocm-6.2.4, /usr/local/cuda-12.4, DKMS trees) that no package owns any more.
gd_remove_trees() {
  local tree
  for tree in "$@"; do
    if ! gd_tree_allowed "$tree"; then gd_die "refusing to remove $tree: not a GPU vendor tree"; fi
    if [[ -L $tree ]]; then
      if ((GD_DRY_RUN)); then
        gd_note "would remove the link $tree -> $(readlink -- "$tree")"
        continue
      fi
      gd_journal removed-link "$tree" "$(readlink -- "$tree")"
      rm -f -- "$tree"
      GD_CHANGES=$((GD_CHANGES + 1))
      gd_note "removed the link $tree"
    elif [[ -d $tree ]]; then
      if ((GD_DRY_RUN)); then
        gd_note "would remove $tree ($(du -sh -- "$tree" 2>/dev/null | cut -f1), no backup) once no package owns it"
        continue
      fi
      if gd_owned_by_package "$tree"; then
        gd_note "$tree still belongs to an installed package: left to the package manager"
        continue
      fi
      gd_journal removed-tree "$tree"
      gd_journal_sync
      rm -rf -- "$tree"
      GD_CHANGES=$((GD_CHANGES + 1))
      gd_note "removed the folder $tree"
    fi
  done
}

# ---- text filters for gd_edit_file ----------------------------------------------------------------------

# Replaces the word OLD by NEW on lines that are not comments.
gd_filter_replace_word() {
  GD_OLD=$1 GD_NEW=$2 awk 'BEGIN { old = ENVIRON["GD_OLD"]; new = ENVIRON["GD_NEW"] }
    /^[[:space:]]*#/ { print; next }
    {
      out = ""; line = $0
      while ((i = index(line, old)) > 0) {
        before = substr(line, i - 1, 1); after = substr(line, i + length(old), 1)
        if ((i == 1 || before ~ /[^A-Za-z0-9_.-]/) && (after == "" || after ~ /[^A-Za-z0-9_.-]/)) {
          out = out substr(line, 1, i - 1) new
        } else {
          out = out substr(line, 1, i - 1 + length(old))
        }
        line = substr(line, i + length(old))
      }
      print out line
    }'
}

# Lines that do not contain any of the fixed strings given.
gd_filter_drop_mentions() {
  local line needle keep
  while IFS= read -r line || [[ -n $line ]]; do
    keep=1
    for needle in "$@"; do
      if [[ $line == *"$needle"* && ! $line =~ ^[[:space:]]*# ]]; then keep=0; fi
    done
    if ((keep)); then printf '%s\n' "$line"; fi
  done
}

# Shell-profile lines: drops assignments of variables matching VARS_RE (an ERE of whole names) and
# removes folders matching PATHS_RE (an ERE) from PATH-like assignments (also in the ${PATH:+:${PATH}}
# idiom); a line left with nothing but its own variable goes. Lines with anything else on them (;, &&,
# $( ), other ${...:...} expansions) are kept as they are.
gd_filter_profile() {
  GD_VARS_RE=$1 GD_PATHS_RE=$2 awk '
    BEGIN { vars = ENVIRON["GD_VARS_RE"]; paths = ENVIRON["GD_PATHS_RE"] }
    function self(v, name) { return v == "$" name || v == "${" name "}" || v == "" }
    function ends(s, t) { return length(s) >= length(t) && substr(s, length(s) - length(t) + 1) == t }
    {
      line = $0
      if (line ~ /^[[:space:]]*#/) { print line; next }
      if (!match(line, /^[[:space:]]*(export[[:space:]]+)?[A-Za-z_][A-Za-z0-9_]*=/)) { print line; next }
      head = substr(line, 1, RLENGTH); rest = substr(line, RLENGTH + 1)
      name = head; sub(/^[[:space:]]*(export[[:space:]]+)?/, "", name); sub(/=$/, "", name)
      complex = rest ~ /[;&|`]|\$\(/
      if (vars != "" && name ~ ("^(" vars ")$")) { if (complex) print line; next }
      pathvar = name ~ /^(PATH|LD_LIBRARY_PATH|LIBRARY_PATH|CPATH|MANPATH|PKG_CONFIG_PATH)$/ ||
        name ~ /^(CMAKE_PREFIX_PATH|PYTHONPATH)$/
      if (paths == "" || !pathvar || complex) { print line; next }
      comment = ""
      if (match(rest, /[[:space:]]+#.*$/)) {
        comment = substr(rest, RSTART); rest = substr(rest, 1, RSTART - 1)
      }
      sub(/[[:space:]]+$/, "", rest)
      q = ""
      if (rest ~ /^".*"$/ || rest ~ /^\047.*\047$/) {
        q = substr(rest, 1, 1); rest = substr(rest, 2, length(rest) - 2)
      }
      tail = ""
      idiom1 = "${" name ":+:${" name "}}"; idiom2 = "${" name ":+:$" name "}"
      if (ends(rest, idiom1)) tail = idiom1
      else if (ends(rest, idiom2)) tail = idiom2
      rest = substr(rest, 1, length(rest) - length(tail))
      if (rest ~ /\$\{[^}]*:/) { print line; next }
      n = split(rest, parts, ":"); out = ""; kept = 0; dropped = 0; own = 1
      for (i = 1; i <= n; i++) {
        if (parts[i] ~ ("^(" paths ")(/.*)?$")) { dropped = 1; continue }
        out = out (kept ? ":" : "") parts[i]; kept++
        if (!self(parts[i], name)) own = 0
      }
      if (!dropped) { print line; next }
      if (own) next
      print head q out tail q comment
    }'
}

# ld.so.conf lines that do not name a folder matching PATHS_RE.
gd_filter_ld_conf() {
  GD_PATHS_RE=$1 awk 'BEGIN { paths = ENVIRON["GD_PATHS_RE"] }
    $0 ~ /^[[:space:]]*#/ || $0 !~ ("^[[:space:]]*(" paths ")(/[^[:space:]]*)?[[:space:]]*$") { print }'
}

# ---- packages -------------------------------------------------------------------------------------------

gd_pkg_installed() {
  case $GD_FAMILY in
  debian) [[ $(dpkg-query -W -f='${db:Status-Abbrev}' -- "$1" 2>/dev/null) == ii* ]] ;;
  rhel) rpm -q --quiet -- "$1" 2>/dev/null ;;
  esac
}

gd_pkg_config_only() {
  [[ $GD_FAMILY == debian && $(dpkg-query -W -f='${db:Status-Abbrev}' -- "$1" 2>/dev/null) == rc* ]]
}

gd_pkg_version() {
  case $GD_FAMILY in
  debian) dpkg-query -W -f='${Version}' -- "$1" 2>/dev/null || true ;;
  rhel) rpm -q --qf '%{VERSION}-%{RELEASE}' -- "$1" 2>/dev/null || true ;;
  esac
}

gd_owned_by_package() {
  case $GD_FAMILY in
  debian) dpkg-query -S -- "$1" >/dev/null 2>&1 ;;
  rhel) rpm -qf -- "$1" >/dev/null 2>&1 ;;
  esac
}

# Names the package manager would remove besides the ones given (read from stdin: its simulation).
gd_extra_removals() {
  local kind name _rest
  while read -r kind name _rest; do
    case $kind in
    Purg | Remv) if ! gd_in_list "$name" "$@"; then printf '%s\n' "$name"; fi ;;
    esac
  done
}

# Purges exactly the packages given that are installed; stops when the package manager would take any
# other package with them (something else depends on them).
gd_purge_packages() {
  local want=() name extra sim
  for name in "$@"; do
    if gd_pkg_installed "$name"; then want+=("$name"); fi
  done
  if ((${#want[@]} == 0)); then
    gd_note "none of these packages is installed: $*"
    return 0
  fi
  case $GD_FAMILY in
  debian)
    # A simulation that writes nothing: no package caches, no solver log (so --dry-run changes nothing).
    if ! sim=$(LC_ALL=C apt-get -s -q -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
      -o Dir::Log::Planner=/dev/null purge "${want[@]}" 2>&1); then
      gd_die "apt-get cannot remove $(gd_quote "${want[@]}"): $sim"
    fi
    extra=$(printf '%s\n' "$sim" | gd_extra_removals "${want[@]}")
    ;;
  rhel)
    sim=$(LC_ALL=C rpm -e --test "${want[@]}" 2>&1 || true)
    extra=$(printf '%s\n' "$sim" | awk '/is needed by/ {print $NF}' | sort -u)
    ;;
  esac
  if [[ -n $extra ]]; then
    gd_die "removing $(gd_quote "${want[@]}") would also remove: ${extra//$'\n'/ }; handle those first"
  fi
  for name in "${want[@]}"; do gd_journal purge-package "$name" "$(gd_pkg_version "$name")"; done
  gd_journal_sync
  case $GD_FAMILY in
  debian) gd_run env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${want[@]}" ;;
  rhel) gd_run dnf remove -y "${want[@]}" ;;
  esac
  GD_CHANGES=$((GD_CHANGES + 1))
}

# Purges what removed packages left: their configuration files (dpkg state "rc").
gd_purge_config_packages() {
  local want=() name
  for name in "$@"; do
    if gd_pkg_config_only "$name"; then want+=("$name"); fi
  done
  if ((${#want[@]} == 0)); then return 0; fi
  for name in "${want[@]}"; do gd_journal purge-config "$name"; done
  gd_run dpkg --purge "${want[@]}"
  GD_CHANGES=$((GD_CHANGES + 1))
}

gd_package_index_update() {
  if ((GD_APT_UPDATED)); then return 0; fi
  case $GD_FAMILY in
  debian) gd_run apt-get update -q ;;
  rhel) gd_run dnf makecache -q ;;
  esac
  GD_APT_UPDATED=1
}

# Installs the packages given that are not installed yet (NAME or NAME=VERSION).
gd_install_packages() {
  local missing=() spec name version
  for spec in "$@"; do
    name=${spec%%=*}
    version=
    if [[ $spec == *=* ]]; then version=${spec#*=}; fi
    if gd_pkg_installed "$name" && [[ -z $version || $(gd_pkg_version "$name") == "$version"* ]]; then
      continue
    fi
    missing+=("$spec")
  done
  if ((${#missing[@]} == 0)); then
    gd_note "already installed: $*"
    return 0
  fi
  gd_package_index_update
  case $GD_FAMILY in
  debian)
    gd_run env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
    ;;
  rhel) gd_run dnf install -y "${missing[@]//=/-}" ;;
  esac
  if ((GD_DRY_RUN)); then return 0; fi
  for spec in "${missing[@]}"; do
    name=${spec%%=*}
    gd_journal installed-package "$name" "$(gd_pkg_version "$name")"
  done
  GD_CHANGES=$((GD_CHANGES + 1))
}

gd_verify_not_installed() {
  local name bad=()
  for name in "$@"; do
    if gd_pkg_installed "$name"; then bad+=("$name"); fi
  done
  if ((${#bad[@]})); then
    gd_say "still installed: ${bad[*]}" >&2
    return 1
  fi
}

gd_verify_installed() {
  local spec bad=()
  for spec in "$@"; do
    if ! gd_pkg_installed "${spec%%=*}"; then bad+=("${spec%%=*}"); fi
  done
  if ((${#bad[@]})); then
    gd_say "not installed: ${bad[*]}" >&2
    return 1
  fi
}

gd_verify_no_config_packages() {
  local name
  for name in "$@"; do
    if gd_pkg_config_only "$name"; then
      gd_say "configuration files of $name are still there" >&2
      return 1
    fi
  done
}

gd_verify_absent() {
  local path bad=()
  for path in "$@"; do
    if [[ -e $path || -L $path ]]; then bad+=("$path"); fi
  done
  if ((${#bad[@]})); then
    gd_say "still there: ${bad[*]}" >&2
    return 1
  fi
}

# ---- repositories ---------------------------------------------------------------------------------------

# Copies a URL (https://, http:// or file://) to a local file.
gd_fetch() {
  local url=$1 dest=$2
  case $url in
  file://*) cp -- "${url#file://}" "$dest" ;;
  *)
    if gd_have curl; then
      curl -fsSL --retry 2 -o "$dest" -- "$url"
    elif gd_have wget; then
      wget -q -O "$dest" -- "$url"
    else
      gd_die "neither curl nor wget is installed to fetch $url"
    fi
    ;;
  esac
}

# Installs a repository signing key (ASCII-armoured, as the vendor publishes it) at KEYFILE.
gd_install_key() {
  local url=$1 keyfile=$2 tmp
  if ((GD_DRY_RUN)); then
    if [[ ! -f $keyfile ]]; then gd_note "would fetch $url to $keyfile"; fi
    return 0
  fi
  tmp=$(mktemp)
  gd_fetch "$url" "$tmp" || {
    rm -f -- "$tmp"
    gd_die "cannot fetch the signing key $url"
  }
  gd_write_file "$keyfile" 0644 <"$tmp"
  rm -f -- "$tmp"
}

# ---- system ---------------------------------------------------------------------------------------------

gd_update_initramfs() {
  case $GD_FAMILY in
  debian) if gd_have update-initramfs; then gd_run update-initramfs -u; else gd_note "no update-initramfs here"; fi ;;
  rhel) if gd_have dracut; then gd_run dracut --force; else gd_note "no dracut here: no initramfs to rebuild"; fi ;;
  esac
}

gd_ldconfig() {
  if gd_have ldconfig; then gd_run ldconfig; fi
}

# Removes dangling update-alternatives groups (their target folder is gone).
gd_remove_dangling_alternatives() {
  local name tool=update-alternatives
  if [[ $GD_FAMILY == rhel ]]; then tool=alternatives; fi
  for name in "$@"; do
    if [[ -L /etc/alternatives/$name && ! -e /etc/alternatives/$name ]]; then
      if ((GD_DRY_RUN)) || gd_have "$tool"; then gd_run "$tool" --remove-all "$name"; fi
    fi
  done
}

# DKMS module/version pairs: removed from every kernel when dkms knows them.
gd_dkms_remove() {
  local pair
  for pair in "$@"; do
    if gd_have dkms && [[ -n $(dkms status -m "${pair%%/*}" -v "${pair#*/}" 2>/dev/null) ]]; then
      gd_run dkms remove -m "${pair%%/*}" -v "${pair#*/}" --all
    fi
  done
}

gd_verify_dkms_absent() {
  local pair
  if ! gd_have dkms; then return 0; fi
  for pair in "$@"; do
    if [[ -n $(dkms status -m "${pair%%/*}" -v "${pair#*/}" 2>/dev/null) ]]; then
      gd_say "DKMS still has ${pair%%/*} ${pair#*/}" >&2
      return 1
    fi
  done
}

gd_verify_no_dangling_alternatives() {
  local name
  for name in "$@"; do
    if [[ -L /etc/alternatives/$name && ! -e /etc/alternatives/$name ]]; then
      gd_say "update-alternatives still has $name" >&2
      return 1
    fi
  done
}

# gd_remove_source_lines HOST... -- FILE...: drops the lines naming a host from mixed source files.
gd_remove_source_lines() {
  local hosts=() file
  while (($#)) && [[ $1 != -- ]]; do
    hosts+=("$1")
    shift
  done
  if (($#)); then shift; fi
  for file in "$@"; do gd_edit_file "$file" gd_filter_drop_mentions "${hosts[@]}"; done
}

gd_verify_no_mentions() {
  local hosts=() file
  while (($#)) && [[ $1 != -- ]]; do
    hosts+=("$1")
    shift
  done
  if (($#)); then shift; fi
  for file in "$@"; do
    if [[ -f $file && -n $(grep -v '^[[:space:]]*#' -- "$file" | grep -F "${hosts[@]/#/-e}" || true) ]]; then
      gd_say "$file still names ${hosts[*]}" >&2
      return 1
    fi
  done
}

# gd_fix_codenames FILE OLD NEW [FILE OLD NEW...]: replaces the release word OLD by NEW in vendor sources.
gd_fix_codenames() {
  while (($# >= 3)); do
    gd_edit_file "$1" gd_filter_replace_word "$2" "$3"
    shift 3
  done
}

gd_verify_codenames() {
  while (($# >= 3)); do
    if [[ -f $1 && -n $(grep -v '^[[:space:]]*#' -- "$1" | grep -w -- "$2" || true) ]]; then
      gd_say "$1 still names $2" >&2
      return 1
    fi
    shift 3
  done
}

# Whether every boot entry has a kernel argument (RHEL family).
gd_grubby_has_arg() {
  local info
  info=$(grubby --info=ALL 2>/dev/null || true)
  [[ -n $info && $(grep -c '^args=' <<<"$info") == $(grep '^args=' <<<"$info" | grep -cw -- "$1" || true) ]]
}

gd_verify_dkms_built() {
  local bad
  if ! gd_have dkms; then return 0; fi
  bad=$(dkms status -k "$1" 2>/dev/null | grep -v ': installed' || true)
  if [[ -n $bad ]]; then
    gd_say "not installed for $1: $bad" >&2
    return 1
  fi
}

# Adds a kernel argument to GRUB_CMDLINE_LINUX_DEFAULT (Debian family) when it is not there.
gd_filter_kernel_arg() {
  GD_ARG=$1 awk 'BEGIN { arg = ENVIRON["GD_ARG"] }
    /^GRUB_CMDLINE_LINUX_DEFAULT=/ && !done {
      done = 1
      v = $0; sub(/^GRUB_CMDLINE_LINUX_DEFAULT=/, "", v); q = ""
      if (v ~ /^".*"$/) { q = "\""; v = substr(v, 2, length(v) - 2) }
      n = split(v, words, /[[:space:]]+/)
      for (i = 1; i <= n; i++) if (words[i] == arg) { print; next }
      print "GRUB_CMDLINE_LINUX_DEFAULT=" q (v == "" ? arg : v " " arg) q; next
    }
    { print }
    END { if (!done) print "GRUB_CMDLINE_LINUX_DEFAULT=\"" arg "\"" }'
}

# Adds USER to each group that exists and that USER is not in yet.
gd_add_groups() {
  local user=$1 group
  shift
  for group in "$@"; do
    if ! getent group "$group" >/dev/null; then
      gd_note "there is no group $group here"
      continue
    fi
    if [[ " $(id -nG "$user") " == *" $group "* ]]; then continue; fi
    gd_run usermod -a -G "$group" "$user"
    if ((!GD_DRY_RUN)); then gd_journal added-group "$user" "$group"; fi
    GD_CHANGES=$((GD_CHANGES + 1))
  done
}

gd_verify_in_groups() {
  local user=$1 group
  shift
  for group in "$@"; do
    if getent group "$group" >/dev/null && [[ " $(id -nG "$user") " != *" $group "* ]]; then
      gd_say "$user is not in $group" >&2
      return 1
    fi
  done
}

# The shell profiles of each home, and the system-wide ones (with --system).
gd_profile_files() {
  local home name
  if [[ $1 == --system ]]; then
    shift
    for name in /etc/environment /etc/profile /etc/bash.bashrc /etc/profile.d/*.sh /etc/nccl.conf; do
      if [[ -f $name ]]; then printf '%s\n' "$name"; fi
    done
  fi
  for home in "$@"; do
    for name in .bashrc .profile .bash_profile .bash_login .zshrc .zprofile .zshenv .nccl.conf; do
      if [[ -f $home/$name ]]; then printf '%s\n' "$home/$name"; fi
    done
  done
}

# gd_clean_profiles VARS_RE PATHS_RE [--system] HOME...: edits every profile with gd_filter_profile.
gd_clean_profiles() {
  local vars=$1 paths=$2 file files=()
  shift 2
  readarray -t files <<<"$(gd_profile_files "$@")"
  for file in "${files[@]}"; do
    if [[ -z $file ]]; then continue; fi
    if [[ ! -w $file ]] && ((!GD_DRY_RUN)); then
      gd_note "$file is not writable for $(id -un): not edited"
      continue
    fi
    gd_edit_file "$file" gd_filter_profile "$vars" "$paths"
  done
}

# Verifies that no profile still assigns a variable matching VARS_RE.
gd_verify_profiles() {
  local vars=$1 file files=() bad=()
  shift
  readarray -t files <<<"$(gd_profile_files "$@")"
  for file in "${files[@]}"; do
    if [[ -n $file ]] && grep -qE "^[[:space:]]*(export[[:space:]]+)?($vars)=" -- "$file"; then
      bad+=("$file")
    fi
  done
  if ((${#bad[@]})); then
    gd_say "still set in: ${bad[*]}" >&2
    return 1
  fi
}

# Removes folders matching PATHS_RE from ld.so.conf files; a file left with only comments goes.
gd_clean_ld_conf() {
  local paths=$1 file
  shift
  for file in "$@"; do
    if [[ ! -f $file ]]; then continue; fi
    if gd_owned_by_package "$file"; then
      gd_note "$file belongs to an installed package: left to the package manager"
      continue
    fi
    if [[ -n $(gd_filter_ld_conf "$paths" <"$file" | grep -Ev '^[[:space:]]*(#.*)?$' || true) ]]; then
      gd_edit_file "$file" gd_filter_ld_conf "$paths"
    else
      gd_remove_files "$file"
    fi
  done
}

gd_verify_ld_conf() {
  local paths=$1 file
  shift
  for file in "$@"; do
    if [[ ! -f $file ]] || gd_owned_by_package "$file"; then continue; fi
    # shellcheck disable=SC2094 # the file is only read here
    if ! gd_filter_ld_conf "$paths" <"$file" | cmp -s - "$file"; then
      gd_say "$file still names a folder of the stack" >&2
      return 1
    fi
  done
}

# ---- PyTorch --------------------------------------------------------------------------------------------

# gd_torch_reinstall USER PYTHON INDEX_URL LOCAL_TAG [SPEC]: replaces torch (and torchvision, torchaudio
# when present) with the build from INDEX_URL, unless the installed torch already carries LOCAL_TAG.
gd_torch_reinstall() {
  local user=$1 python=$2 index=$3 tag=$4 spec=${5:-torch} current pkgs=() extra
  if [[ ! -x $python ]]; then
    gd_note "$python is gone: nothing to reinstall"
    return 0
  fi
  current=$("$python" -c 'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null || true)
  if [[ $current == *"+$tag" && ($spec == torch || $current == "${spec#torch==}"*) ]]; then
    gd_note "torch $current is already the $tag build"
    return 0
  fi
  pkgs=("$spec")
  for extra in torchvision torchaudio; do
    if "$python" -m pip show -q "$extra" >/dev/null 2>&1; then pkgs+=("$extra"); fi
  done
  if [[ -n $current ]]; then
    gd_as_user "$user" "$python" -m pip uninstall -y torch torchvision torchaudio
    gd_journal pip-uninstall "$python" "torch==$current"
  fi
  gd_as_user "$user" "$python" -m pip install --index-url "$index" "${pkgs[@]}"
  if ((!GD_DRY_RUN)); then gd_journal pip-install "$python" "${pkgs[*]}" "$index"; fi
  GD_CHANGES=$((GD_CHANGES + 1))
}

gd_verify_torch() {
  local python=$1 tag=$2 current
  if [[ ! -x $python ]]; then return 0; fi
  current=$("$python" -c 'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null || true)
  if [[ $current != *"+$tag" ]]; then
    gd_say "torch is ${current:-missing}, not a +$tag build" >&2
    return 1
  fi
}

# Registers NVIDIA's runtime with Docker (backing up daemon.json first) and restarts Docker, unless Docker
# already knows the runtime.
gd_docker_nvidia_runtime() {
  if [[ $(docker info --format '{{json .Runtimes}}' 2>/dev/null) == *nvidia* ]]; then
    gd_note "Docker already has the nvidia runtime"
    return 0
  fi
  if [[ -f /etc/docker/daemon.json ]] && ((!GD_DRY_RUN)); then gd_backup /etc/docker/daemon.json; fi
  gd_run nvidia-ctk runtime configure --runtime=docker
  gd_run systemctl restart docker
  GD_CHANGES=$((GD_CHANGES + 1))
}

gd_verify_docker_nvidia_runtime() {
  if [[ $(docker info --format '{{json .Runtimes}}' 2>/dev/null) != *nvidia* ]]; then
    gd_say "docker info lists no nvidia runtime" >&2
    return 1
  fi
}

# Runs gpudoctor's own checks after a migration, when gpudoctor is installed here.
gd_post_check() {
  local ids=$1
  if ((GD_DRY_RUN)); then
    gd_note "would run: gpudoctor check --only $ids"
    return 0
  fi
  if ! gd_have gpudoctor; then
    gd_note "gpudoctor is not on PATH here; run this once it is: gpudoctor check --only $ids"
    return 0
  fi
  gd_note "+ gpudoctor check --only $ids"
  gpudoctor check --only "$ids"
}

# ---- reboot ---------------------------------------------------------------------------------------------

# This boot's id (GPUDOCTOR_BOOT_ID stands in for it in tests).
gd_boot_id() {
  if [[ -n ${GPUDOCTOR_BOOT_ID:-} ]]; then
    printf '%s' "$GPUDOCTOR_BOOT_ID"
  elif [[ -r /proc/sys/kernel/random/boot_id ]]; then
    cat /proc/sys/kernel/random/boot_id
  else
    printf unknown
  fi
}

# The boot id recorded when this script last asked for a reboot.
gd_reboot_requested_in() {
  if [[ -f $GD_JOURNAL ]]; then
    awk -F '\t' '$4 == "reboot-requested" { id = $5 } END { print id }' "$GD_JOURNAL"
  fi
}

# Continues when the machine rebooted since this script asked for it; otherwise asks for the reboot and
# stops (exit status 100): run the script again after the reboot to continue where it stopped.
gd_reboot() {
  local now asked
  now=$(gd_boot_id)
  asked=$(gd_reboot_requested_in)
  if [[ -n $asked && $now != unknown && $asked != "$now" ]]; then
    gd_note "the machine rebooted since this script asked for it: going on"
    return 0
  fi
  if ((GD_DRY_RUN)); then
    gd_note "would reboot here, and continue with the next step when run again after the reboot"
    return 0
  fi
  gd_journal reboot-requested "$now"
  gd_journal_sync
  if ((GD_NO_REBOOT)) || [[ $now == unknown ]]; then
    gd_say "Reboot now, then run this script again (or gpudoctor migrate --resume) to continue."
    exit 100
  fi
  gd_say "Rebooting in 10 seconds (Ctrl-C to stop). Run this script again after the reboot to continue."
  sleep 10
  if gd_have systemctl; then gd_run systemctl reboot; else gd_run reboot; fi
  exit 100
}

# ---- running the steps ----------------------------------------------------------------------------------

gd_usage() {
  cat <<USAGE
usage: $0 [--dry-run] [--list] [--step ID] [--any-host] [--no-reboot] [--run-id ID]
  --dry-run    print every command and every change, change nothing
  --list       list the steps (what each needs: root, destructive, reboot)
  --step ID    run one step only (its id or number)
  --any-host   run on another host name than the one this script was made for (same OS release)
  --no-reboot  stop at a reboot step instead of rebooting (exit status 100)
  --run-id ID  name of this run in the journal and the backup folder (gpudoctor --apply passes it)
USAGE
}

gd_parse_args() {
  while (($#)); do
    case $1 in
    --dry-run) GD_DRY_RUN=1 ;;
    --list) GD_LIST=1 ;;
    --step) GD_ONLY_STEP=${2:?--step needs a step id} && shift ;;
    --any-host) GD_ANY_HOST=1 ;;
    --no-reboot) GD_NO_REBOOT=1 ;;
    --run-id) GD_RUN_ID=${2:?--run-id needs a name} && shift ;;
    -h | --help) gd_usage && exit 0 ;;
    *) gd_usage >&2 && exit 2 ;;
    esac
    shift
  done
}

# Refuses another distribution, release or host than the script was made for.
gd_preflight() {
  local id version host
  if [[ ! -r /etc/os-release ]]; then gd_die "no /etc/os-release: cannot tell which system this is"; fi
  # shellcheck source=/dev/null
  id=$(. /etc/os-release && printf '%s' "${ID:-}")
  # shellcheck source=/dev/null
  version=$(. /etc/os-release && printf '%s' "${VERSION_ID:-}")
  if [[ $id != "$GD_FOR_OS_ID" || $version != "$GD_FOR_OS_VERSION" ]]; then
    gd_die "made for $GD_FOR_OS_ID $GD_FOR_OS_VERSION, this is ${id:-unknown} ${version:-?}:" \
      "make a new script here (gpudoctor fix / migrate)"
  fi
  host=$(uname -n)
  if [[ -n $GD_FOR_HOST && $host != "$GD_FOR_HOST" ]] && ((!GD_ANY_HOST)); then
    gd_die "made for host $GD_FOR_HOST, this is $host (--any-host if it is the same machine renamed)"
  fi
  case $GD_FAMILY in
  debian) gd_have dpkg-query || gd_die "no dpkg-query: this is not a Debian-family system" ;;
  rhel) gd_have rpm || gd_die "no rpm: this is not a RHEL-family system" ;;
  esac
}

gd_list_steps() {
  local i
  for i in "${!GD_STEP_IDS[@]}"; do
    printf '%2d  %-34s %-24s %s\n' "$((i + 1))" "${GD_STEP_IDS[i]}" "${GD_STEP_FLAGS[i]:--}" \
      "${GD_STEP_TITLES[i]}"
  done
}

gd_on_exit() {
  local status=$1
  if ((status == 0 || status == 100)) || [[ $GD_STEP == - ]]; then return 0; fi
  if ((GD_DRY_RUN)); then
    printf 'gpudoctor script: the dry run stopped at step %s (exit status %s)\n' "$GD_STEP" "$status" >&2
    return 0
  fi
  if [[ $GD_PHASE == verify ]]; then
    gd_journal verify-failed "$status"
    printf 'gpudoctor script: step %s ran but its check failed; journal: %s\n' "$GD_STEP" "$GD_JOURNAL" >&2
  else
    gd_journal step-failed "$status"
    printf 'gpudoctor script: step %s failed (exit status %s); nothing after it ran. Journal: %s\n' \
      "$GD_STEP" "$status" "$GD_JOURNAL" >&2
  fi
}

gd_main() {
  local i n selected=() needs_root=0
  GD_LIST=0
  gd_parse_args "$@"
  gd_init_dirs
  if ((GD_LIST)); then
    gd_list_steps
    return 0
  fi
  for i in "${!GD_STEP_IDS[@]}"; do
    if [[ -z $GD_ONLY_STEP || $GD_ONLY_STEP == "${GD_STEP_IDS[i]}" || $GD_ONLY_STEP == "$((i + 1))" ]]; then
      selected+=("$i")
      if [[ ${GD_STEP_FLAGS[i]} == *root* ]]; then needs_root=1; fi
    fi
  done
  if ((${#selected[@]} == 0)); then gd_die "no step $GD_ONLY_STEP (--list shows them)"; fi
  gd_preflight
  if ((needs_root)) && ! gd_is_root && ((!GD_DRY_RUN)); then
    gd_die "this needs root: run it with sudo (or gpudoctor ... --apply, which asks sudo per step)"
  fi
  trap 'gd_on_exit $?' EXIT
  if ((GD_DRY_RUN)); then gd_say "Dry run: nothing will be changed."; fi
  gd_journal start "$GD_SCRIPT_ID"
  n=${#GD_STEP_IDS[@]}
  for i in "${selected[@]}"; do
    GD_STEP=${GD_STEP_IDS[i]}
    GD_PHASE=run
    gd_say "==> [$((i + 1))/$n] ${GD_STEP_TITLES[i]} (${GD_STEP_IDS[i]})"
    gd_journal step-begin "${GD_STEP_TITLES[i]}"
    "gd_step_$((i + 1))"
    if ((!GD_DRY_RUN)); then
      GD_PHASE=verify
      "gd_verify_$((i + 1))"
    fi
    gd_journal step-done
  done
  GD_STEP=-
  gd_journal end
  if ((GD_DRY_RUN)); then
    gd_say "Dry run done: nothing was changed."
  elif ((GD_CHANGES)); then
    gd_say "Done."
  else
    gd_say "Done: nothing needed changing."
  fi
}

# ---- the steps ------------------------------------------------------------------------

# 1. Remove ROCm variables and folders from shell profiles [root] (fixes/purge-rocm.yaml:82)
gd_step_1() {
  gd_clean_profiles 'ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|HCC_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL|MIOPEN_[A-Z_]*' '/opt/rocm(-[0-9][0-9.]*)?|\$\{?(ROCM_PATH|ROCM_HOME|HIP_PATH)\}?' --system /home/dana
}
gd_verify_1() {
  gd_verify_profiles 'ROCM_[A-Z_]*|HIP_[A-Z_]*|HSA_[A-Z0-9_]*|ROCR_[A-Z_]*|HCC_[A-Z_]*|PYTORCH_ROCM_ARCH|GPU_DEVICE_ORDINAL|MIOPEN_[A-Z_]*' --system /home/dana
}

# 2. Add NVIDIA's CUDA repository and its signing key [root] (fixes/install-nvidia.yaml:14)
gd_step_2() {
gd_write_file /etc/yum.repos.d/cuda-gpudoctor.repo 0644 <<'REPO'
# gpudoctor-vendor: nvidia (written by gpudoctor for CUDA 12.6)
[cuda-gpudoctor]
name=NVIDIA CUDA
baseurl=https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64/
enabled=1
gpgcheck=1
gpgkey=https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64/D42D0685.pub
REPO
}
gd_verify_2() {
  test -s /etc/yum.repos.d/cuda-gpudoctor.repo
}

# 3. Install the headers of the kernel (the driver's DKMS module is built against them) [root] (fixes/install-nvidia.yaml:35)
gd_step_3() {
  gd_install_packages "kernel-devel-$(gd_kernel)"
}
gd_verify_3() {
  gd_verify_installed "kernel-devel-$(gd_kernel)"
}

# 4. Enable the driver's module stream 560-dkms [root] (fixes/install-nvidia.yaml:42)
gd_step_4() {
  gd_run dnf module enable -y nvidia-driver:560-dkms
}
gd_verify_4() {
  true # dnf module enable fails when the stream does not exist
}

# 5. Install the NVIDIA driver 560 (proprietary kernel modules) [root, reboot] (fixes/install-nvidia.yaml:48)
gd_step_5() {
  gd_install_packages cuda-drivers
}
gd_verify_5() {
  gd_verify_installed cuda-drivers
}

# 6. Install the CUDA toolkit 12.6 [root] (fixes/install-nvidia.yaml:54)
gd_step_6() {
  gd_install_packages cuda-toolkit-12-6
}
gd_verify_6() {
  gd_verify_installed cuda-toolkit-12-6
}

# 7. Put CUDA 12.6 on PATH for login shells [root] (fixes/install-nvidia.yaml:59)
gd_step_7() {
gd_write_file /etc/profile.d/cuda-path.sh 0644 <<'PROFILE'
# Written by gpudoctor (install-nvidia): the CUDA 12.6 toolkit on PATH.
export PATH=/usr/local/cuda-12.6/bin${PATH:+:${PATH}}
PROFILE
}
gd_verify_7() {
  grep -qF /usr/local/cuda-12.6 /etc/profile.d/cuda-path.sh
}

# 8. Blacklist nouveau and rebuild the initramfs [root, reboot] (fixes/blacklist-nouveau.yaml:9)
gd_step_8() {
local before=$GD_CHANGES
gd_write_file /etc/modprobe.d/blacklist-nouveau.conf 0644 <<'CONF'
# Written by gpudoctor (fix blacklist-nouveau): the NVIDIA driver cannot load while nouveau holds the GPU.
blacklist nouveau
options nouveau modeset=0
CONF
if ((GD_CHANGES > before)); then gd_update_initramfs; fi
}
gd_verify_8() {
  grep -qx 'blacklist nouveau' /etc/modprobe.d/blacklist-nouveau.conf
}

# 9. Reboot the machine [root, reboot] (fixes/reboot.yaml:9)
gd_step_9() {
  gd_reboot
}
gd_verify_9() {
  true # the next run of the script sees the new boot
}

# 10. Check the machine with gpudoctor (what must pass now) (fixes/migrate.yaml:15)
gd_step_10() {
  gd_post_check driver.not-bound,driver.nouveau,driver.nvidia-mismatch,cuda.no-driver,cuda.driver-too-old,stack.both-vendors,stack.leftover-paths,torch.cpu-build,torch.vendor-mismatch,torch.arch-missing,torch.cuda-too-new,perm.nvidia-dev
}
gd_verify_10() {
  true # gpudoctor check reports by itself
}

gd_main "$@"
