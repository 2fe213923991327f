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
GD_UNHOLD=0
GD_STOP_GPU_USERS=0
GD_COLLECT=
GD_STEP_INDEX=0
GD_REBOOTING=0
GD_ROLLED_BACK=0
GD_DIED=0
GD_FAILED_COMMAND=
GD_INSTALL_PROBLEM=
GD_INSTALL_PLANNED=
# A copy of dpkg's status without the packages an install replaces (gd_sim_status): the simulations and the
# downloads see the machine as the install's own purge leaves it. GD_RESTORE: those the running install has
# purged, put back from the download cache when the install fails.
GD_SIM_STATUS=
GD_RESTORE=()
GD_MOK_HASH_FILE=
GD_TEMP=
GD_TEMP_COUNT=0
# Installroot mode (tests/root/rhel_installroot.sh): GD_INSTALLROOT=DIR makes rpm and dnf act on the RPM
# root DIR from outside (rpm --root, dnf --installroot; such a root has no bash to chroot into), and the
# files that gd_write_file, gd_edit_file and the journal touch lie below DIR. GD_DNF_OPTS: more dnf options,
# one a line (the test's isolation from the host: --noplugins, --config, reposdir). Helpers that would act
# on the host (services, the initramfs, trees) refuse in this mode. Empty on a real machine.
GD_INSTALLROOT=${GD_INSTALLROOT:-}
GD_DNF_OPTS=${GD_DNF_OPTS:-}

gd_say() { printf '%s\n' "$*"; }
gd_note() { printf '    %s\n' "$*"; }
gd_die() {
  GD_DIED=1
  printf 'gpudoctor script: %s\n' "$*" >&2
  exit 1
}
gd_now() { date -u +%Y-%m-%dT%H:%M:%SZ; }
gd_is_root() { [[ $(id -u) -eq 0 ]]; }

# Words as bash would need them typed; in the C locale, so that every byte that is not printable ASCII
# (terminal escapes, bidi controls) is written as an escape.
gd_quote() {
  local out='' word LC_ALL=C
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

# gd_read_lines ARRAY <<<"$(command)": the non-empty lines into ARRAY. Scripts do not use process
# substitution: it needs /dev/fd, which a chroot without /proc lacks.
gd_read_lines() {
  local -n gd_lines_out=$1
  local line
  gd_lines_out=()
  while IFS= read -r line; do
    if [[ -n $line ]]; then gd_lines_out+=("$line"); fi
  done
}

# The lines of the second text that the first lacks (both sorted first).
gd_only_in_second() {
  local a b
  a=$(mktemp)
  b=$(mktemp)
  sort -u <<<"$1" >"$a"
  sort -u <<<"$2" >"$b"
  comm -13 "$a" "$b"
  rm -f -- "$a" "$b"
}

gd_init_dirs() {
  if gd_is_root; then
    GD_LOG_DIR=$GD_INSTALLROOT/var/log/gpudoctor
    GD_BACKUP_ROOT=$GD_INSTALLROOT/var/backups/gpudoctor
    GD_STATE_DIR=$GD_INSTALLROOT/var/lib/gpudoctor
    GD_CACHE_DIR=$GD_INSTALLROOT/var/cache/gpudoctor/$GD_SCRIPT_ID
    GD_WORK_DIR=$GD_CACHE_DIR
  else
    local state=${XDG_STATE_HOME:-$HOME/.local/state}/gpudoctor
    GD_LOG_DIR=$state/log
    GD_BACKUP_ROOT=$state/backups
    GD_STATE_DIR=$state
    # The downloads of an earlier root step (gd_prepare_downloads) are read from root's cache.
    GD_CACHE_DIR=/var/cache/gpudoctor/$GD_SCRIPT_ID
    GD_WORK_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/gpudoctor/$GD_SCRIPT_ID
    if [[ ! -d $GD_CACHE_DIR ]]; then GD_CACHE_DIR=$GD_WORK_DIR; fi
  fi
  GD_JOURNAL=$GD_LOG_DIR/$GD_SCRIPT_ID.journal
  if [[ -z $GD_RUN_ID ]]; then GD_RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)-$$; fi
  GD_BACKUP_DIR=$GD_BACKUP_ROOT/$GD_SCRIPT_ID/$GD_RUN_ID
}

