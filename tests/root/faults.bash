# Faults from outside the product, for the root tests (sourced after lib.bash; fault_matrix.sh uses it):
#   - wrappers for apt-get, dpkg, dnf, dkms, mv, cp, sync and uname inside the root (tools/fault_wrapper.sh,
#     /usr/local/sbin, first on every PATH; apt runs dpkg through its wrapper by Dir::Bin::dpkg) that run the
#     real tool unless /.gpudoctor-fault/faults in the root chooses the call: fail it, SIGKILL the run before or
#     after it, fill a disk, or pause (the step boundaries of a run, copied while it waits);
#   - the killer: fault_run starts a command in a session of its own and SIGKILLs its process group (gpudoctor
#     and the step's bash with it: run_foreground keeps the group) when a wrapper asks;
#   - a size-limited tmpfs on one folder of the root (fault_small_fs), the rest of the disk as it was;
#   - layers: roots as overlayfs stacks over the cached machine, so that a run's step boundaries and a faulted
#     root are kept as small upper folders and every recovery branches from the same faulted root;
#   - the invariants' views of a root: packages with marks and holds, sources, keys, pins and profiles, the
#     drivers with their modules, dpkg's audit.
# shellcheck shell=bash
# shellcheck disable=SC2034,SC2154 # lib.bash sets root_dir, work, kernel; the callers read fault_status

fault_dir=/.gpudoctor-fault

# fault_install ROOT: the wrappers for the tools the root has, apt's dpkg through its wrapper.
fault_install() {
  local root=$1 tool d
  for tool in apt-get dpkg dnf dkms mv cp sync uname; do
    for d in usr/sbin usr/bin sbin bin; do
      if [[ -x $root/$d/$tool && ! -L $root/$d/$tool ]]; then
        install -m 0755 "$root_dir/tools/fault_wrapper.sh" "$root/usr/local/sbin/$tool"
        break
      fi
    done
  done
  # apt gives dpkg's maintainer scripts a PATH without /usr/local (DPkg::Path): the postinsts that run dkms
  # must find its wrapper too.
  printf 'Dir::Bin::dpkg "/usr/local/sbin/dpkg";\nDPkg::Path "/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin";\n' \
    >"$root/etc/apt/apt.conf.d/00gpudoctor-test-faults"
  mkdir -p "$root$fault_dir"
}

# fault_gpudoctor_stub ROOT GPUDOCTOR: at GPUDOCTOR's path in ROOT (a migration's check step runs the
# gpudoctor that wrote the script by its absolute path; the real binary needs libraries the root lacks), the
# wrapper over a stand-in that logs its call to /var/log/gpudoctor-stub.log and passes.
fault_gpudoctor_stub() {
  local root=$1 gd
  gd=$(readlink -f "$2")
  mkdir -p "$root$(dirname "$gd")" "$root/usr/local/lib/gpudoctor-fault"
  install -m 0755 "$root_dir/tools/fault_wrapper.sh" "$root$gd"
  cat >"$root/usr/local/lib/gpudoctor-fault/gpudoctor" <<'SH'
#!/bin/sh
echo "gpudoctor $*" >>/var/log/gpudoctor-stub.log
echo "gpudoctor (the fault matrix's stand-in): all checks pass"
SH
  chmod 0755 "$root/usr/local/lib/gpudoctor-fault/gpudoctor"
}

# fault_arm ROOT LINE...: the faults of the next run (tools/fault_wrapper.sh: "STEP TOOL ACTION ARG PATTERN").
fault_arm() {
  local root=$1
  shift
  rm -rf "${root:?}$fault_dir" && mkdir -p "$root$fault_dir"
  printf '%s\n' "$@" >"$root$fault_dir/faults"
}

# fault_disarm ROOT: no more faults; the log of what fired is kept as fired.log.
fault_disarm() {
  local root=$1
  [[ -f $root$fault_dir/log ]] && cat "$root$fault_dir/log" >>"$root$fault_dir/fired.log"
  rm -f "$root$fault_dir"/{faults,fired,kill,log,count.*,paused.*,go.*,pauses}
}

