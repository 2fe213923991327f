#!/bin/sh
# The root tests' dkms (installed as /usr/sbin/dkms by the dkms package of graphs/debian-12.txt): DKMS's
# command line and trees as dkms 3 has them, with "building" a module meaning: copy the prebuilt objects of its
# source folder (/usr/src/MODULE-VERSION/*.ko, ELF objects with a .modinfo section that make_debs.sh compiles)
# to the build tree, then install them to /lib/modules/KERNEL/updates/dkms and run depmod, so that
# `modinfo -k KERNEL MODULE` finds them as it finds a real build.
#   dkms add|build|install|remove|status|autoinstall [-m MODULE -v VERSION | MODULE/VERSION] [-k KERNEL] [--all]
# A build needs the kernel's headers (/lib/modules/KERNEL/build or /usr/src/linux-headers-KERNEL), as dkms
# does. Faults (tests/root/fault_matrix.sh and migrate_order.sh): a line "MODULE" or "MODULE KERNEL" (or "*")
# in /etc/fake-dkms/fail makes that build fail as a compiler error does: a make.log in the build tree, dkms's
# "Bad return status" message, exit status 10. Every call that changes something is logged to
# /var/log/fake-dkms.log.
set -u
cmd=${1:-}
# Only what changes the machine is logged: a read (status) leaves the root as it was, as --dry-run must.
case $cmd in add | build | install | remove | uninstall | autoinstall) echo "dkms $*" >>/var/log/fake-dkms.log ;; esac
[ $# -gt 0 ] && shift
module='' version='' kernel='' all=''
while [ $# -gt 0 ]; do
  case $1 in
  -m) module=$2 && shift ;;
  -v) version=$2 && shift ;;
  -k) kernel=${2%%/*} && shift ;;
  --all) all=1 ;;
  -q | --quiet | --force | --no-depmod | --no-initrd) ;;
  */*) module=${1%%/*} version=${1#*/} ;;
  *) module=$1 ;;
  esac
  shift
done
arch=x86_64

die() {
  echo "Error! $*" >&2
  exit "${code:-1}"
}
tree() { echo "/var/lib/dkms/$1/$2"; }
headers() { [ -e "/lib/modules/$1/build" ] || [ -d "/usr/src/linux-headers-$1" ]; }
should_fail() {
  [ -f /etc/fake-dkms/fail ] || return 1
  while read -r fail_module fail_kernel; do
    case $fail_module in '' | '#'*) continue ;; esac
    if [ "$fail_module" = '*' ] || [ "$fail_module" = "$1" ]; then
      if [ -z "$fail_kernel" ] || [ "$fail_kernel" = "$2" ]; then return 0; fi
    fi
  done </etc/fake-dkms/fail
  return 1
}

do_add() {
  src=/usr/src/$module-$version
  [ -f "$src/dkms.conf" ] || die "Could not find module source directory $src (no dkms.conf)"
  [ -e "$(tree "$module" "$version")/source" ] && return 0
  mkdir -p "$(tree "$module" "$version")"
  ln -s "$src" "$(tree "$module" "$version")/source"
  echo "Creating symlink $(tree "$module" "$version")/source -> $src"
}