# One journal line: time, run, step, event, arguments (tab-separated). Nothing is written with --dry-run.
# A backslash, tab, CR or line feed in a field is written \\, \t, \r or \n: no value (a path, a title) can
# end its field or its line and forge an entry for `gpudoctor undo`, which reads them back.
gd_journal() {
  if ((GD_DRY_RUN)); then return 0; fi
  mkdir -p -- "$GD_LOG_DIR"
  local IFS=$'\t' field fields=()
  for field in "$GD_RUN_ID" "$GD_STEP" "$@"; do
    field=${field//\\/\\\\}
    field=${field//$'\t'/\\t}
    field=${field//$'\r'/\\r}
    fields+=("${field//$'\n'/\\n}")
  done
  printf '%s\t%s\n' "$(gd_now)" "${fields[*]}" >>"$GD_JOURNAL"
}
gd_journal_sync() {
  if ((GD_DRY_RUN)); then return 0; fi
  sync -- "$GD_JOURNAL"
}

# The journal keeps room of its own: at each step's start, 64 KiB past its end are reserved (fallocate
# --keep-size), so that a disk that fills while the step runs still takes the step's entries and the prepare
# stage's rollback, which `undo` and a resume read back. A step that cannot reserve them stops before it
# changes anything (and a failed prepare stage is put back, its entries in what is left of the reserve).
gd_journal_reserve() {
  local size
  if ((GD_DRY_RUN)); then return 0; fi
  size=$(stat -c %s -- "$GD_JOURNAL")
  if fallocate --keep-size --offset "$size" --length 65536 -- "$GD_JOURNAL" 2>/dev/null; then return 0; fi
  # A filesystem without fallocate: its free space instead.
  if (($(gd_free_kib "$GD_LOG_DIR") >= 64)); then return 0; fi
  gd_die "$GD_LOG_DIR is full: no room for this step's journal, so the step did not start. Make room there, then run the same command again"
}

# Runs a command that changes the machine (only prints it with --dry-run).
gd_run() {
  if ((GD_DRY_RUN)); then
    gd_note "would run: $(gd_quote "$@")"
    return 0
  fi
  local shown=("$@")
  if [[ $1 == gd_dnf ]]; then shown[0]=dnf; fi
  gd_note "+ $(gd_quote "${shown[@]}")"
  "$@"
}

# Runs a command as the user the script was made for (with runuser when the script runs as root).
gd_as_user() {
  local user=$1
  gd_not_installroot gd_as_user
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

# rpm and dnf, on this machine or (installroot mode) on GD_INSTALLROOT.
gd_rpm() {
  if [[ -n $GD_INSTALLROOT ]]; then rpm --root "$GD_INSTALLROOT" "$@"; else rpm "$@"; fi
}
gd_dnf() {
  local opts=()
  gd_read_lines opts <<<"$GD_DNF_OPTS"
  if [[ -n $GD_INSTALLROOT ]]; then opts+=(--installroot "$GD_INSTALLROOT"); fi
  dnf "${opts[@]}" "$@"
}
# Stops a helper that would change the host instead of the installroot.
gd_not_installroot() {
  if [[ -n $GD_INSTALLROOT ]] && ((!GD_DRY_RUN)); then
    gd_die "$1 cannot run in installroot mode (it would act on this host)"
  fi
}

# The kernel modules are built for: the running one where the script runs on its machine (a plan made from
# a bundle names the bundle's kernel, GD_KERNEL, and the machine may have booted another since); in a root
# (chroot: the host's kernel has no modules there; dnf --installroot) the planned one stands in.
gd_kernel() {
  local running
  running=$(uname -r)
  if [[ -n ${GD_KERNEL:-} && (-n ${GD_INSTALLROOT:-} || ! -d ${GD_MODULES_DIR:-/lib/modules}/$running) ]]; then
    printf '%s' "$GD_KERNEL"
  else
    printf '%s' "$running"
  fi
}

# The kernel that boots next: the newest installed linux-image-* (Debian family; what the boot loader's first
# entry is after the kernel packages' hooks ran), `grubby --default-kernel` (RHEL family). Nothing when unknown,
# and in installroot mode (the host's boot loader is not the root's).
gd_next_kernel() {
  local out
  if [[ -n $GD_INSTALLROOT ]]; then return 0; fi
  case $GD_FAMILY in
  debian)
    # shellcheck disable=SC2016 # dpkg-query's format
    out=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 'linux-image-[0-9]*' 'linux-image-unsigned-[0-9]*' \
      2>/dev/null || true)
    awk '$1 ~ /^.i/ && $2 !~ /-dbg(sym)?$/ { sub(/^linux-image-(unsigned-)?/, "", $2); print $2 }' <<<"$out" |
      sort -uV | tail -n 1
    ;;
  rhel)
    if gd_have grubby; then
      out=$(grubby --default-kernel 2>/dev/null || true)
      if [[ $out == */vmlinuz-* ]]; then printf '%s\n' "${out##*/vmlinuz-}"; fi
    fi
    ;;
  esac
}

# The kernels an incoming driver's module must be there for before anything is removed: the one the script
# was made for (the running one) and the one that boots next, each once.
gd_target_kernels() {
  local running next
  running=$(gd_kernel)
  next=$(gd_next_kernel)
  printf '%s\n' "$running"
  if [[ -n $next && $next != "$running" ]]; then printf '%s\n' "$next"; fi
}

# gd_install_kernel_packages PREFIX... [-- EXTRA...]: PREFIX<kernel> for each target kernel (linux-headers-,
# kernel-devel-, linux-modules-extra-), and the EXTRA packages: what a module is built against, for both kernels
# (a kernel without them in the index stops the install, which names it: its module could not be built).
gd_install_kernel_packages() {
  local prefixes=() kernels=() want=() prefix kernel
  while (($#)) && [[ $1 != -- ]]; do prefixes+=("$1") && shift; done
  if (($#)); then shift; fi
  gd_read_lines kernels <<<"$(gd_target_kernels)"
  for kernel in "${kernels[@]}"; do
    for prefix in "${prefixes[@]}"; do want+=("$prefix$kernel"); done
  done
  gd_install_packages "${want[@]}" "$@"
}

gd_verify_kernel_packages() {
  local prefixes=() kernels=() want=() prefix kernel
  while (($#)) && [[ $1 != -- ]]; do prefixes+=("$1") && shift; done
  if (($#)); then shift; fi
  gd_read_lines kernels <<<"$(gd_target_kernels)"
  for kernel in "${kernels[@]}"; do
    for prefix in "${prefixes[@]}"; do want+=("$prefix$kernel"); done
  done
  gd_verify_installed "${want[@]}" "$@"
}

# ---- files ----------------------------------------------------------------------------------------------

# Copies FILE into this run's backup folder (once per run: the first copy is the state before the run).
gd_backup() {
  local file=$1 dest=$GD_BACKUP_DIR$1
  if [[ ! -e $dest && ! -L $dest ]]; then
    # Backups may hold secrets (a profile's tokens): only root (or the user) may read them.
    if [[ ! -d $GD_BACKUP_ROOT ]]; then (umask 077 && mkdir -p -- "$GD_BACKUP_ROOT"); fi
    mkdir -p -- "${dest%/*}"
    cp -P -p -- "$GD_INSTALLROOT$file" "$dest"
    sync -- "$dest"
  fi
  gd_journal backup "$file" "${dest#"$GD_INSTALLROOT"}"
  gd_journal_sync
}

# The folder of a path, for fsync after a rename.
gd_dir_of() {
  local dir=${1%/*}
  printf '%s' "${dir:-/}"
}

# gd_temp_beside DIR: a new empty file in DIR for an atomic replace (its path in GD_TEMP), its name journaled
# (temp-file) before it exists: a run killed before the rename leaves it behind, and the next run of the
# script (gd_remove_stale_temps) or `gpudoctor undo` removes it. Created with O_EXCL (noclobber).
gd_temp_beside() {
  GD_TEMP_COUNT=$((GD_TEMP_COUNT + 1))
  GD_TEMP=$1/.gpudoctor-$GD_RUN_ID-$GD_TEMP_COUNT.tmp
  gd_journal temp-file "${GD_TEMP#"$GD_INSTALLROOT"}"
  gd_journal_sync
  (set -o noclobber && : >"$GD_TEMP") 2>/dev/null || gd_die "could not create ${GD_TEMP#"$GD_INSTALLROOT"}"
}

# The temporary files earlier runs of this script journaled (temp-file) and left: a run killed between
# creating one and renaming it over its file.
gd_remove_stale_temps() {
  local _time run _step event path
  if ((GD_DRY_RUN)) || [[ ! -f $GD_JOURNAL ]]; then return 0; fi
  while IFS=$'\t' read -r _time run _step event path; do
    [[ $event == temp-file && $run != "$GD_RUN_ID" && $path == /*/.gpudoctor-*.tmp && $path != *\\* ]] || continue
    if [[ -f $GD_INSTALLROOT$path && ! -L $GD_INSTALLROOT$path ]]; then
      rm -f -- "$GD_INSTALLROOT$path"
      gd_note "removed $path (an earlier run was stopped before it renamed it)"
    fi
  done <"$GD_JOURNAL"
}

# gd_edit_file FILE FILTER [ARG...]: replaces FILE by what `FILTER ARG... <FILE` prints, atomically and
# with a backup; nothing happens when the output equals the file. With --dry-run it prints the diff.
gd_edit_file() {
  local file=$1 path=$GD_INSTALLROOT$1 dir tmp
  shift
  if [[ -L $path ]]; then
    gd_note "$file is a symbolic link: not edited"
    return 0
  fi
  if [[ ! -f $path ]]; then return 0; fi
  if ((GD_DRY_RUN)); then
    # shellcheck disable=SC2094 # the file is only read here
    "$@" <"$path" | diff -u --label "$file" --label "$file (after)" -- "$path" - | sed 's/^/      /' || true
    return 0
  fi
  dir=$(gd_dir_of "$path")
  gd_temp_beside "$dir"
  tmp=$GD_TEMP
  if ! "$@" <"$path" >"$tmp"; then
    rm -f -- "$tmp"
    gd_die "could not filter $file"
  fi
  if cmp -s -- "$path" "$tmp"; then
    rm -f -- "$tmp"
    return 0
  fi
  gd_backup "$file"
  chown --reference="$path" -- "$tmp" 2>/dev/null || true
  chmod --reference="$path" -- "$tmp"
  sync -- "$tmp"
  mv -f -- "$tmp" "$path"
  sync -- "$dir"
  gd_journal edited "$file"
  GD_CHANGES=$((GD_CHANGES + 1))
  gd_note "edited $file (backup: $GD_BACKUP_DIR$file)"
}

# A file the script replaces must be a regular file or a link (backed up, then replaced): the rename would put a
# file in place of a device or a FIFO, and mv would move the new file into a folder of that name.
gd_refuse_other_nodes() {
  if [[ -e $1 && ! -f $1 && ! -L $1 ]]; then gd_die "${1#"$GD_INSTALLROOT"} exists and is not a regular file: not replaced"; fi
}

# gd_write_file FILE MODE <CONTENT: makes FILE hold exactly CONTENT, atomically (backup when it existed).
gd_write_file() {
  local file=$1 path=$GD_INSTALLROOT$1 mode=$2 content current dir tmp
  content=$(
    cat
    printf x
  )
  content=${content%x}
  gd_refuse_other_nodes "$path"
  if [[ -f $path && ! -L $path ]]; then
    current=$(
      cat -- "$path"
      printf x
    )
    if [[ ${current%x} == "$content" ]]; then return 0; fi
  fi
  if ((GD_DRY_RUN)); then
    gd_note "would write $file:"
    printf '%s' "$content" | sed 's/^/      /'
    return 0
  fi
  dir=$(gd_dir_of "$path")
  mkdir -p -- "$dir"
  gd_temp_beside "$dir"
  tmp=$GD_TEMP
  printf '%s' "$content" >"$tmp"
  chmod "$mode" -- "$tmp"
  sync -- "$tmp"
  if [[ -e $path || -L $path ]]; then
    gd_backup "$file"
  else
    gd_journal created "$file"
    gd_journal_sync
  fi
  mv -fT -- "$tmp" "$path"
  sync -- "$dir"
  GD_CHANGES=$((GD_CHANGES + 1))
  # A new package source: the index is updated again before the next install.
  case $file in /etc/apt/* | /etc/yum.repos.d/*) GD_APT_UPDATED=0 ;; esac
  gd_note "wrote $file"
}

# gd_install_file SOURCE FILE MODE: FILE becomes a copy of SOURCE, atomically, byte for byte (binary files
# such as keys: gd_write_file reads its content into bash, which drops NUL bytes).
gd_install_file() {
  local src=$1 file=$2 mode=$3 dir tmp
  gd_not_installroot gd_install_file
  gd_refuse_other_nodes "$file"
  if [[ -f $file && ! -L $file ]] && cmp -s -- "$src" "$file"; then return 0; fi
  if ((GD_DRY_RUN)); then
    gd_note "would write $file ($(wc -c <"$src") bytes)"
    return 0
  fi
  dir=$(gd_dir_of "$file")
  mkdir -p -- "$dir"
  gd_temp_beside "$dir"
  tmp=$GD_TEMP
  cp -- "$src" "$tmp"
  chmod "$mode" -- "$tmp"
  sync -- "$tmp"
  if [[ -e $file || -L $file ]]; then
    gd_backup "$file"
  else
    gd_journal created "$file"
    gd_journal_sync
  fi
  mv -fT -- "$tmp" "$file"
  sync -- "$dir"
  GD_CHANGES=$((GD_CHANGES + 1))
  case $file in /etc/apt/* | /etc/yum.repos.d/*) GD_APT_UPDATED=0 ;; esac
  gd_note "wrote $file"
}

# Removes files (or symbolic links), keeping a backup of each.
gd_remove_files() {
  local file dir
  gd_not_installroot gd_remove_files
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
    gd_journal removed-file "$file" "${GD_BACKUP_DIR#"$GD_INSTALLROOT"}$file"
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
  gd_not_installroot gd_remove_trees
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

# Shell-profile lines: drops assignments of variables matching VARS_RE (an ERE of whole names) and lines
# that source a script in a folder matching PATHS_RE (an ERE), and removes such folders from PATH-like
# assignments (also in the ${PATH:+:${PATH}} idiom); a line left with nothing but its own variable goes. Lines with anything else on them (;, &&,
# $( ), other ${...:...} expansions) are kept as they are.
gd_filter_profile() {
  GD_VARS_RE=$1 GD_PATHS_RE=$2 awk '
    BEGIN { vars = ENVIRON["GD_VARS_RE"]; paths = ENVIRON["GD_PATHS_RE"] }
    function self(v, name) { return v == "$" name || v == "${" name "}" || v == "" }
    function ends(s, t) { return length(s) >= length(t) && substr(s, length(s) - length(t) + 1) == t }
    {
      line = $0
      if (line ~ /^[[:space:]]*#/) { print line; next }
      # "source /opt/rocm/share/env.sh" or ". /opt/rocm-6.2.4/env": a script of the stack, nothing else.
      if (match(line, /^[[:space:]]*(source|\.)[[:space:]]+/)) {
        arg = substr(line, RLENGTH + 1); sub(/[[:space:]]+#.*$/, "", arg); sub(/[[:space:]]+$/, "", arg)
        if (arg ~ /^".*"$/ || arg ~ /^\047.*\047$/) arg = substr(arg, 2, length(arg) - 2)
        if (paths != "" && arg !~ /[[:space:];&|`]|\$\(/ && arg ~ ("^(" paths ")(/.*)?$")) next
        print line; next
      }
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

# Installed and configured, whatever dpkg's selection says: an apt run killed mid-purge leaves packages it was
# about to remove "ri" or "pi" (selected for removal, still installed), and they are still installed.
gd_pkg_installed() {
  case $GD_FAMILY in
  debian) [[ $(dpkg-query -W -f='${db:Status-Abbrev}' -- "$1" 2>/dev/null) == ?[iWt]* ]] ;;
  rhel) gd_rpm -q --quiet -- "$1" 2>/dev/null ;;
  esac
}

# A dpkg run that was interrupted (killed, power lost) leaves its pending updates, and apt refuses to act until
# `dpkg --configure -a` has finished them: the recovery apt itself names. Run before the package steps act.
gd_dpkg_recover() {
  [[ $GD_FAMILY == debian ]] || return 0
  local pending
  pending=$(find /var/lib/dpkg/updates -mindepth 1 -maxdepth 1 -print -quit 2>/dev/null || true)
  [[ -n $pending || -n $(dpkg --audit 2>/dev/null || true) ]] || return 0
  if ((GD_DRY_RUN)); then
    gd_note "dpkg was interrupted: the run finishes it first (dpkg --configure -a)"
    return 0
  fi
  gd_note "dpkg was interrupted: finishing it (dpkg --configure -a)"
  gd_run env DEBIAN_FRONTEND=noninteractive dpkg --configure -a
}

# Whether apt or dnf can install a package (it is in the package index).
gd_pkg_available() {
  case $GD_FAMILY in
  # No package caches written: --dry-run must leave the machine as it was.
  debian) [[ -n $(apt-cache -q=2 -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= show --no-all-versions -- "$1" \
    2>/dev/null | grep '^Version:' || true) ]] ;;
  rhel) gd_dnf -q list --available -- "$1" >/dev/null 2>&1 ;;
  esac
}

# Names of the held packages among those given (apt-mark hold; dpkg's selection "hold").
gd_held_packages() {
  local name
  [[ $GD_FAMILY == debian ]] || return 0
  for name in "$@"; do
    if [[ $(dpkg-query -W -f='${db:Status-Want}' -- "$name" 2>/dev/null) == hold ]]; then printf '%s\n' "$name"; fi
  done
}

gd_pkg_config_only() {
  [[ $GD_FAMILY == debian && $(dpkg-query -W -f='${db:Status-Abbrev}' -- "$1" 2>/dev/null) == ?c* ]]
}

gd_pkg_version() {
  case $GD_FAMILY in
  debian) dpkg-query -W -f='${Version}' -- "$1" 2>/dev/null || true ;;
  rhel) gd_rpm -q --qf '%{VERSION}-%{RELEASE}' -- "$1" 2>/dev/null || true ;;
  esac
}

gd_owned_by_package() {
  case $GD_FAMILY in
  debian) dpkg-query -S -- "$1" >/dev/null 2>&1 ;;
  rhel) gd_rpm -qf -- "$1" >/dev/null 2>&1 ;;
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

# The apt options that make installs come from this script's download cache (gd_prepare_downloads), once
# it is complete: apt takes a package from there when it is there (not --no-download: apt cannot install
# from a file:// mirror with it, and a file:// mirror's packages are on the machine already).
gd_apt_cache_opts() {
  if [[ $GD_FAMILY == debian && -f $GD_CACHE_DIR/ready ]]; then
    printf '%s\n' -o "Dir::Cache::archives=$GD_CACHE_DIR/debs/"
  fi
}

# Records what a later step needs downloaded (gd_prepare_downloads runs the later steps with GD_COLLECT).
gd_collect() {
  local list=$1
  shift
  printf '%s\n' "$@" >>"$GD_COLLECT/$list"
}

# The packages apt would autoremove now (one a line).
gd_autoremovable() {
  [[ $GD_FAMILY == debian ]] || return 0
  LC_ALL=C apt-get -s -q -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= -o Dir::Log::Planner=/dev/null \
    autoremove 2>/dev/null | awk '$1 == "Remv" { print $2 }' | sort -u
}

# gd_purge_packages NAME... [-- REPLACEMENT...]: purges exactly the packages given that are installed, and
# installs the distribution's REPLACEMENTs (AMD's Mesa -> Mesa) that are not installed in the same
# transaction; stops when the package manager would take any other package with them.
gd_purge_packages() {
  local want=() repl=() name extra sim opts=() present
  if [[ -z $GD_COLLECT ]]; then gd_dpkg_recover; fi
  present=$'\n'$(gd_present_names)$'\n'
  while (($#)) && [[ $1 != -- ]]; do
    # A package of the list that only its configuration files are left of (a purge killed between dpkg's
    # --remove and --purge) is the purge's too: the clean run would have purged it.
    if [[ $present == *$'\n'"$1"$'\n'* ]] || gd_pkg_config_only "$1"; then want+=("$1"); fi
    shift
  done
  if (($#)); then shift; fi
  if ((${#want[@]} == 0)); then
    gd_note "none of these packages is installed"
    return 0
  fi
  for name in "$@"; do
    if ! gd_pkg_installed "$name" && gd_pkg_available "$name"; then repl+=("$name"); fi
  done
  if [[ -n $GD_COLLECT ]]; then
    for name in "${want[@]}"; do gd_collect outgoing "$name=$(gd_pkg_version "$name")"; done
    if ((${#repl[@]})); then gd_collect install "${repl[@]}"; fi
    return 0
  fi
  case $GD_FAMILY in
  debian)
    # A simulation that writes nothing: no package caches, no solver log (so --dry-run changes nothing).
    if ! sim=$(LC_ALL=C apt-get -s -q -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
      -o Dir::Log::Planner=/dev/null purge "${want[@]}" "${repl[@]/%/+}" 2>&1); then
      gd_die "apt-get cannot remove $(gd_quote "${want[@]}"): $sim"
    fi
    extra=$(printf '%s\n' "$sim" | gd_extra_removals "${want[@]}")
    ;;
  rhel)
    sim=$(LC_ALL=C gd_rpm -e --test "${want[@]}" 2>&1 || true)
    extra=$(printf '%s\n' "$sim" | awk '/is needed by/ {print $NF}' | sort -u)
    ;;
  esac
  if [[ -n $extra ]]; then
    gd_die "removing $(gd_quote "${want[@]}") would also remove: ${extra//$'\n'/ }; handle those first"
  fi
  if ((${#repl[@]})); then gd_note "installing the distribution's $(gd_quote "${repl[@]}") in their place"; fi
  if ((!GD_DRY_RUN)); then
    # What apt could autoremove before the purge is not the purge's to remove (gd_autoremove_orphans).
    mkdir -p -- "$GD_STATE_DIR"
    if [[ ! -f $GD_STATE_DIR/$GD_SCRIPT_ID.autoremove-before ]]; then
      gd_autoremovable >"$GD_STATE_DIR/$GD_SCRIPT_ID.autoremove-before"
    fi
    local autos=''
    if [[ $GD_FAMILY == debian ]]; then autos=" $(apt-mark showauto -- "${want[@]}" 2>/dev/null | tr '\n' ' ')"; fi
    for name in "${want[@]}"; do
      if gd_pkg_config_only "$name"; then
        # Only its configuration is left: undo has no package to bring back for this run (an earlier run
        # that removed it journaled it).
        gd_journal purge-config "$name"
      elif [[ $autos == *" $name "* ]]; then
        gd_journal purge-package "$name" "$(gd_pkg_version "$name")" auto
      else
        gd_journal purge-package "$name" "$(gd_pkg_version "$name")"
      fi
    done
    gd_journal_sync
  fi
  local before
  before=$(gd_installed_names)
  case $GD_FAMILY in
  debian)
    gd_read_lines opts <<<"$(gd_apt_cache_opts)"
    gd_run env DEBIAN_FRONTEND=noninteractive apt-get purge -y -q "${opts[@]}" "${want[@]}" "${repl[@]/%/+}"
    ;;
  rhel)
    if ((${#repl[@]})); then gd_run gd_dnf install -y "${repl[@]}"; fi
    # Exactly these packages: dnf would also remove what they pulled in (dkms, gcc), which is not the purge's.
    gd_run gd_dnf remove -y --setopt=clean_requirements_on_remove=False "${want[@]}"
    ;;
  esac
  if ((GD_DRY_RUN)); then return 0; fi
  gd_journal_new_packages "$before"
  GD_CHANGES=$((GD_CHANGES + 1))
}

# What the purge orphaned: apt's autoremove list now, minus what it listed before the purge, never a package
# matching one of the KEEP_GLOBs (kernels, dkms, Mesa, firmware), nor one that a package of apt's list this
# leaves installed still needs (Debian's X server and Mesa, which its NVIDIA driver pulled in, need udev and
# libX11): removing that would take the kept package with it.
gd_new_orphans() {
  local before=$GD_STATE_DIR/$GD_SCRIPT_ID.autoremove-before name glob keep kept=() candidates=() needed=$'\n'
  if [[ $GD_FAMILY != debian || ! -f $before ]]; then return 0; fi
  while IFS= read -r name; do
    [[ -n $name ]] || continue
    keep=0
    for glob in "$@"; do
      # shellcheck disable=SC2053 # a glob, on purpose
      if [[ $name == $glob ]]; then keep=1; fi
    done
    if ((keep)) || grep -qxF -- "$name" "$before"; then kept+=("$name"); else candidates+=("$name"); fi
  done <<<"$(gd_autoremovable)"
  if ((${#candidates[@]} == 0)); then return 0; fi
  if ((${#kept[@]})); then
    needed+=$(apt-cache depends --installed --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
      --no-replaces --no-enhances -- "${kept[@]}" 2>/dev/null | grep -v '^[[:space:]<]' | sed 's/:.*//')$'\n'
  fi
  for name in "${candidates[@]}"; do
    if [[ $needed != *$'\n'"$name"$'\n'* ]]; then printf '%s\n' "$name"; fi
  done
}

# gd_autoremove_orphans KEEP_GLOB...: AMD's uninstall guide's `apt autoremove`, limited to what this script's
# purge orphaned (gd_new_orphans), each package named and journaled like the purge's own.
gd_autoremove_orphans() {
  local orphans=()
  gd_read_lines orphans <<<"$(gd_new_orphans "$@")"
  if ((${#orphans[@]} == 0)) || [[ -z ${orphans[0]} ]]; then return 0; fi
  gd_note "no longer needed by anything: $(gd_quote "${orphans[@]}")"
  if [[ -n $GD_COLLECT ]]; then return 0; fi
  gd_purge_packages "${orphans[@]}"
}

gd_verify_no_orphans() {
  local left
  left=$(gd_new_orphans "$@")
  if [[ -n $left ]]; then
    gd_say "apt would still autoremove: ${left//$'\n'/ }" >&2
    return 1
  fi
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
  rhel) gd_run gd_dnf makecache -q ;;
  esac
  GD_APT_UPDATED=1
}

# gd_install_packages NAME... [-- REPLACED...]: installs the packages given that are not installed yet (NAME
# or NAME=VERSION); the distribution's builds of the stack among REPLACED (NAME or NAME=VERSION) that are
# installed go first, in the same step (gd_replace_packages). The install is simulated first
# (gd_install_problem): one that would remove any package stops before it changes anything. One that fails
# (a DKMS build in a driver's postinst, the most common failure) shows DKMS's make.log and takes out again what
# it had unpacked, so the package manager is left as it was before the step.
gd_install_packages() {
  local missing=() spec name version wanted=() replaced=() present
  if [[ -z $GD_COLLECT ]]; then gd_dpkg_recover; fi
  while (($#)) && [[ $1 != -- ]]; do wanted+=("$1") && shift; done
  if (($#)); then shift; fi
  if (($#)); then
    present=$'\n'$(gd_present_names)$'\n'
    for spec in "$@"; do
      name=${spec%%=*}
      if [[ $present == *$'\n'"$name"$'\n'* ]]; then replaced+=("$name"); fi
    done
  fi
  set -- "${wanted[@]}"
  if ((${#replaced[@]})); then
    gd_replace_packages "${replaced[@]}" -- "$@"
    return
  fi
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
  if [[ -n $GD_COLLECT ]]; then
    gd_collect install "${missing[@]}"
    return 0
  fi
  local opts=() before out problem
  gd_read_lines opts <<<"$(gd_apt_cache_opts)"
  if ((${#opts[@]} == 0)); then gd_package_index_update; fi
  if ! gd_install_problem "${missing[@]}"; then
    problem=$GD_INSTALL_PROBLEM
    # A dry run goes on: the repository may come with an earlier step that it did not run.
    if ((GD_DRY_RUN)); then gd_note "the install would stop here if this were so when it runs: $problem"; else
      gd_die "$problem; nothing was changed by this step"
    fi
  fi
  before=$(gd_present_names)
  gd_journal_planned_installs "$before"
  # Created before the install: DKMS's logs newer than it are this install's.
  out=$(mktemp)
  case $GD_FAMILY in
  debian)
    if ! gd_run env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${opts[@]}" \
      "${missing[@]}" 2>&1 | tee -- "$out"; then
      gd_install_failed "$before" "$out" "${missing[@]}"
    fi
    ;;
  rhel)
    if ! gd_run gd_dnf install -y "${missing[@]//=/-}" 2>&1 | tee -- "$out"; then
      gd_install_failed "$before" "$out" "${missing[@]}"
    fi
    ;;
  esac
  rm -f -- "$out"
  if ((GD_DRY_RUN)); then return 0; fi
  gd_journal_new_packages "$before"
  GD_CHANGES=$((GD_CHANGES + 1))
}

# gd_sim_status NAME...: a copy of dpkg's status without NAMEs' records, for simulations and downloads that
# must see the machine as the purge of NAMEs leaves it (apt reads it with -o Dir::State::status=FILE).
gd_sim_status() {
  local file
  file=$(mktemp)
  awk -v names=" $* " 'BEGIN { RS = ""; ORS = "\n\n" }
    { split($0, first, "\n"); name = first[1]; sub(/^Package:[ \t]*/, "", name) }
    index(names, " " name " ") == 0 { print }' /var/lib/dpkg/status >"$file"
  printf '%s' "$file"
}

# The apt options of a simulation: the status without the replaced packages (gd_sim_status), when set.
gd_sim_opts() {
  if [[ -n $GD_SIM_STATUS ]]; then printf '%s\n' -o "Dir::State::status=$GD_SIM_STATUS"; fi
}

# gd_replace_packages REPLACED... -- NAME...: the distribution's builds of the stack (REPLACED, installed) go
# and the vendor's NAMEs come in, one step: the install is simulated as the purge leaves the machine (stops
# before any change if it could not be done), the purge (gd_purge_packages: journaled, exactly these), then
# the install from the download cache. If the install fails, what it unpacked is taken out and REPLACED are
# put back from the cache, so the machine keeps the driver it had. Same-named packages (Debian's rocminfo
# 6.1.2 against AMD's rocminfo 1.0.0.70200) cannot be replaced by version: apt keeps the higher one.
gd_replace_packages() {
  local replaced=() spec
  while (($#)) && [[ $1 != -- ]]; do replaced+=("$1") && shift; done
  if (($#)); then shift; fi
  if [[ -n $GD_COLLECT ]]; then
    gd_collect replace "${replaced[@]}"
    for spec in "${replaced[@]}"; do gd_collect outgoing "$spec=$(gd_pkg_version "$spec")"; done
    gd_collect install "$@"
    return 0
  fi
  gd_note "replacing the distribution's $(gd_quote "${replaced[@]}") with $(gd_quote "$@")"
  local opts=()
  gd_read_lines opts <<<"$(gd_apt_cache_opts)"
  if ((${#opts[@]} == 0)); then gd_package_index_update; fi
  if [[ $GD_FAMILY == debian ]]; then
    GD_SIM_STATUS=$(gd_sim_status "${replaced[@]}")
    if ! gd_install_problem "$@"; then
      rm -f -- "$GD_SIM_STATUS"
      GD_SIM_STATUS=
      if ((GD_DRY_RUN)); then gd_note "the install would stop here if this were so when it runs: $GD_INSTALL_PROBLEM"; else
        gd_die "$GD_INSTALL_PROBLEM; nothing was changed by this step"
      fi
    fi
    rm -f -- "$GD_SIM_STATUS"
    GD_SIM_STATUS=
  fi
  if ((!GD_DRY_RUN)); then
    # undo then takes what comes in out before it puts these back: they may share files.
    gd_journal replaced-by-install "${replaced[@]}"
    gd_journal_sync
  fi
  gd_purge_packages "${replaced[@]}"
  if ((GD_DRY_RUN)); then
    gd_note "would run: apt-get install $*"
    return 0
  fi
  GD_RESTORE=("${replaced[@]}")
  gd_install_packages "$@"
  GD_RESTORE=()
}

# After a failed install that had purged the distribution's packages it replaces (GD_RESTORE): those are
# installed again from the .debs the download step kept, each journaled; a failure is said, and undo
# (which reads the purge's journal) remains.
gd_restore_replaced() {
  local debs=() name file
  if ((${#GD_RESTORE[@]} == 0)) || [[ $GD_FAMILY != debian ]]; then return 0; fi
  for name in "${GD_RESTORE[@]}"; do
    file=$(find "$GD_CACHE_DIR/outgoing" -maxdepth 1 -name "${name}_*.deb" -print -quit 2>/dev/null)
    if [[ -n $file ]]; then debs+=("$file"); fi
  done
  if ((${#debs[@]} == 0)) ||
    ! env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends --allow-downgrades \
      "${debs[@]}" >/dev/null 2>&1; then
    gd_note "could not put back $(gd_quote "${GD_RESTORE[@]}") from $GD_CACHE_DIR/outgoing: gpudoctor undo reinstalls them"
    GD_RESTORE=()
    return 0
  fi
  for name in "${GD_RESTORE[@]}"; do
    if gd_pkg_installed "$name"; then gd_journal installed-package "$name" "$(gd_pkg_version "$name")" restored; fi
  done
  gd_journal_sync
  gd_note "put back the distribution's $(gd_quote "${GD_RESTORE[@]}")"
  GD_RESTORE=()
}

# gd_install_failed BEFORE OUTPUT NAME...: after a failed install: DKMS's make.log of a failed build (its tail,
# a copy kept beside the journal), what the install left unpacked or half-configured purged again (each
# journaled; what cannot be purged is journaled as installed, for undo), and the reason, with the admin's pins
# and holds that apply to these packages.
gd_install_failed() {
  local before=$1 out=$2 left=() name reason
  shift 2
  reason=$(gd_manager_errors <"$out")
  gd_show_dkms_failures "$out"
  gd_read_lines left <<<"$(gd_only_in_second "$before" "$(gd_present_names)")"
  if ((${#left[@]})) && [[ -n ${left[0]} ]]; then
    gd_note "taking out what the failed install left: ${left[*]}"
    case $GD_FAMILY in
    debian) env DEBIAN_FRONTEND=noninteractive dpkg --purge -- "${left[@]}" >>"$out" 2>&1 || true ;;
    rhel) gd_rpm -e --nodeps -- "${left[@]}" >>"$out" 2>&1 || true ;;
    esac
    for name in "${left[@]}"; do
      if gd_pkg_present "$name"; then
        gd_journal installed-package "$name" "$(gd_pkg_version "$name")"
      else
        gd_journal install-rolled-back "$name"
      fi
    done
    gd_journal_sync
  fi
  rm -f -- "$out"
  local restored=''
  if ((${#GD_RESTORE[@]})); then
    gd_restore_replaced
    restored=', and the distribution packages it replaced are put back'
  fi
  gd_die "could not install $(gd_quote "$@"): ${reason:-the package manager failed}$(gd_install_blockers "$reason" "$@")." \
    "What this install had unpacked is purged again${restored}; nothing else was changed by this step"
}

# The package manager's own reasons in its output (stdin): apt's E: lines, dpkg's errors, dnf's Error section.
gd_manager_errors() {
  grep -E '^(E: |Error: |  - |Error! )|returned error exit status|has no installation candidate' |
    grep -v '^E: Can not write log' | sed -n 1,6p | tr '\n' ' ' | sed 's/ *$//' || true
}

# Names of packages whose state is anything but "not installed" (dpkg: unpacked and half-configured ones too).
gd_present_names() {
  # shellcheck disable=SC2016 # dpkg-query's format
  case $GD_FAMILY in
  debian) dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 2>/dev/null | awk '$1 !~ /^.[nc]/ { print $2 }' | sort -u ;;
  rhel) gd_rpm -qa --qf '%{NAME}\n' 2>/dev/null | sort -u ;;
  esac
}
# Some of the package is on disk: installed, or left unpacked, half-configured or half-removed by a dpkg run
# that was interrupted (a purge takes those too, and a purged package is none of these).
gd_pkg_present() { grep -qxF -- "$1" <<<"$(gd_present_names)"; }

# gd_install_problem NAME...: what stops installing these packages, in GD_INSTALL_PROBLEM, with status 1: the
# package manager cannot (its reasons, the admin's pins and holds that apply), or it would remove a package (no
# install removes anything: the purge removes the list the plan names, nothing else does), with the relation
# that makes it. Read-only: a simulation (apt-get -s without caches, dnf --assumeno), whose new packages it
# leaves in GD_INSTALL_PLANNED (Debian). Called in the script's own shell, not in a subshell, for those two.
gd_install_problem() {
  local sim extra='' opts=() names=()
  GD_INSTALL_PROBLEM='' GD_INSTALL_PLANNED=''
  gd_read_lines opts <<<"$(gd_apt_cache_opts; gd_sim_opts)"
  case $GD_FAMILY in
  debian)
    if ! sim=$(LC_ALL=C apt-get -s -q -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= \
      -o Dir::Log::Planner=/dev/null install --no-install-recommends "${opts[@]}" "$@" 2>&1); then
      sim=$(gd_manager_errors <<<"$sim")
      printf -v GD_INSTALL_PROBLEM 'apt-get cannot install %s: %s%s' "$(gd_quote "$@")" "${sim:-its simulation failed}" \
        "$(gd_install_blockers "$sim" "$@")"
      return 1
    fi
    extra=$(gd_extra_removals <<<"$sim")
    GD_INSTALL_PLANNED=$(awk '$1 == "Inst" { print $2 }' <<<"$sim")
    ;;
  rhel)
    sim=$(LC_ALL=C gd_dnf install --assumeno "${@//=/-}" 2>&1 || true)
    if grep -q '^Error' <<<"$sim"; then
      printf -v GD_INSTALL_PROBLEM 'dnf cannot install %s: %s' "$(gd_quote "$@")" "$(gd_manager_errors <<<"$sim")"
      return 1
    fi
    extra=$(gd_dnf_removals <<<"$sim")
    ;;
  esac
  if [[ -z $extra ]]; then return 0; fi
  gd_read_lines names <<<"$extra"
  printf -v GD_INSTALL_PROBLEM '%s%s%s' \
    "installing $(gd_quote "$@") would remove $(gd_quote "${names[@]}")$(gd_conflict_reasons "$sim" "${names[@]}")." \
    ' No install removes anything (only the purge does, the list the plan names, once the new driver is in):' \
    " remove or change $(gd_quote "${names[@]}") yourself, then run this again"
  return 1
}

# Packages dnf's transaction (stdin: `dnf install --assumeno`) would remove or replace: its Removing sections and
# the "replacing" lines of what an install obsoletes.
gd_dnf_removals() { gd_dnf_sections Removing; }

# Why an install would remove NAMEs: their Conflicts and Breaks (dpkg's record), and those of the packages the
# simulation (SIM) installs that name them.
gd_conflict_reasons() {
  local sim=$1 name rel inst=() out=''
  shift
  [[ $GD_FAMILY == debian ]] || return 0
  gd_read_lines inst <<<"$(awk '$1 == "Inst" { print $2 }' <<<"$sim")"
  for name in "$@"; do
    # shellcheck disable=SC2016 # dpkg-query's format
    rel=$(dpkg-query -W -f='${Conflicts}${Breaks:+, }${Breaks}' -- "$name" 2>/dev/null || true)
    if [[ -n $rel ]]; then out+="; $name conflicts with $rel"; fi
  done
  if ((${#inst[@]})) && [[ -n ${inst[0]} ]]; then
    for name in "$@"; do
      rel=$(apt-cache -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= show --no-all-versions -- "${inst[@]}" 2>/dev/null |
        awk -v n="$name" '/^Package: / { p = $2 } /^(Conflicts|Breaks): / && index($0, n) { print p " " $0 }' | sed -n 1,3p | tr '\n' ' ' || true)
      if [[ -n $rel ]]; then out+="; ${rel% }"; fi
    done
  fi
  printf '%s' "$out"
}

# What stands in the way of installing NAMEs beyond the package manager's words (its error text in REASON): the
# admin's apt pins that apply to them or to the packages REASON names (file and stanza), and held packages.
gd_install_blockers() {
  local reason=$1 names pins held
  shift
  [[ $GD_FAMILY == debian ]] || return 0
  names=$( (printf '%s\n' "${@%%=*}" && grep -oE "[a-z0-9][a-z0-9+.-]+" <<<"$reason") | sort -u || true)
  local others=()
  gd_read_lines others <<<"$names"
  pins=$(gd_pins_touching "${@%%=*}" -- "${others[@]}" | tr '\n' ';' | sed 's/;$//')
  # shellcheck disable=SC2016 # dpkg-query's format
  held=$(dpkg-query -W -f='${db:Status-Want} ${Package}\n' 2>/dev/null | GD_NAMES=$names awk '
    BEGIN { n = split(ENVIRON["GD_NAMES"], a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
    $1 == "hold" && ($2 in want) { printf "%s ", $2 }' || true)
  if [[ -n $pins ]]; then printf '; the admin'"'"'s apt pins that apply: %s' "$pins"; fi
  if [[ -n $held ]]; then printf '; held with apt-mark hold: %s' "${held% }"; fi
}

# gd_pins_touching NAME... [-- OTHER...]: the stanzas of /etc/apt/preferences and /etc/apt/preferences.d (the
# files apt reads: no extension or .pref) whose Package: field matches one of the NAMEs or OTHERs (a name, a
# glob or a /regex/, as apt_preferences(5) has them), one "FILE (Package: ...; Pin: ...; Pin-Priority: ...) applies to
# NAME..." line each. A "Package: *" stanza counts only when it forbids (a negative priority), and only for NAMEs.
gd_pins_touching() {
  local names=() others=() f
  while (($#)) && [[ $1 != -- ]]; do names+=("$1") && shift; done
  if (($#)); then shift; fi
  others=("$@")
  for f in /etc/apt/preferences /etc/apt/preferences.d/*; do
    [[ -f $f ]] || continue
    case ${f##*/} in *.pref) ;; *.*) continue ;; esac
    GD_NAMES=$(printf '%s\n' "${names[@]}") GD_OTHERS=$(printf '%s\n' "${others[@]}") awk -v file="$f" '
      BEGIN { n = split(ENVIRON["GD_NAMES"], names, "\n"); m = split(ENVIRON["GD_OTHERS"], others, "\n") }
      function glob2re(g) { gsub(/[.+^$(){}|\\]/, "\\\\&", g); gsub(/\*/, ".*", g); gsub(/\?/, ".", g); return "^" g "$" }
      function add(x) { if (x != "" && index(" " who " ", " " x " ") == 0) who = who " " x }
      function flush(   i, j, k, pats, re) {
        if (pkg != "") {
          k = split(pkg, pats, /[ \t]+/); who = ""
          for (i = 1; i <= k; i++) {
            if (pats[i] == "") continue
            if (pats[i] == "*") { if (prio + 0 < 0) for (j = 1; j <= n; j++) add(names[j]); continue }
            re = (pats[i] ~ /^\/.*\/$/) ? substr(pats[i], 2, length(pats[i]) - 2) : glob2re(pats[i])
            for (j = 1; j <= n; j++) if (names[j] ~ re) add(names[j])
            for (j = 1; j <= m; j++) if (others[j] ~ re) add(others[j])
          }
          if (who != "") printf "%s (Package: %s; Pin: %s; Pin-Priority: %s) applies to%s\n", file, pkg, pin, prio, who
        }
        pkg = ""; pin = ""; prio = ""
      }
      /^[ \t]*$/ { flush(); next }
      /^[ \t]*#/ { next }
      tolower($1) == "package:" { pkg = $0; sub(/^[^:]*:[ \t]*/, "", pkg) }
      tolower($1) == "pin:" { pin = $0; sub(/^[^:]*:[ \t]*/, "", pin) }
      tolower($1) == "pin-priority:" { prio = $2 }
      END { flush() }' "$f"
  done
}

# The installed packages, one name a line (sorted).
gd_installed_names() {
  case $GD_FAMILY in
  debian) dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 2>/dev/null | awk '$1 ~ /^.i/ { print $2 }' | sort -u ;;
  rhel) gd_rpm -qa --qf '%{NAME}\n' 2>/dev/null | sort -u ;;
  esac
}

# Journals every package installed since BEFORE (gd_installed_names), dependencies included: undo takes
# out exactly what the run brought in.
gd_journal_new_packages() {
  local name
  while IFS= read -r name; do
    if [[ -n $name ]]; then gd_journal installed-package "$name" "$(gd_pkg_version "$name")"; fi
  done <<<"$(gd_only_in_second "$1" "$(gd_installed_names)")"
}

# Journals, before the install runs, each package its simulation (GD_INSTALL_PLANNED, from gd_install_problem)
# brings that is not on the machine (BEFORE): an install killed halfway has unpacked some of them, and
# gd_journal_new_packages, after it, never ran. `gpudoctor undo` takes out those of them that dpkg has. Debian
# only: undo's presence test reads dpkg's status, and rpm runs a transaction whole or not at all.
gd_journal_planned_installs() {
  local name
  if ((GD_DRY_RUN)) || [[ $GD_FAMILY != debian ]]; then return 0; fi
  while IFS= read -r name; do
    if [[ -n $name ]]; then gd_journal install-planned "$name"; fi
  done <<<"$(gd_only_in_second "$1" "$GD_INSTALL_PLANNED")"
  gd_journal_sync
}

gd_verify_not_installed() {
  local name bad=()
  for name in "$@"; do
    if gd_pkg_present "$name"; then bad+=("$name"); fi
  done
  if ((${#bad[@]})); then
    gd_say "still installed: ${bad[*]}" >&2
    return 1
  fi
}

# gd_verify_builds_gone NAME=VERSION...: none of these builds is installed any more (a package of the same
# name, the vendor's, may be: Debian's rocminfo 6.1.2 gives way to AMD's rocminfo).
gd_verify_builds_gone() {
  local spec name bad=()
  for spec in "$@"; do
    name=${spec%%=*}
    if ! gd_pkg_present "$name"; then continue; fi
    if [[ $spec != *=* ]] || [[ $(gd_pkg_version "$name") == "${spec#*=}" ]]; then bad+=("$spec"); fi
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

# ---- before a purge: holds, version locks, the GPU's users ----------------------------------------------

# gd_release_holds ALLOWED NAME...: held packages among NAME count as installed. With ALLOWED (yes: the plan
# was made with --unhold, or the script runs with --unhold) they are unheld, each journaled so that
# `gpudoctor undo` holds them again; otherwise the script stops here, before it changed anything.
gd_release_holds() {
  local allowed=$1 held=() name
  shift
  gd_read_lines held <<<"$(gd_held_packages "$@")"
  if ((${#held[@]} == 0)) || [[ -z ${held[0]} ]]; then return 0; fi
  if [[ $allowed != yes ]] && ((!GD_UNHOLD)); then
    gd_die "held with apt-mark hold: $(gd_quote "${held[@]}"). Someone pinned them on purpose; nothing has" \
      "been changed. Release them with apt-mark unhold, or run this again with --unhold (gpudoctor undo holds" \
      "them again)"
  fi
  for name in "${held[@]}"; do
    if ((!GD_DRY_RUN)); then gd_journal unheld "$name"; fi
    gd_run apt-mark unhold "$name"
  done
  GD_CHANGES=$((GD_CHANGES + 1))
}

gd_verify_not_held() {
  local held=()
  gd_read_lines held <<<"$(gd_held_packages "$@")"
  if ((${#held[@]})) && [[ -n ${held[0]} ]]; then
    gd_say "still held: ${held[*]}" >&2
    return 1
  fi
}

# gd_versionlock ARG...: dnf's versionlock plugin, quiet. Its configuration names the lock list by an absolute
# path that --installroot does not move: in installroot mode it would read and change this host's list. There
# the plugin gets a configuration of its own, in the root's state folder, naming the root's list
# (/etc/dnf/plugins/versionlock.list, the one the plan was read from).
gd_versionlock() {
  if [[ -z $GD_INSTALLROOT ]]; then
    gd_dnf -q versionlock "$@"
    return
  fi
  local conf=$GD_STATE_DIR/dnf-plugins
  mkdir -p -- "$conf" &&
    printf '[main]\nenabled = 1\nlocklist = %s/etc/dnf/plugins/versionlock.list\n' "$GD_INSTALLROOT" \
      >"$conf/versionlock.conf" || return 1
  gd_dnf -q --setopt=pluginconfpath="$conf" versionlock "$@"
}

# gd_remove_versionlocks ENTRY...: dnf versionlock entries of the packages a purge removes (a lock would
# stop the next install of another version); each is journaled so that undo locks it again.
gd_remove_versionlocks() {
  local entry current
  if [[ $GD_FAMILY != rhel ]]; then return 0; fi
  current=$(gd_versionlock list 2>/dev/null || true)
  for entry in "$@"; do
    if ! grep -qxF -- "$entry" <<<"$current"; then continue; fi
    if ((!GD_DRY_RUN)); then gd_journal versionlock-removed "$entry"; fi
    gd_run gd_versionlock delete "$entry"
    GD_CHANGES=$((GD_CHANGES + 1))
  done
}

gd_verify_no_versionlocks() {
  local entry current
  if [[ $GD_FAMILY != rhel ]]; then return 0; fi
  current=$(gd_versionlock list 2>/dev/null || true)
  for entry in "$@"; do
    if grep -qxF -- "$entry" <<<"$current"; then
      gd_say "still locked: $entry" >&2
      return 1
    fi
  done
}

# ---- dnf: repositories of the distribution, EPEL, module streams ----------------------------------------

# Whether dnf has repository ID enabled.
gd_dnf_repo_enabled() {
  grep -qxF -- "$1" <<<"$(gd_dnf -q repolist --enabled 2>/dev/null | awk '{ print $1 }')"
}

# Prints a .repo file with `enabled=1` in section ID (what `dnf config-manager --set-enabled ID` writes).
gd_filter_enable_repo() {
  GD_REPO_ID=$1 awk '
    /^[[:space:]]*\[/ { name = $0; gsub(/^[[:space:]]*\[|\][[:space:]]*$/, "", name); in_repo = (name == ENVIRON["GD_REPO_ID"]) }
    in_repo && /^[[:space:]]*enabled[[:space:]]*=/ { print "enabled=1"; next }
    { print }'
}

# gd_enable_dnf_repo ID: enables the distribution's repository ID (crb, powertools) in the .repo file that
# defines it, as `dnf config-manager --set-enabled` does; RHEL's CodeReady Builder with subscription-manager,
# which owns redhat.repo.
gd_enable_dnf_repo() {
  local id=$1 file found=
  if gd_dnf_repo_enabled "$id"; then
    gd_note "repository $id is enabled already"
    return 0
  fi
  if [[ $id == codeready-builder-* ]]; then
    gd_not_installroot "subscription-manager"
    gd_run subscription-manager repos --enable "$id"
  else
    for file in "$GD_INSTALLROOT"/etc/yum.repos.d/*.repo; do
      if [[ -f $file ]] && grep -qE "^[[:space:]]*\[$id\][[:space:]]*$" "$file"; then
        found=${file#"$GD_INSTALLROOT"}
        break
      fi
    done
    if [[ -z $found ]]; then
      gd_die "no file in /etc/yum.repos.d defines the repository $id: enable it as the distribution documents"
    fi
    gd_edit_file "$found" gd_filter_enable_repo "$id"
  fi
  GD_APT_UPDATED=0
  GD_CHANGES=$((GD_CHANGES + 1))
}

gd_verify_dnf_repo_enabled() {
  if ! gd_dnf_repo_enabled "$1"; then
    gd_say "the repository $1 is not enabled" >&2
    return 1
  fi
}

# The .repo file of /etc/yum.repos.d whose enabled repository has baseurl URL (a trailing / aside), or nothing.
gd_dnf_repo_file() {
  local url=${1%/} file
  for file in "$GD_INSTALLROOT"/etc/yum.repos.d/*.repo; do
    [[ -f $file ]] || continue
    if awk -v url="$url" '
        /^[[:space:]]*\[/ { if (hit && on) found = 1; hit = 0; on = 1 }
        /^[[:space:]]*enabled[[:space:]]*=[[:space:]]*0/ { on = 0 }
        /^[[:space:]]*baseurl[[:space:]]*=/ { v = $0; sub(/^[^=]*=[[:space:]]*/, "", v); sub(/[[:space:]]+$/, "", v)
          sub(/\/$/, "", v); if (v == url) hit = 1 }
        END { exit !(found || (hit && on)) }' "$file"; then
      printf '%s\n' "${file#"$GD_INSTALLROOT"}"
      return 0
    fi
  done
}

# gd_add_dnf_repo FILE ID NAME URL KEY_URL COMMENT: a .repo file for the repository at URL, unless another file
# has an enabled repository of that address already (NVIDIA's own cuda-<distro>.repo): two definitions of one
# repository make dnf read it twice and warn.
gd_add_dnf_repo() {
  local file=$1 id=$2 name=$3 url=$4 key=$5 comment=$6 existing
  existing=$(gd_dnf_repo_file "$url")
  if [[ -n $existing && $existing != "$file" ]]; then
    gd_note "reusing the repository of $existing for $url"
    return 0
  fi
  gd_write_file "$file" 0644 <<REPO
# $comment
[$id]
name=$name
baseurl=$url
enabled=1
gpgcheck=1
gpgkey=$key
REPO
}

gd_verify_dnf_repo() {
  if [[ -z $(gd_dnf_repo_file "$1") ]]; then
    gd_say "no enabled repository in /etc/yum.repos.d has the address $1" >&2
    return 1
  fi
}

# gd_install_epel SPEC: EPEL (DKMS comes from there): its epel-release package, from the distribution's
# extras (Rocky, AlmaLinux) or from Fedora's URL (RHEL), unless it is installed.
gd_install_epel() {
  if gd_pkg_installed epel-release; then
    gd_note "EPEL is set up already (epel-release)"
    return 0
  fi
  gd_install_packages "$1"
  GD_APT_UPDATED=0
}

# The stream of MODULE that dnf has enabled (its state file in /etc/dnf/modules.d), else nothing.
gd_module_stream() {
  local file=$GD_INSTALLROOT/etc/dnf/modules.d/$1.module
  if [[ ! -f $file ]]; then return 0; fi
  awk -F= '{ gsub(/[[:space:]]/, "") } $1 == "state" { state = $2 } $1 == "stream" { stream = $2 }
    END { if (state == "enabled") print stream }' "$file"
}

# gd_switch_module_stream MODULE STREAM: enables STREAM of MODULE. dnf refuses to enable a stream while
# another is enabled: that one is reset first (`dnf module reset`, then `dnf module enable`), so the install
# that follows takes the new stream's packages (the download step fetches from it). The installed driver's
# packages move to that stream with NVIDIA's own command, in the driver's step (gd_switch_driver).
gd_switch_module_stream() {
  local module=$1 stream=$2 current
  current=$(gd_module_stream "$module")
  if [[ $current == "$stream" ]]; then
    gd_note "the module stream $module:$stream is enabled already"
    return 0
  fi
  if [[ -n $current ]]; then
    gd_note "the stream $current of $module is enabled: dnf switches streams only after a reset"
    if ((!GD_DRY_RUN)); then gd_journal module-reset "$module" "$current"; fi
    gd_run gd_dnf module reset -y "$module"
  fi
  if ((!GD_DRY_RUN)); then gd_journal module-enabled "$module" "$stream"; fi
  gd_run gd_dnf module enable -y "$module:$stream"
  GD_APT_UPDATED=0
  GD_CHANGES=$((GD_CHANGES + 1))
}

# gd_switch_driver STREAM -- NAME... -- ERASABLE...: installs the driver NAMEs over NVIDIA's driver of
# another flavour or branch (ERASABLE: the NVIDIA packages rpm had when the plan was made), as NVIDIA's
# driver installation guide switches flavours: `dnf module switch-to nvidia-driver:STREAM --allowerasing`
# on RHEL 8 and 9 (the stream the prepare stage enabled: the installed packages follow it), `dnf install
# --allowerasing NAME...` where there are no streams (STREAM empty: RHEL 10, Fedora). dnf's transaction is
# read first (--assumeno): a removal outside ERASABLE stops the step before any change. What it removes or
# changes is journaled at its old version (the download step cached those RPMs) and the run marked
# replaced-by-install, so undo takes the new driver out before it puts them back. Without any of
# ERASABLE installed, it is the plain install.
gd_switch_driver() {
  local stream=$1 names=() erasable=() present=() name cmd=() sim changed=() outside=()
  shift 2
  while (($#)) && [[ $1 != -- ]]; do names+=("$1") && shift; done
  if (($#)); then shift; fi
  erasable=("$@")
  for name in "${erasable[@]}"; do
    if gd_pkg_installed "$name"; then present+=("$name"); fi
  done
  if ((${#present[@]} == 0)); then
    gd_install_packages "${names[@]}"
    return
  fi
  if [[ -n $GD_COLLECT ]]; then
    gd_collect install "${names[@]}"
    gd_collect switch "${names[@]}"
    for name in "${present[@]}"; do gd_collect outgoing "$name=$(gd_pkg_version "$name")"; done
    return 0
  fi
  if [[ -n $stream ]]; then cmd=(module switch-to "nvidia-driver:$stream" --allowerasing); else
    cmd=(install --allowerasing "${names[@]}")
  fi
  gd_note "NVIDIA's driver is installed ($(gd_quote "${present[@]}")): switching it as NVIDIA's guide does, dnf ${cmd[*]}"
  sim=$(LC_ALL=C gd_dnf "${cmd[@]}" --assumeno 2>&1 || true)
  if grep -q '^Error' <<<"$sim"; then
    gd_die "dnf cannot switch the driver: $(gd_manager_errors <<<"$sim"); nothing was changed by this step"
  fi
  gd_read_lines changed <<<"$(gd_dnf_changes <<<"$sim")"
  for name in "${changed[@]}"; do
    if [[ -n $name ]] && ! gd_in_list "$name" "${erasable[@]}"; then outside+=("$name"); fi
  done
  if ((${#outside[@]})); then
    gd_die "switching the driver would remove or change $(gd_quote "${outside[@]}"), which the plan does not name" \
      "(it names NVIDIA's $(gd_quote "${erasable[@]}")); nothing was changed by this step: remove or change them yourself," \
      "then run this again"
  fi
  if ((!GD_DRY_RUN)); then
    for name in "${changed[@]}"; do
      if [[ -n $name ]]; then gd_journal purge-package "$name" "$(gd_pkg_version "$name")"; fi
    done
    gd_journal replaced-by-install "${changed[@]}"
    # What the transaction brings, before it runs: rpm applies it package by package, and one cut off (a kill,
    # the power) leaves some new packages beside the old ones, with no journal entry of its own. undo takes
    # out the new names, and the new versions of the upgraded ones that are still beside their old ones.
    local evr
    while read -r name; do
      if [[ -n $name ]]; then gd_journal install-planned "$name"; fi
    done <<<"$(gd_dnf_sections 'Installing' <<<"$sim")"
    while read -r name evr; do
      if [[ -n $name && -n $evr ]]; then gd_journal install-planned-version "$name" "$evr"; fi
    done <<<"$(gd_dnf_section_versions 'Upgrading|Downgrading' <<<"$sim")"
    gd_journal_sync
  fi
  local before
  before=$(gd_present_names)
  gd_run gd_dnf -y "${cmd[@]}" || gd_die "dnf ${cmd[*]} failed (dnf's transaction is whole or none): gpudoctor undo" \
    "puts back what the step changed"
  if ((!GD_DRY_RUN)); then
    gd_journal_new_packages "$before"
    GD_CHANGES=$((GD_CHANGES + 1))
  fi
  # The stream's switch moved the installed packages; the driver's meta packages come now.
  if [[ -n $stream ]]; then gd_install_packages "${names[@]}"; fi
}

# Installed packages dnf's transaction (stdin: its --assumeno output) removes, upgrades, downgrades or
# replaces: those whose old version undo puts back.
gd_dnf_changes() {
  gd_dnf_sections 'Removing|Upgrading|Downgrading|Reinstalling'
}

# The package names of the sections of dnf's transaction table (stdin) whose heading matches the ERE, and
# the "replacing" lines of what it obsoletes. A name too long for its column puts the rest of its row on the
# next line, which starts with the architecture: not a name.
gd_dnf_sections() {
  awk -v re="^($1)" '/^[A-Z][A-Za-z ]*:$/ { on = ($0 ~ re); next }
    /^[^ ]/ { on = 0 }
    on && NF >= 1 && $1 !~ /^=/ && $1 !~ /^(x86_64|noarch|i686|aarch64|ppc64le|s390x|src)$/ && $1 != "replacing" { print $1 }
    $1 == "replacing" { n = $2; sub(/\.[^.]*$/, "", n); print n }' | sort -u
}

# "NAME EPOCH:VERSION-RELEASE" of the rows of the sections of dnf's transaction table (stdin) whose heading
# matches the ERE: the versions the transaction brings. A name too long for its column is alone on its line,
# its architecture and version on the next.
gd_dnf_section_versions() {
  awk -v re="^($1)" '/^[A-Z][A-Za-z ]*:$/ { on = ($0 ~ re); name = ""; next }
    /^[^ ]/ { on = 0 }
    !on { next }
    $1 ~ /^(x86_64|noarch|i686|aarch64|ppc64le|s390x|src)$/ { if (name != "") print name, $2; name = ""; next }
    NF == 1 && $1 !~ /^=/ { name = $1; next }
    NF >= 3 && $1 != "replacing" { print $1, $3; name = "" }'
}

# gd_reset_module MODULE: `dnf module reset MODULE` when one of its streams is enabled, as NVIDIA's uninstall
# steps end: the stream of a purged driver would otherwise hold the next install to its branch.
gd_reset_module() {
  local current
  current=$(gd_module_stream "$1")
  if [[ -z $current ]]; then return 0; fi
  if ((!GD_DRY_RUN)); then gd_journal module-reset "$1" "$current"; fi
  gd_run gd_dnf module reset -y "$1"
  GD_CHANGES=$((GD_CHANGES + 1))
}

gd_verify_module_reset() {
  local current
  current=$(gd_module_stream "$1")
  if [[ -n $current ]]; then
    gd_say "the module $1 still has the stream $current enabled" >&2
    return 1
  fi
}

gd_verify_module_stream() {
  local current
  current=$(gd_module_stream "$1")
  if [[ $current != "$2" ]]; then
    gd_say "the module stream $1:$2 is not enabled (enabled: ${current:-none})" >&2
    return 1
  fi
}

# Whether every FILE is there and not empty.
gd_verify_nonempty() {
  local file
  for file in "$@"; do
    if [[ ! -s $GD_INSTALLROOT$file ]]; then
      gd_say "$file is missing or empty" >&2
      return 1
    fi
  done
}

# The processes that have a device file matching NODES_RE (an ERE) open: "PID COMMAND USER" lines. Read from
# /proc; where /proc is not mounted (a chroot) nothing can be seen and a note says so.
gd_gpu_users() {
  local nodes=$1 fd target pid seen=' '
  if [[ ! -d /proc/self/fd ]]; then
    gd_note "/proc is not mounted here: cannot see which processes use the GPU" >&2
    return 0
  fi
  for fd in /proc/[0-9]*/fd/*; do
    target=$(readlink -- "$fd" 2>/dev/null) || continue
    [[ $target =~ ^($nodes)$ ]] || continue
    pid=${fd#/proc/}
    pid=${pid%%/*}
    if [[ $pid == "$$" || $seen == *" $pid "* ]]; then continue; fi
    seen+="$pid "
    printf '%s %s %s\n' "$pid" "$(cat "/proc/$pid/comm" 2>/dev/null || echo '?')" \
      "$(stat -c %U "/proc/$pid" 2>/dev/null || echo '?')"
  done
}

# gd_stop_gpu_users NODES_RE ALLOWED [SERVICE...]: stops the services that hold the GPU (nvidia-persistenced,
# the Fabric Manager), then looks for processes with the GPU's device files open. With ALLOWED (the plan was
# made with --stop-gpu-users, or the script runs with it) they get SIGTERM, then SIGKILL after 10 s; otherwise
# the script stops and names them: a purge under a running job fails half-way.
gd_stop_gpu_users() {
  local nodes=$1 allowed=$2 unit users=() line pid i
  gd_not_installroot gd_stop_gpu_users
  shift 2
  for unit in "$@"; do
    if gd_have systemctl && systemctl is-active --quiet "$unit" 2>/dev/null; then
      if ((!GD_DRY_RUN)); then gd_journal stopped-service "$unit"; fi
      gd_run systemctl stop "$unit"
      GD_CHANGES=$((GD_CHANGES + 1))
    fi
  done
  gd_read_lines users <<<"$(gd_gpu_users "$nodes")"
  if ((${#users[@]} == 0)) || [[ -z ${users[0]} ]]; then return 0; fi
  if [[ $allowed != yes ]] && ((!GD_STOP_GPU_USERS)); then
    gd_die "these processes use the GPU (pid command user): ${users[*]}. Stop them first, or run this again" \
      "with --stop-gpu-users (they get SIGTERM, then SIGKILL after 10 s)"
  fi
  for line in "${users[@]}"; do
    pid=${line%% *}
    if ((!GD_DRY_RUN)); then gd_journal stopped-process "$pid" "${line#* }"; fi
    gd_run kill -TERM "$pid" || true
  done
  if ((GD_DRY_RUN)); then return 0; fi
  for ((i = 0; i < 100; i++)); do
    gd_read_lines users <<<"$(gd_gpu_users "$nodes" 2>/dev/null)"
    if ((${#users[@]} == 0)) || [[ -z ${users[0]} ]]; then break; fi
    sleep 0.1
  done
  for line in "${users[@]}"; do
    if [[ -n $line ]]; then gd_run kill -KILL "${line%% *}" || true; fi
  done
  GD_CHANGES=$((GD_CHANGES + 1))
}

gd_verify_no_gpu_users() {
  local users=()
  gd_read_lines users <<<"$(gd_gpu_users "$1" 2>/dev/null)"
  if ((${#users[@]})) && [[ -n ${users[0]} ]]; then
    gd_say "still using the GPU: ${users[*]}" >&2
    return 1
  fi
}

# ---- side effects owed until they succeed --------------------------------------------------------------

# A change that needs the initramfs rebuilt, ldconfig, depmod or systemd's daemon-reload owes that effect
# (in $GD_STATE_DIR/owed-effects, shared by every gpudoctor script) until it succeeds: a run that failed
# half-way (a full /boot) is finished by the next run, whichever step that runs.
gd_owe() {
  local effect
  if ((GD_DRY_RUN)); then
    gd_note "would then run: $*"
    return 0
  fi
  mkdir -p -- "$GD_STATE_DIR"
  for effect in "$@"; do
    if ! grep -qxF -- "$effect" "$GD_STATE_DIR/owed-effects" 2>/dev/null; then
      printf '%s\n' "$effect" >>"$GD_STATE_DIR/owed-effects"
      sync -- "$GD_STATE_DIR/owed-effects"
    fi
    gd_journal owed "$effect"
  done
}

gd_run_effect() {
  case $1 in
  initramfs) gd_update_initramfs ;;
  ldconfig) gd_ldconfig ;;
  depmod) if gd_have depmod; then gd_run depmod -a "$(gd_kernel)"; fi ;;
  daemon-reload) if gd_have systemctl && [[ -d /run/systemd/system ]]; then gd_run systemctl daemon-reload; fi ;;
  *) gd_note "unknown effect $1: dropped" ;;
  esac
}

# Runs every effect owed, oldest first; each leaves the list once it succeeded.
gd_settle() {
  local owed=$GD_STATE_DIR/owed-effects effect rest
  if ((GD_DRY_RUN)) || [[ ! -s $owed ]] || ! gd_is_root; then return 0; fi
  while [[ -s $owed ]]; do
    effect=$(head -n1 -- "$owed")
    gd_note "owed by a change: $effect"
    gd_run_effect "$effect"
    rest=$(tail -n +2 -- "$owed")
    if [[ -n $rest ]]; then printf '%s\n' "$rest" >"$owed.tmp"; else : >"$owed.tmp"; fi
    mv -f -- "$owed.tmp" "$owed"
    sync -- "$owed"
    gd_journal paid "$effect"
    GD_CHANGES=$((GD_CHANGES + 1))
  done
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
    elif [[ -x /usr/lib/apt/apt-helper ]]; then
      /usr/lib/apt/apt-helper -q download-file "$url" "$dest" >/dev/null
    else
      gd_die "neither curl nor wget is installed to fetch $url"
    fi
    ;;
  esac
}

# gd_install_key URL KEYFILE [dearmor]: the repository signing key (ASCII-armoured, as the vendors publish
# it) at KEYFILE, as it is, or with `dearmor` as binary OpenPGP (what gpg --dearmor writes: AMD's guide puts
# /etc/apt/keyrings/rocm.gpg). A key already there is kept.
gd_install_key() {
  gd_not_installroot gd_install_key
  local url=$1 keyfile=$2 how=${3:-} tmp
  if [[ -s $keyfile ]]; then
    gd_note "keeping the key $keyfile"
    return 0
  fi
  if ((GD_DRY_RUN)); then
    gd_note "would fetch $url to $keyfile"
    return 0
  fi
  tmp=$(mktemp)
  gd_fetch "$url" "$tmp" || {
    rm -f -- "$tmp"
    gd_fail_downloads "cannot fetch the signing key $url"
  }
  if [[ $how == dearmor ]] && grep -q -- '-----BEGIN PGP PUBLIC KEY BLOCK-----' "$tmp"; then
    # The armour's body is base64 after the header lines and the blank line, up to the "=" checksum line.
    if ! awk '/^-----BEGIN/ { body = 0; next } body && /^=/ { exit } body { print } /^[[:space:]]*$/ { body = 1 }' \
      "$tmp" | base64 -d >"$tmp.gpg" 2>/dev/null || [[ ! -s $tmp.gpg ]]; then
      rm -f -- "$tmp" "$tmp.gpg"
      gd_die "the signing key $url is not an OpenPGP key"
    fi
    mv -f -- "$tmp.gpg" "$tmp"
  fi
  gd_install_file "$tmp" "$keyfile" 0644
  rm -f -- "$tmp"
}

# A repository as apt names it, without its scheme and trailing slashes: http and https are one repository.
gd_repo_id() {
  local u=${1#*://}
  while [[ $u == */ ]]; do u=${u%/}; done
  printf '%s' "$u"
}

# The package sources configured here, "FILE<TAB>URI<TAB>SUITE" a line (one-line .list files and deb822
# .sources stanzas; comments and disabled stanzas left out).
gd_apt_entries() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] || continue
    awk -v f="$f" '$1 == "deb" {
      i = 2
      if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
      if (i + 1 <= NF) print f "\t" $i "\t" $(i + 1)
    }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] || continue
    awk -v f="$f" '
      function flush(  i, j) {
        if (types ~ /deb/ && enabled != "no") for (i = 1; i <= nu; i++) for (j = 1; j <= ns; j++) print f "\t" u[i] "\t" s[j]
        nu = 0; ns = 0; types = ""; enabled = ""
      }
      /^[[:space:]]*$/ { flush(); next }
      /^[[:space:]]*#/ { next }
      { key = tolower($1) }
      key == "types:" { types = $0 }
      key == "uris:" { for (k = 2; k <= NF; k++) u[++nu] = $k }
      key == "suites:" { for (k = 2; k <= NF; k++) s[++ns] = $k }
      key == "enabled:" { enabled = tolower($2) }
      END { flush() }' "$f"
  done
}

# The file that has an entry for repository URI and SUITE (any scheme), or nothing.
gd_apt_source_file() {
  local want suite=$2 file uri s
  want=$(gd_repo_id "$1")
  while IFS=$'\t' read -r file uri s; do
    if [[ $(gd_repo_id "$uri") == "$want" && $s == "$suite" ]]; then
      printf '%s\n' "$file"
      return 0
    fi
  done <<<"$(gd_apt_entries)"
}

# gd_add_apt_source FILE URI SUITE COMPONENTS OPTIONS [COMMENT]: FILE with one entry "deb [OPTIONS] URI SUITE
# COMPONENTS", unless another file has an entry for that repository and suite already: that one is reused,
# since a second entry for the same repository with another signed-by breaks apt for the whole machine.
gd_add_apt_source() {
  gd_not_installroot gd_add_apt_source
  local file=$1 uri=$2 suite=$3 components=$4 options=$5 comment=${6:-} existing
  existing=$(gd_apt_source_file "$uri" "$suite")
  if [[ -n $existing && $existing != "$file" ]]; then
    gd_note "reusing the source of $existing for $uri $suite"
    return 0
  fi
  gd_write_file "$file" 0644 <<LIST
${comment:+# $comment
}deb [$options] $uri $suite${components:+ $components}
LIST
}

gd_verify_apt_source() {
  if [[ -z $(gd_apt_source_file "$1" "$2") ]]; then
    gd_say "no package source for $1 $2" >&2
    return 1
  fi
}

# Lines of a one-line source file whose repository is one of REPO_IDs, commented out.
gd_filter_disable_repos() {
  local line uri word skip
  while IFS= read -r line || [[ -n $line ]]; do
    uri=
    if [[ $line =~ ^[[:space:]]*deb[[:space:]] ]]; then
      skip=0
      for word in $line; do
        if [[ $word == deb ]]; then continue; fi
        if [[ $word == '['* ]]; then skip=1; fi
        if ((skip)); then
          if [[ $word == *']' ]]; then skip=0; fi
          continue
        fi
        uri=$word
        break
      done
    fi
    if [[ -n $uri ]] && gd_in_list "$(gd_repo_id "$uri")" "$@"; then
      printf '# disabled by gpudoctor (its mirror replaces this source): %s\n' "$line"
    else
      printf '%s\n' "$line"
    fi
  done
}

# gd_disable_sources REPO_ID...: comments out the vendor's entries for these repositories (the URI without
# its scheme) in every one-line source file, with a backup: with --mirror, gpudoctor's source replaces them.
gd_disable_sources() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    if [[ -f $f ]]; then gd_edit_file "$f" gd_filter_disable_repos "$@"; fi
  done
}

# gd_cuda_keyring REPO_URL: NVIDIA's source, its key and its pin come from NVIDIA's cuda-keyring package, as
# NVIDIA's installation guide does it; a machine that has a source for that repository keeps it.
gd_cuda_keyring() {
  local repo=$1 tmp
  gd_not_installroot gd_cuda_keyring
  if [[ -n $(gd_apt_source_file "$repo" /) ]]; then
    gd_note "reusing the source of $(gd_apt_source_file "$repo" /) for $repo"
    return 0
  fi
  if ((GD_DRY_RUN)); then
    gd_note "would install NVIDIA's cuda-keyring from ${repo%/}/cuda-keyring_1.1-1_all.deb"
    return 0
  fi
  tmp=$(mktemp -d)
  gd_fetch "${repo%/}/cuda-keyring_1.1-1_all.deb" "$tmp/cuda-keyring.deb" || {
    rm -rf -- "$tmp"
    gd_fail_downloads "cannot fetch ${repo%/}/cuda-keyring_1.1-1_all.deb"
  }
  gd_run dpkg -i "$tmp/cuda-keyring.deb"
  rm -rf -- "$tmp"
  gd_journal installed-package cuda-keyring "$(gd_pkg_version cuda-keyring)"
  GD_APT_UPDATED=0
  GD_CHANGES=$((GD_CHANGES + 1))
}

# ---- downloads before anything is removed --------------------------------------------------------------

# The runs whose changes a failure in the prepare stage puts back: this one, and when no step past the prepare
# stage has ever begun, every earlier run of this script that was not rolled back already (a run killed in the
# prepare stage, then resumed): all they changed is the prepare stage's.
gd_prepare_runs() {
  local i prepare=' '
  for i in "${!GD_STEP_IDS[@]}"; do
    if [[ ${GD_STEP_FLAGS[i]} == *prepare* ]]; then prepare+="${GD_STEP_IDS[i]} "; fi
  done
  awk -F '\t' -v run="$GD_RUN_ID" -v prepare="$prepare" '
    { order[$2] = order[$2] ? order[$2] : ++n; names[order[$2]] = $2 }
    $4 == "rolled-back" { done[$2] = 1; for (i = 5; i <= NF; i++) done[$i] = 1 }
    $4 == "step-begin" && index(prepare, " " $3 " ") == 0 { past = 1 }
    END {
      print run
      if (past) exit
      for (i = n; i >= 1; i--) if (names[i] != run && !done[names[i]]) print names[i]
    }' "$GD_JOURNAL"
}

# Puts back what the prepare stage changed before it failed (sources, keys, cuda-keyring, released holds, dnf's
# module streams and version locks): the journal of its runs (gd_prepare_runs) says what, newest first; each
# thing put back is named, and the journal says rolled-back.
gd_rollback_run() {
  local event a b removed=0 runs undone=()
  if ((GD_DRY_RUN || GD_ROLLED_BACK)) || [[ ! -f $GD_JOURNAL ]]; then return 0; fi
  GD_ROLLED_BACK=1
  runs=$(gd_prepare_runs | tr '\n' ' ')
  runs=${runs% }
  while IFS=$'\t' read -r event a b; do
    case $event in
    created) rm -f -- "$GD_INSTALLROOT$a" && removed=1 && undone+=("removed $a") ;;
    backup)
      cp -P -p -- "$GD_INSTALLROOT$b" "$GD_INSTALLROOT$a.gpudoctor-restore" &&
        mv -f -- "$GD_INSTALLROOT$a.gpudoctor-restore" "$GD_INSTALLROOT$a" && removed=1 && undone+=("restored $a")
      ;;
    unheld) apt-mark hold "$a" >/dev/null && undone+=("held $a again") ;;
    installed-package)
      case $GD_FAMILY in
      debian) dpkg --purge "$a" >/dev/null 2>&1 && removed=1 && undone+=("purged $a") ;;
      rhel) gd_rpm -e -- "$a" >/dev/null 2>&1 && removed=1 && undone+=("removed $a") ;;
      esac
      ;;
    module-enabled) gd_dnf module reset -y "$a" >/dev/null 2>&1 && undone+=("reset the module $a") ;;
    module-reset) gd_dnf module enable -y "$a:$b" >/dev/null 2>&1 && undone+=("enabled $a:$b again") ;;
    versionlock-removed) gd_versionlock add --raw "$a" >/dev/null 2>&1 && undone+=("locked $a again") ;;
    temp-file)
      # An atomic write whose rename failed (a full disk, a failing mv) left its temporary file beside the file.
      if [[ $a == /*/.gpudoctor-*.tmp && $a != *\\* && -f $GD_INSTALLROOT$a && ! -L $GD_INSTALLROOT$a ]]; then
        rm -f -- "$GD_INSTALLROOT$a" && undone+=("removed $a (its rename had failed)")
      fi
      ;;
    esac
  done <<<"$(awk -F '\t' -v runs=" $runs " 'index(runs, " " $2 " ") { print $4 "\t" $5 "\t" $6 }' "$GD_JOURNAL" | tac)"
  # shellcheck disable=SC2086 # the run ids are words
  gd_journal rolled-back ${runs#"$GD_RUN_ID"} || true
  gd_journal_sync || true
  if ((${#undone[@]})); then
    gd_say "gpudoctor script: the prepare stage failed, so what it had changed is put back: $(printf '%s; ' "${undone[@]}" | sed 's/; $//')" >&2
  fi
  # The package lists of the sources just removed would linger until the next update.
  if ((removed)) && [[ $GD_FAMILY == debian ]]; then apt-get update -q >/dev/null 2>&1 || true; fi
}

gd_fail_downloads() {
  gd_rollback_run
  gd_die "$@" "(nothing was removed or upgraded)"
}

# KiB available in the filesystem holding PATH (or its nearest existing parent).
gd_free_kib() {
  local path=$1
  while [[ ! -e $path ]]; do path=$(gd_dir_of "$path"); done
  stat -f -c '%a %S' -- "$path" | awk '{ printf "%d\n", $1 * $2 / 1024 }'
}

# gd_check_space INSTALL... -- OUTGOING...: refuses to start when the cache cannot hold the downloads (sizes
# from the package index) and the old stack's packages kept for undo, or the system cannot hold the new
# packages once installed (a full ROCm is over 20 GB).
gd_check_space() {
  local install=() outgoing=() uris download=0 installed=0 old=0 free need
  while (($#)) && [[ $1 != -- ]]; do install+=("$1") && shift; done
  if (($#)); then shift; fi
  outgoing=("$@")
  if [[ $GD_FAMILY != debian ]]; then return 0; fi
  if ((${#install[@]})); then
    local sim=()
    gd_read_lines sim <<<"$(gd_sim_opts)"
    uris=$(LC_ALL=C apt-get install --print-uris -qq -y --no-install-recommends "${sim[@]}" "${install[@]}" 2>/dev/null || true)
    download=$(awk '{ s += $3 } END { printf "%d\n", s / 1024 }' <<<"$uris")
    local specs=()
    gd_read_lines specs <<<"$(awk '{ n = $2; sub(/\.deb$/, "", n); split(n, f, "_"); gsub(/%3a/, ":", f[2]); print f[1] "=" f[2] }' <<<"$uris")"
    if ((${#specs[@]})) && [[ -n ${specs[0]} ]]; then
      installed=$( (apt-cache show --no-all-versions "${specs[@]}" 2>/dev/null || true) |
        awk '/^Installed-Size:/ { s += $2 } END { printf "%d\n", s }')
    fi
  fi
  if ((${#outgoing[@]})); then
    old=$( (dpkg-query -W -f='${Installed-Size}\n' -- "${outgoing[@]%%=*}" 2>/dev/null || true) |
      awk '{ s += $1 } END { printf "%d\n", s }')
  fi
  # A margin: 5% and 100 MiB, for the package manager's own files.
  need=$(((download + old) * 105 / 100 + 102400))
  free=$(gd_free_kib "$GD_CACHE_DIR")
  if ((free < need)); then
    gd_fail_downloads "not enough free space for the downloads in $GD_CACHE_DIR: needs $((need / 1024)) MiB" \
      "(packages to install $((download / 1024)) MiB, the old stack's packages kept for undo $((old / 1024)) MiB," \
      "and a margin), has $((free / 1024)) MiB"
  fi
  need=$((installed * 105 / 100 + 102400))
  free=$(gd_free_kib /usr)
  if ((free < need)); then
    gd_fail_downloads "not enough free space to install: the new packages take $((installed / 1024)) MiB," \
      "/usr has $((free / 1024)) MiB"
  fi
  gd_note "space: downloads $((download / 1024)) MiB, the old stack's packages $((old / 1024)) MiB, installed" \
    "$((installed / 1024)) MiB"
}

# Keeps a .deb of each outgoing NAME=VERSION in the cache, so `gpudoctor undo` can put the old stack back
# after its repository is gone: from the repository now, else from apt's own cache.
gd_cache_outgoing() {
  local dir=$GD_CACHE_DIR/outgoing spec name version file missing=()
  mkdir -p -- "$dir"
  # One apt-get download for all (one by one only when that fails: a version no repository has any more).
  if ! (cd "$dir" && apt-get download -q "$@" >/dev/null 2>&1); then
    for spec in "$@"; do
      if [[ -z $(find "$dir" -maxdepth 1 -name "${spec%%=*}_*.deb" -print -quit) ]]; then
        (cd "$dir" && apt-get download -q "$spec" >/dev/null 2>&1) || true
      fi
    done
  fi
  local broken=()
  for spec in "$@"; do
    name=${spec%%=*}
    version=${spec#*=}
    file=$(find "$dir" -maxdepth 1 -name "${name}_*.deb" -print -quit)
    if [[ -z $file ]]; then
      file=$(find /var/cache/apt/archives -maxdepth 1 -name "${name}_${version/:/%3a}_*.deb" -print -quit 2>/dev/null)
      if [[ -n $file ]]; then cp -- "$file" "$dir/" && file=$dir/${file##*/}; fi
    fi
    # A download cut off (a full disk) leaves a file that is no package: read whole, or not kept.
    if [[ -n $file ]] && ! dpkg-deb --fsys-tarfile "$file" >/dev/null 2>&1; then
      rm -f -- "$file"
      file=
    fi
    if [[ -n $file ]]; then
      gd_journal cached-package "$name" "$version" "$file"
    elif gd_repository_has "$name" "$version"; then
      broken+=("$spec")
    else
      missing+=("$spec")
    fi
  done
  # Undo needs them, and a repository has them: the removal must not start without them.
  if ((${#broken[@]})); then
    gd_fail_downloads "could not keep $(gd_quote "${broken[@]}") for undo (a repository has them: a full disk," \
      "or the download was cut off); free space in $GD_CACHE_DIR's filesystem and run this again"
  fi
  if ((${#missing[@]})); then
    gd_note "no .deb of $(gd_quote "${missing[@]}") (not in a repository nor apt's cache): undo cannot reinstall them from here"
  fi
}

# Whether one of apt's repositories has package NAME at VERSION (apt-cache madison lists the repositories'
# versions, not dpkg's status).
gd_repository_has() {
  local listed
  listed=$(apt-cache madison "$1" 2>/dev/null) || return 1
  awk -F '|' -v v="$2" '{ gsub(/ /, "", $2) } $2 == v { found = 1 } END { exit !found }' <<<"$listed"
}

# gd_cache_outgoing_rpms NAME=VERSION...: the RPM of each outgoing package at its installed version, kept in
# the cache for `gpudoctor undo` (dnf reinstall --downloadonly fetches exactly that version). Module filtering
# is off for this download only (module_hotfixes): the prepare stage may have enabled another stream of the
# driver already, which hides the installed one's packages.
gd_cache_outgoing_rpms() {
  local dir=$GD_CACHE_DIR/outgoing spec name file missing=() specs=()
  mkdir -p -- "$dir"
  for spec in "$@"; do specs+=("${spec%%=*}-${spec#*=}"); done
  gd_dnf reinstall -y -q --downloadonly --setopt='*.module_hotfixes=1' --destdir "$dir" "${specs[@]}" >/dev/null 2>&1 || true
  for spec in "$@"; do
    name=${spec%%=*}
    file=$(find "$dir" -maxdepth 1 -name "$name-${spec#*=}.*.rpm" -print -quit)
    if [[ -n $file ]]; then
      gd_journal cached-package "$name" "${spec#*=}" "${file#"$GD_INSTALLROOT"}"
    else
      missing+=("$spec")
    fi
  done
  if ((${#missing[@]})); then
    gd_note "no RPM of $(gd_quote "${missing[@]}") in a repository: undo cannot reinstall them from here"
  fi
}

# gd_prepare_downloads: before the first removal, everything the later steps install is downloaded (one
# apt-get install --download-only into this script's cache, pip download of the PyTorch wheels), the old
# stack's packages are kept for undo, and the space is checked first. What the later steps need is what they
# say in a dry run (GD_COLLECT). Any failure puts back what this run added and stops: nothing was removed.
gd_prepare_downloads() {
  local collect i n=${#GD_STEP_IDS[@]} install=() outgoing=() replace=() out line python index tag pkgs rc=0 sim=()
  collect=$(mktemp -d)
  for ((i = GD_STEP_INDEX + 1; i < n; i++)); do
    if ! (GD_DRY_RUN=1 GD_COLLECT=$collect "gd_step_$((i + 1))") >/dev/null 2>"$collect/err"; then
      out=$(tail -n 3 "$collect/err")
      rm -rf -- "$collect"
      gd_fail_downloads "step ${GD_STEP_IDS[i]} would fail: $out"
    fi
  done
  if [[ -f $collect/install ]]; then gd_read_lines install <<<"$(sort -u "$collect/install")"; fi
  if [[ -f $collect/outgoing ]]; then gd_read_lines outgoing <<<"$(sort -u "$collect/outgoing")"; fi
  if [[ -f $collect/replace ]]; then gd_read_lines replace <<<"$(sort -u "$collect/replace")"; fi
  if ((${#install[@]} + ${#outgoing[@]} == 0)) && [[ ! -f $collect/pip ]]; then
    gd_note "nothing to download: the next steps install and remove nothing"
    rm -rf -- "$collect"
    return 0
  fi
  if ((GD_DRY_RUN)); then
    gd_note "would update the package index and download into $GD_CACHE_DIR: ${install[*]:-nothing}"
    if [[ -f $collect/pip ]]; then
      gd_note "would download PyTorch's wheels: $(awk -F '\t' '{ printf "%s%s from %s", (NR > 1 ? "; " : ""), $4, $2 }' "$collect/pip")"
    fi
    gd_note "would keep the .debs of the ${#outgoing[@]} packages the purge removes (for undo)"
    rm -rf -- "$collect"
    return 0
  fi
  mkdir -p -- "$GD_CACHE_DIR/debs/partial" "$GD_CACHE_DIR/wheels"
  rm -f -- "$GD_CACHE_DIR/ready"
  GD_APT_UPDATED=0
  if [[ $GD_FAMILY == debian ]]; then
    out=$(LC_ALL=C apt-get update -q 2>&1) || rc=$?
    if ((rc)) || grep -q '^[EW]: Failed to fetch' <<<"$out"; then
      gd_fail_downloads "apt-get update failed: $(grep -E '^(E|W): ' <<<"$out" | sed -n 1,5p | tr '\n' ' ')"
    fi
    GD_APT_UPDATED=1
    # The installs that replace the distribution's builds are resolved as their purge leaves the machine.
    if ((${#replace[@]})) && [[ -n ${replace[0]} ]]; then
      GD_SIM_STATUS=$(gd_sim_status "${replace[@]}")
      gd_read_lines sim <<<"$(gd_sim_opts)"
    fi
    # What the installs would do, all of them together, before anything is fetched: a package they cannot
    # have (an admin's pin, a hold), or one they would remove, stops the plan here, and the prepare stage's
    # changes are put back.
    if ((${#install[@]})) && ! gd_install_problem "${install[@]}"; then gd_fail_downloads "$GD_INSTALL_PROBLEM"; fi
    gd_check_space "${install[@]}" -- "${outgoing[@]}"
    if ((${#install[@]})); then
      gd_note "+ apt-get install --download-only ${install[*]}"
      out=$(LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get install --download-only -y -q --no-install-recommends \
        -o "Dir::Cache::archives=$GD_CACHE_DIR/debs/" "${sim[@]}" "${install[@]}" 2>&1) || {
        gd_fail_downloads "could not download $(gd_quote "${install[@]}"): $(gd_manager_errors <<<"$out")$(gd_install_blockers "$out" "${install[@]}")"
      }
    fi
  else
    gd_run gd_dnf makecache -q || gd_fail_downloads "dnf makecache failed"
    if ((${#install[@]})); then
      # A driver switch (gd_switch_driver) resolves with --allowerasing: downloading removes nothing.
      local erasing=()
      if [[ -f $collect/switch ]]; then erasing=(--allowerasing); fi
      gd_run gd_dnf install -y --downloadonly "${erasing[@]}" --destdir "$GD_CACHE_DIR/debs" "${install[@]}" ||
        gd_fail_downloads "could not download $(gd_quote "${install[@]}")"
    fi
  fi
  if [[ -n $GD_SIM_STATUS ]]; then rm -f -- "$GD_SIM_STATUS" && GD_SIM_STATUS=; fi
  if [[ -f $collect/pip ]]; then
    while IFS=$'\t' read -r python index tag pkgs; do
      # shellcheck disable=SC2086 # the packages are words
      out=$("$python" -m pip download --no-cache-dir -q --dest "$GD_CACHE_DIR/wheels/$tag" --index-url "$index" \
        $pkgs 2>&1) || gd_fail_downloads "pip could not download $pkgs from $index: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
      gd_note "downloaded $pkgs from $index"
    done <"$collect/pip"
  fi
  rm -rf -- "$collect"
  if ((${#outgoing[@]})) && [[ -n ${outgoing[0]} ]]; then
    if [[ $GD_FAMILY == debian ]]; then gd_cache_outgoing "${outgoing[@]}"; else gd_cache_outgoing_rpms "${outgoing[@]}"; fi
  fi
  : >"$GD_CACHE_DIR/ready"
  gd_journal downloaded "$GD_CACHE_DIR"
  GD_CHANGES=$((GD_CHANGES + 1))
}

gd_verify_downloads() {
  if [[ ! -f $GD_CACHE_DIR/ready && -d $GD_CACHE_DIR/debs ]]; then
    gd_say "the downloads are not complete ($GD_CACHE_DIR)" >&2
    return 1
  fi
}

# ---- system ---------------------------------------------------------------------------------------------

gd_update_initramfs() {
  gd_not_installroot gd_update_initramfs
  case $GD_FAMILY in
  debian) if gd_have update-initramfs; then gd_run update-initramfs -u; else gd_note "no update-initramfs here"; fi ;;
  rhel) if gd_have dracut; then gd_run dracut --force; else gd_note "no dracut here: no initramfs to rebuild"; fi ;;
  esac
}

gd_ldconfig() {
  gd_not_installroot gd_ldconfig
  if gd_have ldconfig; then gd_run ldconfig; fi
}

# Removes dangling update-alternatives groups (their target folder is gone).
gd_remove_dangling_alternatives() {
  gd_not_installroot gd_remove_dangling_alternatives
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
  gd_not_installroot gd_dkms_remove
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

# gd_show_dkms_failures OUTPUT: for each failed DKMS build OUTPUT names ("Consult .../make.log"), the last lines of
# its make.log (control characters shown as ^X), and a copy of it beside the journal (a rollback that purges
# the driver package takes DKMS's tree with it); each journaled as dkms-build-failed LOG COPY.
gd_show_dkms_failures() {
  local log copy logs=()
  gd_read_lines logs <<<"$(grep -oE 'Consult [^ ]+make\.log' "$1" 2>/dev/null | sed 's/^Consult //' | sort -u || true)"
  for log in "${logs[@]}"; do
    [[ -n $log && -f $log ]] || continue
    gd_say "gpudoctor script: DKMS could not build the module; the last lines of $log:" >&2
    tail -n 20 -- "$log" | LC_ALL=C cat -v | sed 's/^/    /' >&2
    if ((!GD_DRY_RUN)); then
      mkdir -p -- "$GD_LOG_DIR"
      copy=$GD_LOG_DIR/$GD_SCRIPT_ID.$GD_RUN_ID.$(printf '%s' "${log#/var/lib/dkms/}" | tr '/' '_')
      cp -- "$log" "$copy" 2>/dev/null && gd_say "    (kept as $copy)" >&2
      gd_journal dkms-build-failed "$log" "$copy"
    fi
  done
}

# The file modinfo finds for MODULE in KERNEL's module tree (depmod's index), or nothing.
gd_module_file() { modinfo -k "$2" -F filename -- "$1" 2>/dev/null || true; }

# The DKMS module that builds the kernel module MODULE, as "NAME VERSION": NAME is MODULE or MODULE-* (NVIDIA's
# RPMs call the open driver's nvidia-open), the newest version when DKMS has several (the one a driver install
# just added).
gd_dkms_module() {
  local out
  out=$(dkms status 2>/dev/null || true)
  awk -v m="$1" '{ sub(/:.*/, ""); gsub(/,/, " "); sub(/\//, " ") }
    ($1 == m || index($1, m "-") == 1) && $2 != "" { print $1 " " $2 }' <<<"$out" | sort -u -k2,2V | tail -n 1
}

# gd_build_module MODULE DKMS: the incoming driver's MODULE is there for every target kernel (the running one and
# the one that boots next) before anything of the old stack is removed. With DKMS (yes), DKMS builds and
# installs it where a kernel lacks it (a driver package's postinst builds for some kernels only), and it counts
# only when dkms status says installed and modinfo -k finds it outside the kernel's own tree (there an in-tree
# amdgpu or nouveau would answer for it); without (the in-tree amdgpu under Secure Boot), modinfo -k is the whole
# check. A failed build shows DKMS's make.log and stops: nothing is removed.
gd_build_module() {
  local module=$1 dkms=$2 kernels=() kernel name='' version='' file out missing=()
  gd_not_installroot gd_build_module
  if [[ -n $GD_COLLECT ]]; then return 0; fi
  gd_read_lines kernels <<<"$(gd_target_kernels)"
  if ((GD_DRY_RUN)); then
    gd_note "would check that modinfo -k finds $module for ${kernels[*]}${dkms:+ (DKMS building it where it is missing)}"
    return 0
  fi
  gd_have modinfo || gd_die "no modinfo here (kmod) to check the $module module with"
  if [[ $dkms == yes ]]; then
    gd_have dkms || gd_die "no dkms here, which builds the $module module"
    read -r name version <<<"$(gd_dkms_module "$module")"
    [[ -n $version ]] || gd_die "DKMS has no $module module: the driver's DKMS package did not add it (dkms status)"
  fi
  for kernel in "${kernels[@]}"; do
    if [[ $dkms == yes ]] && ! gd_module_built "$module" "$name" "$version" "$kernel"; then
      out=$(mktemp)
      if ! gd_run dkms install -m "$name" -v "$version" -k "$kernel" 2>&1 | tee -- "$out"; then
        gd_show_dkms_failures "$out"
        rm -f -- "$out"
        gd_die "DKMS could not build $name $version for the kernel $kernel$(gd_kernel_role "$kernel"): nothing" \
          "was removed. Mend what the make.log says (the kernel's headers, a compiler), then run this again"
      fi
      rm -f -- "$out"
      GD_CHANGES=$((GD_CHANGES + 1))
    fi
    if [[ $dkms == yes ]] && ! gd_module_built "$module" "$name" "$version" "$kernel"; then
      missing+=("$kernel")
    elif [[ -z $(gd_module_file "$module" "$kernel") ]]; then
      missing+=("$kernel")
    fi
  done
  if ((${#missing[@]})); then
    gd_die "modinfo -k finds no ${dkms:+DKMS-built }$module module for ${missing[*]}: nothing was removed; the old" \
      "stack stays until the new driver's module is there for the running kernel and the one that boots next"
  fi
  for kernel in "${kernels[@]}"; do
    file=$(gd_module_file "$module" "$kernel")
    gd_note "$module for $kernel$(gd_kernel_role "$kernel"): $file"
    gd_journal module-ready "$module" "$kernel" "$file"
  done
}

gd_kernel_role() {
  if [[ $1 != "$(gd_kernel)" ]]; then printf ' (the kernel that boots next)'; fi
}

# gd_module_built MODULE DKMS_NAME VERSION KERNEL: whether DKMS has DKMS_NAME VERSION installed for KERNEL and
# modinfo -k finds MODULE outside the kernel's own tree.
gd_module_built() {
  local file
  [[ -n $3 && $(dkms status -m "$2" -v "$3" -k "$4" 2>/dev/null || true) == *": installed"* ]] || return 1
  file=$(gd_module_file "$1" "$4")
  [[ -n $file && $file != "/lib/modules/$4/kernel/"* && $file != "/usr/lib/modules/$4/kernel/"* ]]
}

gd_verify_module() {
  local module=$1 dkms=$2 kernels=() kernel name='' version='' bad=()
  gd_read_lines kernels <<<"$(gd_target_kernels)"
  if [[ $dkms == yes ]]; then read -r name version <<<"$(gd_dkms_module "$module")"; fi
  for kernel in "${kernels[@]}"; do
    if [[ $dkms == yes ]]; then
      gd_module_built "$module" "$name" "$version" "$kernel" || bad+=("$kernel")
    elif [[ -z $(gd_module_file "$module" "$kernel") ]]; then
      bad+=("$kernel")
    fi
  done
  if ((${#bad[@]})); then
    gd_say "no $module module for ${bad[*]} (modinfo -k)" >&2
    return 1
  fi
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
  gd_not_installroot gd_remove_source_lines
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
  gd_not_installroot gd_add_groups
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

# The shell profiles (and NCCL's files) of each home, and the system-wide ones (with --system) that exist:
# those of GD_PROFILE_HOME_FILES and GD_PROFILE_SYSTEM_FILES, which gpudoctor writes into the script from
# its one table of configuration files (a folder's files as "/etc/profile.d/*.sh").
gd_profile_files() {
  local home name entry
  if [[ $1 == --system ]]; then
    shift
    for entry in "${GD_PROFILE_SYSTEM_FILES[@]}"; do
      if [[ $entry != */\** ]]; then
        if [[ -f $entry ]]; then printf '%s\n' "$entry"; fi
        continue
      fi
      for name in "${entry%%/\**}"/*"${entry##*\*}"; do
        if [[ -f $name ]]; then printf '%s\n' "$name"; fi
      done
    done
  fi
  for home in "$@"; do
    for name in "${GD_PROFILE_HOME_FILES[@]}"; do
      if [[ -f $home$name ]]; then printf '%s\n' "$home$name"; fi
    done
  done
}

# gd_clean_profiles VARS_RE PATHS_RE [--system] HOME...: edits every profile with gd_filter_profile.
gd_clean_profiles() {
  gd_not_installroot gd_clean_profiles
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

# gd_verify_profiles VARS_RE PATHS_RE [--system] HOME...: the step removed all it promises: filtering each
# profile again changes nothing (the lines it keeps on purpose, such as "export X=1; export ROCM_PATH=...",
# do not fail it).
gd_verify_profiles() {
  local vars=$1 paths=$2 file files=() bad=()
  shift 2
  readarray -t files <<<"$(gd_profile_files "$@")"
  for file in "${files[@]}"; do
    # shellcheck disable=SC2094 # the file is only read here
    if [[ -n $file && -r $file ]] && ! gd_filter_profile "$vars" "$paths" <"$file" | cmp -s - "$file"; then
      bad+=("$file")
    fi
  done
  if ((${#bad[@]})); then
    gd_say "still set in: ${bad[*]}" >&2
    return 1
  fi
}

# gd_remove_user_caches REL... -- HOME...: folders below each home that only the stack uses (MIOpen's
# databases and kernel cache), removed without a backup: they are caches, rebuilt by the stack that uses them.
gd_remove_user_caches() {
  gd_not_installroot gd_remove_user_caches
  local rels=() home rel dir
  while (($#)) && [[ $1 != -- ]]; do rels+=("$1") && shift; done
  if (($#)); then shift; fi
  for home in "$@"; do
    for rel in "${rels[@]}"; do
      dir=$home/$rel
      if [[ $home != /* || $rel == /* || $rel == *..* ]]; then gd_die "refusing to remove $dir"; fi
      if [[ -L $dir || ! -d $dir ]]; then continue; fi
      if ((GD_DRY_RUN)); then
        gd_note "would remove $dir ($(du -sh -- "$dir" 2>/dev/null | cut -f1), a cache: no backup)"
        continue
      fi
      gd_journal removed-tree "$dir"
      gd_journal_sync
      rm -rf -- "$dir"
      GD_CHANGES=$((GD_CHANGES + 1))
      gd_note "removed $dir"
    done
  done
}

gd_verify_user_caches_absent() {
  local rels=() home rel
  while (($#)) && [[ $1 != -- ]]; do rels+=("$1") && shift; done
  if (($#)); then shift; fi
  for home in "$@"; do
    for rel in "${rels[@]}"; do
      if [[ -d $home/$rel && ! -L $home/$rel ]]; then
        gd_say "still there: $home/$rel" >&2
        return 1
      fi
    done
  done
}

# gd_replace_if_unchanged FILE OLD_BASE64 NEW_BASE64: FILE becomes NEW when it still is OLD (what the plan
# was made from, e.g. Docker's daemon.json with NVIDIA's runtime); a file changed since is left as it is,
# with a note. The contents travel in base64, so nothing of them is ever read as bash.
gd_replace_if_unchanged() {
  gd_not_installroot gd_replace_if_unchanged
  local file=$1 old new current
  old=$(
    printf '%s' "$2" | base64 -d
    printf x
  )
  new=$(
    printf '%s' "$3" | base64 -d
    printf x
  )
  old=${old%x}
  new=${new%x}
  if [[ ! -f $file || -L $file ]]; then return 0; fi
  current=$(
    cat -- "$file"
    printf x
  )
  current=${current%x}
  if [[ $current == "$new" ]]; then return 0; fi
  if [[ $current != "$old" ]]; then
    gd_note "$file changed since this script was made: left as it is (edit its NVIDIA entries by hand)"
    return 0
  fi
  printf '%s' "$new" | gd_write_file "$file" "$(stat -c %a -- "$file")"
}

# gd_replace_files_if_unchanged FILE OLD NEW [FILE OLD NEW...]: gd_replace_if_unchanged for each triple.
gd_replace_files_if_unchanged() {
  while (($# >= 3)); do
    gd_replace_if_unchanged "$1" "$2" "$3"
    shift 3
  done
}

gd_verify_files_replaced() {
  while (($# >= 3)); do
    gd_verify_replaced "$1" "$2" || return 1
    shift 3
  done
}

# shellcheck disable=SC2317 # called by the recipes' verify code, which shellcheck does not see here
gd_verify_replaced() {
  local file=$1 old current
  old=$(
    printf '%s' "$2" | base64 -d
    printf x
  )
  if [[ ! -f $file ]]; then return 0; fi
  current=$(
    cat -- "$file"
    printf x
  )
  if [[ ${current%x} == "${old%x}" ]]; then
    gd_say "$file still has the entries to remove" >&2
    return 1
  fi
}

# Removes folders matching PATHS_RE from ld.so.conf files; a file left with only comments goes.
gd_clean_ld_conf() {
  gd_not_installroot gd_clean_ld_conf
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

# The installed distributions of a Python environment as "name==version" lines (names normalised).
gd_pip_freeze() {
  "$1" - <<'PY' 2>/dev/null || true
import importlib.metadata as m, re
for d in m.distributions():
    name = d.metadata["Name"]
    if name:
        print(re.sub(r"[-_.]+", "-", name).lower() + "==" + d.version)
PY
}

# The files of the named distributions (their RECORD), as absolute paths, for a snapshot.
gd_pip_files() {
  "$1" - "${@:2}" <<'PY'
import importlib.metadata as m, os, sys
for name in sys.argv[1:]:
    try:
        d = m.distribution(name)
    except m.PackageNotFoundError:
        continue
    for f in d.files or []:
        p = os.path.normpath(str(d.locate_file(f)))
        if os.path.lexists(p):
            print(p)
PY
}

# Which installed distributions match the globs and only PyTorch itself needs (pip's Required-by).
gd_pip_outgoing() {
  local python=$1 line name glob needed
  shift
  while IFS= read -r line; do
    name=${line%%==*}
    for glob in "$@"; do
      # shellcheck disable=SC2053 # a glob, on purpose
      [[ $name == $glob ]] || continue
      needed=$("$python" -m pip show "$name" 2>/dev/null | sed -n 's/^Required-by: *//p' | tr ',' '\n' |
        sed 's/^ *//' | grep -v -x -e '' -e torch -e torchvision -e torchaudio || true)
      if [[ -z $needed ]]; then printf '%s\n' "$name"; else gd_note "keeping $name: $needed needs it" >&2; fi
      break
    done
  done <<<"$(gd_pip_freeze "$python")"
}

# gd_torch_reinstall USER INDEX_URL LOCAL_TAG SPEC PYTHON... [-- OUTGOING_GLOB...]: gd_torch_reinstall_one
# for each PYTHON.
gd_torch_reinstall() {
  gd_not_installroot gd_torch_reinstall
  local head=("$1" "$2" "$3" "$4") pythons=() python
  shift 4
  while (($#)) && [[ $1 != -- ]]; do pythons+=("$1") && shift; done
  for python in "${pythons[@]}"; do gd_torch_reinstall_one "${head[@]}" "$python" "$@"; done
}

# gd_torch_reinstall_one USER INDEX_URL LOCAL_TAG SPEC PYTHON [-- OUTGOING_GLOB...]: replaces torch (and
# torchvision, torchaudio when present) in PYTHON's environment with the build from INDEX_URL (from this
# script's download cache once gd_prepare_downloads filled it), unless torch already carries LOCAL_TAG. The
# other vendor's companion wheels that only PyTorch needs (OUTGOING_GLOB: pytorch-triton-rocm, nvidia-*-cu12)
# go first. pip runs as the environment's owner. When pip fails, the environment is put back as it was: the
# files of every distribution the install could touch are kept in a snapshot and restored.
gd_torch_reinstall_one() {
  local user=$1 index=$2 tag=$3 spec=$4 python=$5 current pkgs=() extra out=() source=() pins=() dir
  local snap touched=() before after name owner
  shift 5
  if (($#)) && [[ $1 == -- ]]; then shift; fi
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
  if [[ -n $GD_COLLECT ]]; then
    printf '%s\t%s\t%s\t%s\n' "$python" "$index" "$tag" "${pkgs[*]}" >>"$GD_COLLECT/pip"
    return 0
  fi
  owner=$(stat -c %U -- "${python%/bin/*}" 2>/dev/null || true)
  if [[ -n $owner && $owner != UNKNOWN ]]; then user=$owner; fi
  gd_read_lines out <<<"$(gd_pip_outgoing "$python" "$@")"
  dir=$GD_CACHE_DIR/wheels/$tag
  if [[ -f $GD_CACHE_DIR/ready && -d $dir ]]; then
    source=(--no-index --find-links "$dir")
    # Exactly the versions downloaded: pip would keep torch 2.9.0+rocm7.2 for "torch" otherwise.
    for name in "${pkgs[@]}"; do
      name=${name%%=*}
      local whl
      whl=$(find "$dir" -maxdepth 1 -name "${name}-*.whl" -print -quit)
      if [[ -n $whl ]]; then
        whl=${whl##*/}
        whl=${whl#"$name"-}
        pins+=("$name==${whl%%-*}")
      else
        pins+=("$name")
      fi
    done
    gd_read_lines touched <<<"$(find "$dir" -maxdepth 1 -name '*.whl' -printf '%f\n' |
      sed 's/-.*//; s/_/-/g' | tr '[:upper:]' '[:lower:]' | sort -u)"
  else
    source=(--index-url "$index")
    pins=("${pkgs[@]}")
    touched=(torch torchvision torchaudio triton pytorch-triton-rocm)
  fi
  if ((GD_DRY_RUN)); then
    if ((${#out[@]})) && [[ -n ${out[0]} ]]; then gd_as_user "$user" "$python" -m pip uninstall -y "${out[@]}"; fi
    gd_as_user "$user" "$python" -m pip install --no-cache-dir "${source[@]}" "${pins[@]}"
    return 0
  fi
  # The snapshot: every file of what the install may replace, and of the wheels about to go.
  snap=$GD_WORK_DIR/pip-snapshot-$(printf '%s' "$python" | cksum | cut -d' ' -f1).tar
  mkdir -p -- "$GD_WORK_DIR"
  before=$(gd_pip_freeze "$python")
  gd_pip_files "$python" "${touched[@]}" "${out[@]}" | tar -P -cf "$snap" -T - 2>/dev/null || true
  gd_journal pip-snapshot "$python" "$snap"
  gd_journal_sync
  if ((${#out[@]})) && [[ -n ${out[0]} ]]; then
    gd_as_user "$user" "$python" -m pip uninstall -y "${out[@]}"
    gd_journal pip-uninstall "$python" "${out[*]}"
  fi
  if ! gd_as_user "$user" "$python" -m pip install --no-cache-dir "${source[@]}" "${pins[@]}"; then
    # Back to the snapshot: what the failed install added or changed goes, the old files come back.
    after=$(gd_pip_freeze "$python")
    local gone=()
    gd_read_lines gone <<<"$(gd_only_in_second "$before" "$after" | sed 's/==.*//')"
    if ((${#gone[@]})) && [[ -n ${gone[0]} ]]; then
      gd_as_user "$user" "$python" -m pip uninstall -y "${gone[@]}" || true
    fi
    tar -P -xpf "$snap"
    current=$("$python" -c 'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null || true)
    gd_journal pip-restored "$python" "torch==$current"
    gd_die "pip could not install ${pins[*]} into $python; the environment is as it was (torch ${current:-absent})"
  fi
  gd_journal pip-install "$python" "${pins[*]}" "$index"
  GD_CHANGES=$((GD_CHANGES + 1))
}

# gd_verify_torch LOCAL_TAG PYTHON...: torch in each environment is a +LOCAL_TAG build.
gd_verify_torch() {
  local tag=$1 python current
  shift
  for python in "$@"; do
    if [[ ! -x $python ]]; then continue; fi
    current=$("$python" -c 'import importlib.metadata as m; print(m.version("torch"))' 2>/dev/null || true)
    if [[ $current != *"+$tag" ]]; then
      gd_say "torch in $python is ${current:-missing}, not a +$tag build" >&2
      return 1
    fi
  done
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

# gd_post_check GPUDOCTOR IDS: runs gpudoctor's own checks after a migration, with the gpudoctor that wrote
# this script, by its absolute path (a PATH such as sudo's secure_path may lack its folder), and only when no
# other user can change it: the file and every folder above it owned by root (or by who runs this), writable
# by neither group nor others, none of them a link (gpudoctor wrote its resolved path). Otherwise the step
# fails and says why: a check that did not run never reports success.
gd_post_check() {
  local gpudoctor=$1 ids=$2 path me owner mode why=
  if ((GD_DRY_RUN)); then
    gd_note "would run: $(gd_quote "$gpudoctor") check --only $ids"
    return 0
  fi
  me=$(id -u)
  path=$gpudoctor
  if [[ $path != /* ]]; then why="$(gd_quote "$path") is not an absolute path"; fi
  while [[ -z $why ]]; do
    if [[ -L $path ]]; then
      why="$(gd_quote "$path") is a link"
    elif [[ ! -e $path ]]; then
      why="$(gd_quote "$path") is not there"
    else
      read -r owner mode <<<"$(stat -c '%u %a' -- "$path")"
      if ((owner != 0 && owner != me)); then
        why="$(gd_quote "$path") is owned by $(id -nu "$owner" 2>/dev/null || printf '%s' "$owner")"
      elif ((8#$mode & 8#022)); then
        why="$(gd_quote "$path") is writable by its group or others"
      fi
    fi
    if [[ $path == / ]]; then break; fi
    path=$(gd_dir_of "$path")
  done
  if [[ -n $why ]]; then
    gd_die "the check step cannot run gpudoctor: $why, and this step runs only a gpudoctor no other user can" \
      "change. Run the checks with a trusted gpudoctor yourself: gpudoctor check --only $ids"
  fi
  gd_note "+ $(gd_quote "$gpudoctor") check --only $ids"
  "$gpudoctor" check --only "$ids"
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
  gd_not_installroot gd_reboot
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
  GD_REBOOTING=1
  if ((GD_NO_REBOOT)) || [[ $now == unknown ]]; then
    gd_say "Reboot now, then run this script again (or gpudoctor migrate --resume) to continue."
    exit 100
  fi
  gd_say "Rebooting in 10 seconds (Ctrl-C to stop). Run this script again after the reboot to continue."
  sleep 10
  if gd_have systemctl; then gd_run systemctl reboot; else gd_run reboot; fi
  exit 100
}

# gd_power_off_for_swap OLD NEW [MOK]: the old vendor's cards leave and the new one comes in while the machine is
# off. Asks once (its own request in the journal: an earlier reboot of the plan does not count), then goes on
# when run again in a later boot. MOK: "yes" when a Machine Owner Key waits to be confirmed at that boot.
gd_power_off_for_swap() {
  local old=$1 new=$2 mok=${3:-} now asked
  now=$(gd_boot_id)
  if [[ -f $GD_JOURNAL ]]; then
    asked=$(awk -F '\t' -v step="$GD_STEP" '$3 == step && $4 == "power-off-requested" { id = $5 } END { print id }' "$GD_JOURNAL")
  fi
  if [[ -n ${asked:-} && $now != unknown && $asked != "$now" ]]; then
    gd_note "the machine was off since this script asked for the card swap: going on"
    return 0
  fi
  if ((GD_DRY_RUN)); then
    gd_note "would stop here to power off and swap $old for $new"
    return 0
  fi
  gd_journal power-off-requested "$now"
  gd_journal_sync
  GD_REBOOTING=1
  gd_say "Power the machine off now, take out $old and put in $new (the new driver is installed and waits" \
    "for it), power on, then run this script again (or gpudoctor migrate --resume) to continue."
  if [[ $mok == yes ]]; then gd_mok_screen_help; fi
  exit 100
}

# ---- Secure Boot: the DKMS signing key as a Machine Owner Key (enroll-mok) -----------------------------------

# gd_mok_paths KEY CERT: the key and certificate DKMS signs modules with, into GD_MOK_KEY and GD_MOK_CERT (no
# subshell: a chroot without /proc has no /dev/fd): /etc/dkms/framework.conf's (and framework.conf.d's)
# mok_signing_key and mok_certificate when set, as dkms reads them, else KEY and CERT: the plan's, from the
# table of where each distribution's dkms signs (checks/knowledge/secure_boot.yaml).
gd_mok_paths() {
  local key='' cert='' f line
  for f in /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf; do
    [[ -r $f ]] || continue
    while IFS= read -r line || [[ -n $line ]]; do
      case $line in
      mok_signing_key=*) key=${line#*=} ;;
      mok_certificate=*) cert=${line#*=} ;;
      esac
    done <"$f"
  done
  key=${key//\"/} cert=${cert//\"/}
  GD_MOK_KEY=${key:-${1:-}}
  GD_MOK_CERT=${cert:-${2:-}}
}

# Before anything changes (the key step is in the prepare stage): mokutil is there, and mokutil --import will
# have its one-time password: a terminal to ask on, or --mok-hash-file (a regular file of root's no one else
# may write: root reads no record another user controls). Nothing is asked when the key is enrolled already.
gd_mok_ready() { # after gd_mok_paths
  gd_have mokutil || gd_die "no mokutil to enroll DKMS's key: install it (the mokutil package) first"
  if [[ -n $GD_MOK_HASH_FILE ]]; then
    if [[ ! -f $GD_MOK_HASH_FILE || -L $GD_MOK_HASH_FILE || ! -O $GD_MOK_HASH_FILE ||
      -n $(find "$GD_MOK_HASH_FILE" -maxdepth 0 -perm /022 2>/dev/null) ]]; then
      gd_die "--mok-hash-file $GD_MOK_HASH_FILE must be a regular file of this user's that no one else can write"
    fi
    return 0
  fi
  if [[ -s $GD_MOK_CERT ]] && grep -q 'is already enrolled' <<<"$(mokutil --test-key "$GD_MOK_CERT" 2>/dev/null)"; then
    return 0
  fi
  if [[ -t 0 ]]; then return 0; fi
  if ((GD_DRY_RUN)); then
    gd_note "mokutil --import will ask for a one-time password: run this from a terminal, or give --mok-hash-file FILE"
    return 0
  fi
  gd_die "mokutil --import asks for a one-time password on a terminal, and this run has none: run the script" \
    "from a terminal, or make the password's hash with mokutil --generate-hash > FILE (root's, mode 0600) and" \
    "run the script with --mok-hash-file FILE"
}

# gd_mok_key KEY CERT MAKER: makes the signing key where DKMS looks for it, unless it is there, as dkms itself
# would: MAKER update-secureboot-policy (Ubuntu's shim-signed: `--new-key`, where it is installed), else
# openssl with dkms's own command. A dkms that signs nothing here (MAKER none: before 3.0.4 outside Ubuntu)
# stops the run: an enrolled key would not help.
gd_mok_key() {
  local maker=${3:-dkms}
  gd_mok_paths "$1" "$2"
  if [[ -z $GD_MOK_KEY || -z $GD_MOK_CERT ]]; then
    gd_die "the dkms here signs no modules (dkms before 3.0.4 outside Ubuntu), so no key to enroll helps:" \
      "install a newer dkms, or set mok_signing_key and mok_certificate in /etc/dkms/framework.conf"
  fi
  gd_mok_ready
  if [[ -s $GD_MOK_CERT && -s $GD_MOK_KEY ]]; then
    gd_note "DKMS signs with $GD_MOK_CERT (there already)"
    return 0
  fi
  if [[ $maker == update-secureboot-policy ]] && ! gd_have update-secureboot-policy; then maker=dkms; fi
  if [[ $maker != update-secureboot-policy ]]; then
    maker=openssl
    gd_have openssl || gd_die "no openssl to make the DKMS signing key $GD_MOK_KEY (install openssl)"
  fi
  if ((GD_DRY_RUN)); then
    gd_note "would make the DKMS signing key $GD_MOK_KEY and its certificate $GD_MOK_CERT ($maker)"
    return 0
  fi
  mkdir -p -- "$(gd_dir_of "$GD_MOK_KEY")" "$(gd_dir_of "$GD_MOK_CERT")"
  gd_journal created "$GD_MOK_KEY"
  gd_journal created "$GD_MOK_CERT"
  gd_journal_sync
  if [[ $maker == update-secureboot-policy ]]; then
    # As dkms does: the policy tool makes the pair only when the certificate is missing.
    rm -f -- "$GD_MOK_CERT"
    SHIM_NOTRIGGER=y gd_run update-secureboot-policy --new-key || gd_die "update-secureboot-policy --new-key failed"
  else
    (umask 077 && gd_run openssl req -new -x509 -nodes -days 36500 -subj "/CN=DKMS module signing key" \
      -newkey rsa:2048 -keyout "$GD_MOK_KEY" -addext "extendedKeyUsage=codeSigning" -outform DER \
      -out "$GD_MOK_CERT") || gd_die "openssl could not make $GD_MOK_KEY"
  fi
  [[ -s $GD_MOK_KEY && -s $GD_MOK_CERT ]] || gd_die "$maker made no $GD_MOK_KEY and $GD_MOK_CERT"
  GD_CHANGES=$((GD_CHANGES + 1))
}

gd_verify_mok_key() {
  gd_mok_paths "$@"
  [[ -s $GD_MOK_KEY && -s $GD_MOK_CERT ]] || gd_die "no DKMS signing key $GD_MOK_KEY with its certificate $GD_MOK_CERT"
}

# Asks the firmware to enroll the certificate at the next boot (mokutil asks for a one-time password, which
# the MOK screen asks for again); nothing to do when it is enrolled already.
gd_mok_import() { # KEY CERT
  gd_mok_paths "$@"
  gd_have mokutil || gd_die "no mokutil (install mokutil) to enroll $GD_MOK_CERT"
  if grep -q 'is already enrolled' <<<"$(mokutil --test-key "$GD_MOK_CERT" 2>/dev/null)"; then
    gd_note "$GD_MOK_CERT is enrolled already"
    return 0
  fi
  if [[ -n $GD_MOK_HASH_FILE ]]; then
    gd_run mokutil --import "$GD_MOK_CERT" --hash-file "$GD_MOK_HASH_FILE" || gd_die "mokutil --import $GD_MOK_CERT failed"
  else
    gd_run mokutil --import "$GD_MOK_CERT" || gd_die "mokutil --import $GD_MOK_CERT failed"
  fi
  GD_CHANGES=$((GD_CHANGES + 1))
}

gd_mok_screen_help() {
  gd_say "At the next boot the blue MOK manager screen appears (it waits about 10 seconds: press a key):" \
    "choose Enroll MOK, then Continue, Yes, type the password you gave mokutil, then Reboot. Without" \
    "that, Secure Boot refuses the driver's module."
}

# The stop before the reboot that enrolls the key.
gd_mok_reboot() {
  gd_mok_screen_help
  gd_reboot
}

# After the reboot: the module loaded (the kernel took its signature).
gd_verify_module_loaded() {
  local module=$1
  if [[ ! -d /sys/module/$module ]]; then
    gd_say "the $module module is not loaded: if the MOK screen was missed, run mokutil --import again" \
      "(gpudoctor fix enroll-mok) and reboot; mokutil --test-key says whether the key is enrolled" >&2
    return 1
  fi
  gd_note "the $module module is loaded"
}

# ---- running the steps ----------------------------------------------------------------------------------

gd_usage() {
  cat <<USAGE
usage: $0 [--dry-run] [--list] [--step ID] [--any-host] [--no-reboot] [--run-id ID] [--unhold]
          [--stop-gpu-users] [--mok-hash-file FILE]
  --dry-run    print every command and every change, change nothing
  --list       list the steps (what each needs: root, destructive, reboot)
  --step ID    run one step only (its id or number)
  --any-host   run on another host name than the one this script was made for (same OS release)
  --no-reboot  stop at a reboot step instead of rebooting (exit status 100)
  --run-id ID  name of this run in the journal and the backup folder (gpudoctor --apply passes it)
  --unhold     release held packages of the stack being removed (undo holds them again)
  --stop-gpu-users  stop the processes that have the old GPU's device files open (SIGTERM, then SIGKILL)
  --mok-hash-file FILE  under Secure Boot: the one-time MOK password's hash (mokutil --generate-hash > FILE,
               root's, written by no one else), for a run without a terminal for mokutil to ask on
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
    --unhold) GD_UNHOLD=1 ;;
    --stop-gpu-users) GD_STOP_GPU_USERS=1 ;;
    --mok-hash-file) GD_MOK_HASH_FILE=${2:?--mok-hash-file needs a file} && shift ;;
    -h | --help) gd_usage && exit 0 ;;
    *) gd_usage >&2 && exit 2 ;;
    esac
    shift
  done
}

# Refuses another distribution, release or host than the script was made for.
gd_preflight() {
  local id version host
  local release=$GD_INSTALLROOT/etc/os-release
  if [[ ! -r $release ]]; then gd_die "no /etc/os-release: cannot tell which system this is"; fi
  # shellcheck source=/dev/null
  id=$(. "$release" && printf '%s' "${ID:-}")
  # shellcheck source=/dev/null
  version=$(. "$release" && printf '%s' "${VERSION_ID:-}")
  # Shown as bash would need them typed: whatever the snapshot held, nothing reaches the terminal raw.
  if [[ $id != "$GD_FOR_OS_ID" || $version != "$GD_FOR_OS_VERSION" ]]; then
    gd_die "made for $(gd_quote "$GD_FOR_OS_ID" "$GD_FOR_OS_VERSION")," \
      "this is $(gd_quote "${id:-unknown}" "${version:-?}"): make a new script here (gpudoctor fix / migrate)"
  fi
  host=$(uname -n)
  if [[ -n $GD_FOR_HOST && $host != "$GD_FOR_HOST" ]] && ((!GD_ANY_HOST)); then
    gd_die "made for host $(gd_quote "$GD_FOR_HOST"), this is $(gd_quote "$host")" \
      "(--any-host if it is the same machine renamed)"
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
  # 100 means "reboot now" (gd_reboot); a command that failed with 100 (apt-get does) is a failure.
  if ((status == 100 && !GD_REBOOTING)); then status=1; fi
  if ((status != 0 && status != 100)) && [[ $GD_STEP != - ]]; then
    if ((GD_DRY_RUN)); then
      printf 'gpudoctor script: the dry run stopped at step %s (exit status %s)\n' "$GD_STEP" "$status" >&2
    elif [[ $GD_PHASE == verify ]]; then
      # The journal's disk may be what failed: its entry must not stop what follows (set -e holds in traps).
      gd_journal verify-failed "$status" || true
      printf 'gpudoctor script: step %s ran but its check failed; journal: %s\n' "$GD_STEP" "$GD_JOURNAL" >&2
    else
      gd_journal step-failed "$status" || true
      # A failure no helper explained (set -e stopped the step): the command, so that the cause has a name.
      if ((!GD_DIED)) && [[ -n $GD_FAILED_COMMAND ]]; then
        printf 'gpudoctor script: this command failed: %s\n' "$GD_FAILED_COMMAND" >&2
      fi
      printf 'gpudoctor script: step %s failed (exit status %s); nothing after it ran. Journal: %s\n' \
        "$GD_STEP" "$status" "$GD_JOURNAL" >&2
    fi
    # Any failure in the prepare stage (sources, keys, holds, the downloads) puts back what the stage added.
    if ((!GD_DRY_RUN)) && [[ ${GD_STEP_FLAGS[GD_STEP_INDEX]} == *prepare* ]]; then gd_rollback_run || true; fi
  fi
  exit "$status"
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
  # The command set -e stopped a step on, for gd_on_exit (functions and subshells inherit the trap: -E).
  set -E
  trap 'GD_FAILED_COMMAND="$BASH_COMMAND (line $LINENO)"' ERR
  if ((GD_DRY_RUN)); then gd_say "Dry run: nothing will be changed."; fi
  # The family too: a script run by hand leaves no record of it, and undo must not run apt on RHEL.
  gd_journal start "$GD_SCRIPT_ID" "$GD_FAMILY"
  gd_remove_stale_temps
  n=${#GD_STEP_IDS[@]}
  for i in "${selected[@]}"; do
    GD_STEP=${GD_STEP_IDS[i]}
    GD_STEP_INDEX=$i
    GD_PHASE=run
    gd_say "==> [$((i + 1))/$n] ${GD_STEP_TITLES[i]} (${GD_STEP_IDS[i]})"
    gd_journal step-begin "${GD_STEP_TITLES[i]}"
    gd_journal_reserve
    "gd_step_$((i + 1))"
    if ((!GD_DRY_RUN)); then
      # What a change owes (an initramfs, ldconfig), this run's or an earlier failed run's, is paid now.
      gd_settle
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