# What fired in the last run ("STEP<TAB>TOOL ACTION" a line).
fault_fired() { cat "$1$fault_dir/log" 2>/dev/null || true; }

# fault_run ROOT OUT CMD...: CMD (gpudoctor) in a session of its own, its output to OUT; the killer SIGKILLs
# its process group when a wrapper asks (/.gpudoctor-fault/kill); at a wrapper's pause N it calls
# "$fault_on_pause N STEP" (when set) and lets the run go on. The exit status in fault_status (137: killed).
fault_on_pause=
fault_status=0
fault_run() {
  local root=$1 out=$2 pid k killed=0 step
  shift 2
  k=$(($(cat "$root$fault_dir/pauses" 2>/dev/null || echo 0) + 1))
  setsid "$@" >"$out" 2>&1 </dev/null &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if [[ -e $root$fault_dir/kill ]] && ((!killed)); then
      kill -KILL -- "-$pid" 2>/dev/null || true
      killed=1
    fi
    if [[ -e $root$fault_dir/paused.$k ]]; then
      step=$(cat "$root$fault_dir/paused.$k")
      if [[ -n $fault_on_pause ]]; then "$fault_on_pause" "$k" "$step"; fi
      : >"$root$fault_dir/go.$k"
      k=$((k + 1))
      continue
    fi
    sleep 0.02
  done
  fault_status=0
  wait "$pid" || fault_status=$?
  # What the killed group left (a wrapper waiting to be killed has the group's id too).
  if ((killed)); then kill -KILL -- "-$pid" 2>/dev/null || true; fi
  rm -f "$root$fault_dir/kill"
  if ((killed)); then fault_status=137; fi
}

# fault_small_fs ROOT DIR SIZE: DIR (inside ROOT) on a tmpfs of SIZE holding what DIR held.
fault_small_fs() {
  local root=$1 dir=$2 size=$3 keep
  keep=$(mktemp -d "$work/keep.XXXXXX")
  mkdir -p "$root$dir"
  cp -a "$root$dir/." "$keep/"
  mount -t tmpfs -o "size=$size,mode=0755" gpudoctor-fault "$root$dir"
  chmod --reference="$keep" "$root$dir"
  cp -a "$keep/." "$root$dir/" || fail "$dir does not fit in $size"
  rm -rf "$keep"
}

# fault_release_fs ROOT DIR: the tmpfs goes, what it holds (but the fillers) is put back in DIR: the admin
# made room.
fault_release_fs() {
  local root=$1 dir=$2 keep
  mountpoint -q "$root$dir" || return 0
  keep=$(mktemp -d "$work/keep.XXXXXX")
  rm -f "$root$dir"/.gpudoctor-fault-filler*
  cp -a "$root$dir/." "$keep/"
  umount "$root$dir"
  rm -rf "${root:?}$dir"
  mkdir -p "$root$dir"
  cp -a "$keep/." "$root$dir/"
  chmod --reference="$keep" "$root$dir"
  rm -rf "$keep"
}

# fault_fill ROOT DIR: fills the filesystem of DIR now (a disk full before the step begins).
fault_fill() {
  dd if=/dev/zero of="$1$2/.gpudoctor-fault-filler" bs=4k >/dev/null 2>&1 || true
  dd if=/dev/zero of="$1$2/.gpudoctor-fault-filler2" bs=512 >/dev/null 2>&1 || true
}