do_build() {
  k=${kernel:-$(uname -r)}
  t=$(tree "$module" "$version")
  [ -e "$t/source" ] || do_add
  headers "$k" || die "Your kernel headers for kernel $k cannot be found at /lib/modules/$k/build or /lib/modules/$k/source. Please install the linux-headers-$k package"
  mkdir -p "$t/build"
  echo "Building module(s) for $module/$version on kernel $k..."
  if should_fail "$module" "$k"; then
    {
      echo "DKMS make.log for $module-$version for kernel $k ($arch)"
      echo "make -C /lib/modules/$k/build M=$t/build modules"
      echo "$t/build/$module/$module-main.c:42:10: fatal error: linux/gpudoctor-missing.h: No such file or directory"
      echo "   42 | #include <linux/gpudoctor-missing.h>"
      echo "compilation terminated."
      echo "make[1]: *** [scripts/Makefile.build:243: $module-main.o] Error 1"
      echo "make: *** [Makefile:2029: $t/build] Error 2"
    } >"$t/build/make.log"
    code=10 die "Bad return status for module build on kernel: $k ($arch)
Consult $t/build/make.log for more information."
  fi
  printf 'DKMS make.log for %s-%s for kernel %s (%s)\nbuilt\n' "$module" "$version" "$k" "$arch" >"$t/build/make.log"
  mkdir -p "$t/$k/$arch/module"
  found=''
  for ko in "$t"/source/*.ko; do
    [ -f "$ko" ] || continue
    cp "$ko" "$t/$k/$arch/module/" && found=1
  done
  [ -n "$found" ] || compile_from_conf "$t/$k/$arch/module" ||
    code=10 die "Bad return status for module build on kernel: $k ($arch) (no objects in /usr/src/$module-$version)"
}

# A source without prebuilt objects (a distribution's real DKMS package: Debian's nvidia-kernel-dkms): one
# module-shaped object per module its dkms.conf installs (DEST_MODULE_NAME, else BUILT_MODULE_NAME), made
# with the root's C compiler as make_debs.sh makes the dummy packages' (.modinfo with vermagic of KERNEL).
compile_from_conf() {
  conf=$t/source/dkms.conf
  command -v cc >/dev/null 2>&1 || return 1
  names=$(sed -n 's/^DEST_MODULE_NAME\[[0-9]*\]="\(.*\)"$/\1/p' "$conf" | sed "s/\$PACKAGE_NAME/$module/g")
  [ -n "$names" ] || names=$(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\(.*\)"$/\1/p' "$conf")
  [ -n "$names" ] || return 1
  for name in $names; do
    c=$t/build/$name.c
    : >"$c"
    i=0
    for field in "name=$name" "version=$version" "license=NVIDIA" "depends=" "vermagic=$k SMP preempt mod_unload modversions "; do
      i=$((i + 1))
      printf '__attribute__((section(".modinfo"), used, aligned(1))) static const char f%d[] = "%s";\n' "$i" "$field" >>"$c"
    done
    cc -c -o "$1/$name.ko" "$c" || return 1
  done
}

do_install() {
  k=${kernel:-$(uname -r)}
  t=$(tree "$module" "$version")
  [ -d "$t/$k/$arch/module" ] || do_build
  mkdir -p "/lib/modules/$k/updates/dkms"
  cp "$t/$k/$arch/module/"*.ko "/lib/modules/$k/updates/dkms/"
  if command -v depmod >/dev/null 2>&1; then depmod -a "$k" 2>/dev/null; fi
  echo "$module/$version installed for $k"
}

do_remove() {
  t=$(tree "$module" "$version")
  [ -d "$t" ] || die "The module $module $version is not currently installed."
  for dir in "$t"/*/"$arch"/module; do
    [ -d "$dir" ] || continue
    k=${dir#"$t"/}
    k=${k%%/*}
    if [ -z "$all" ] && [ "$k" != "$kernel" ]; then continue; fi
    for ko in "$dir"/*.ko; do rm -f "/lib/modules/$k/updates/dkms/${ko##*/}"; done
    rm -rf "${t:?}/$k"
    if command -v depmod >/dev/null 2>&1; then depmod -a "$k" 2>/dev/null; fi
    echo "Module $module/$version for kernel $k ($arch): removed."
  done
  if [ -n "$all" ]; then rm -rf "$t" && rmdir "/var/lib/dkms/$module" 2>/dev/null; fi
  return 0
}

do_status() {
  for t in /var/lib/dkms/*/*; do
    [ -e "$t/source" ] || continue
    m=${t#/var/lib/dkms/}
    v=${m#*/}
    m=${m%%/*}
    if [ -n "$module" ] && [ "$m" != "$module" ]; then continue; fi
    if [ -n "$version" ] && [ "$v" != "$version" ]; then continue; fi
    any=''
    for dir in "$t"/*/"$arch"/module; do
      [ -d "$dir" ] || continue
      k=${dir#"$t"/}
      k=${k%%/*}
      if [ -n "$kernel" ] && [ "$k" != "$kernel" ]; then continue; fi
      any=1
      state=built
      for ko in "$dir"/*.ko; do
        [ -f "/lib/modules/$k/updates/dkms/${ko##*/}" ] && state=installed
      done
      echo "$m/$v, $k, $arch: $state"
    done
    if [ -z "$any" ] && [ -z "$kernel" ]; then echo "$m/$v: added"; fi
  done
}

case $cmd in
add) do_add ;;
build) do_build ;;
install) do_install ;;
remove | uninstall) do_remove ;;
status) do_status ;;
autoinstall)
  for t in /var/lib/dkms/*/*; do
    [ -e "$t/source" ] || continue
    m=${t#/var/lib/dkms/}
    module=${m%%/*} version=${m#*/}
    do_install || exit $?
  done
  ;;
--version) echo "dkms-3.0.10 (gpudoctor's fake)" ;;
*) die "dkms $cmd: not in gpudoctor's fake dkms" ;;
esac