# ---- layers ----------------------------------------------------------------------------------------------
# layer_mount DIR UPPER LOWER...: an overlay at DIR over the LOWER folders (the first on top), writing into
# UPPER (which can be a lower layer of the next root once DIR is unmounted). The roots of a test take turns
# at one DIR: gpudoctor's 0.1.0 state records the root's path, so a root copied elsewhere would not resume.
layer_mount() {
  local dir=$1 upper=$2 lowers
  shift 2
  lowers=$(
    IFS=:
    printf '%s' "$*"
  )
  mkdir -p "$dir" "$upper" "$upper.work"
  mount -t overlay gpudoctor-layer -o "lowerdir=$lowers,upperdir=$upper,workdir=$upper.work" "$dir" ||
    fail "cannot mount an overlay at $dir"
}

# layer_umount DIR UPPER: DIR and what is mounted below it; UPPER stays, without overlayfs's work folder.
layer_umount() {
  local dir=$1 upper=$2 mnt
  while read -r _ mnt _; do
    if [[ $mnt == "$dir"/* ]]; then umount "$mnt" 2>/dev/null || umount -l "$mnt"; fi
  done < <(sort -r -k2 /proc/mounts)
  umount "$dir" 2>/dev/null || umount -l "$dir"
  rm -rf "$upper.work"
}

# layer_snapshot UPPER COPY: the changes of a mounted overlay so far (its upper folder) copied to COPY, a
# layer to stack over the same lowers; the run writing it must be waiting meanwhile (a wrapper's pause).
layer_snapshot() {
  cp -a "$1" "$2"
  rm -rf "${2:?}$fault_dir"
}

# ---- what the invariants compare -------------------------------------------------------------------------
# Every package dpkg knows but those never installed, a line each: dpkg's status, name, version, architecture,
# apt's mark (auto/manual), dpkg's selection when not "install" (hold; deinstall or purge: an interrupted apt
# transaction leaves installed packages that it meant to remove). Read from dpkg's and apt's files (no chroot: it runs at every boundary).
pkg_state() {
  local root=$1
  awk -v RS= -F '\n' '
    FILENAME ~ /extended_states$/ {
      p = a = ""; auto = 0
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^Package: /) p = substr($i, 10)
        else if ($i ~ /^Architecture: /) a = substr($i, 15)
        else if ($i ~ /^Auto-Installed: 1/) auto = 1
      }
      if (auto) autos[p] = 1
      next
    }
    {
      p = v = a = st = ""
      for (i = 1; i <= NF; i++) {
        if ($i ~ /^Package: /) p = substr($i, 10)
        else if ($i ~ /^Version: /) v = substr($i, 10)
        else if ($i ~ /^Architecture: /) a = substr($i, 15)
        else if ($i ~ /^Status: /) st = substr($i, 9)
      }
      if (p == "" || st ~ / not-installed$/) next
      split(st, s, " ")
      printf "%s %s %s %s %s %s\n", s[3], p, v, a, (p in autos ? "auto" : "manual"), (s[1] == "install" ? "-" : s[1])
    }' "$root/var/lib/apt/extended_states" "$root/var/lib/dpkg/status" 2>/dev/null | sort
}

# The sources, keys, pins and profiles: path, type, mode, owner and content hash of each.
config_state() {
  local root=$1 paths=() p
  for p in etc/apt/sources.list etc/apt/sources.list.d etc/apt/keyrings usr/share/keyrings etc/apt/trusted.gpg \
    etc/apt/trusted.gpg.d etc/apt/preferences etc/apt/preferences.d etc/environment etc/profile etc/profile.d \
    etc/bash.bashrc root/.bashrc root/.profile "$root"/home/*/.bashrc "$root"/home/*/.profile; do
    p=${p#"$root"/}
    if [[ -e $root/$p || -L $root/$p ]]; then paths+=("$p"); fi
  done
  (
    cd "$root" || exit 1
    find "${paths[@]}" -printf '%y %m %U:%G %l %p\n' | sort
    find "${paths[@]}" -type f -print0 | sort -z | xargs -0 -r sha256sum
  )
}

# The kernels whose modules count: the running one and the one that boots next (the newest of
# /lib/modules), each once.
root_kernels() {
  local root=$1 newest
  printf '%s\n' "$kernel"
  newest=$(find "$root/lib/modules" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' 2>/dev/null | sort -V | tail -n 1)
  if [[ -n $newest && $newest != "$kernel" ]]; then printf '%s\n' "$newest"; fi
}

# module_present ROOT KERNEL MODULE...: a module of one of these names that DKMS installed for KERNEL (modinfo
# reads it where the root has kmod).
module_present() {
  local root=$1 k=$2 m file=''
  shift 2
  for m in "$@"; do
    file=$(find "$root/lib/modules/$k/updates" -name "$m.ko*" -print 2>/dev/null | sed -n 1p)
    [[ -n $file ]] && break
  done
  [[ -n $file ]] || return 1
  m=$(basename "$file")
  if [[ -x $root/usr/sbin/modinfo || -x $root/sbin/modinfo || -x $root/usr/bin/modinfo ]]; then
    in_root "$root" modinfo -k "$k" -F filename "${m%%.ko*}" >/dev/null 2>&1 || return 1
  fi
}

# Whether a driver package of VENDOR is installed (amd: amdgpu-dkms; nvidia: NVIDIA's nvidia-dkms-*, or
# Debian's nvidia-kernel-dkms and nvidia-tesla-*-kernel-dkms).
driver_package() {
  local root=$1 vendor=$2
  case $vendor in
  amd) [[ -n $(pkg_state "$root" | awk '$1 == "installed" && $2 == "amdgpu-dkms"') ]] ;;
  nvidia) [[ -n $(pkg_state "$root" | awk '$1 == "installed" && $2 ~ /^(nvidia-dkms-|nvidia-kernel-dkms$|nvidia-tesla-[0-9]+-kernel-dkms$)/') ]] ;;
  esac
}

# The driver modules of each vendor's packages: NVIDIA's is nvidia.ko, Debian's build of it nvidia-current.ko.
declare -A driver_modules=([amd]=amdgpu [nvidia]="nvidia nvidia-current")

# kernel_driver ROOT VENDOR: the kernel's own module of VENDOR (amdgpu, in the kernel package's tree) for every
# kernel that counts. NVIDIA's GPUs have none that runs CUDA (nouveau does not).
kernel_driver() {
  local root=$1 k
  [[ $2 == amd ]] || return 1
  while read -r k; do
    [[ -n $(find "$root/lib/modules/$k/kernel" -name 'amdgpu.ko*' -print 2>/dev/null | sed -n 1p) ]] || return 1
  done < <(root_kernels "$root")
}

# driver_state ROOT: per vendor, "package" (installed), "+module" (its module for every kernel that counts), or
# "kernel" (no package; the kernel's own module); e.g. "amd:package+module nvidia:-".
driver_state() {
  local root=$1 vendor k out='' s
  for vendor in amd nvidia; do
    s=-
    if driver_package "$root" "$vendor"; then
      s=package
      local all=1
      # shellcheck disable=SC2086 # the module names, one word each
      while read -r k; do module_present "$root" "$k" ${driver_modules[$vendor]} || all=0; done < <(root_kernels "$root")
      ((all)) && s+=+module
    elif kernel_driver "$root" "$vendor"; then
      s=kernel
    fi
    out+="$vendor:$s "
  done
  printf '%s' "${out% }"
}

# dpkg --audit's complaints and apt-get check's errors (nothing when both are content).
dpkg_health() {
  local root=$1 audit check
  audit=$(in_root "$root" dpkg --audit 2>&1 || true)
  if [[ -n $audit ]]; then printf 'dpkg --audit: %s\n' "$(sed -n 1,3p <<<"$audit" | tr '\n' ' ')"; fi
  if ! check=$(in_root "$root" apt-get check -q 2>&1); then
    printf 'apt-get check: %s\n' "$(grep -E '^E:' <<<"$check" | sed -n 1,3p | tr '\n' ' ')"
  fi
}
