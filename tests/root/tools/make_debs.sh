#!/usr/bin/env bash
# make_debs.sh GRAPH OUT_DIR KEY_FILE KERNEL [NEXT_KERNEL]: one dummy .deb per paragraph of a package graph
# (tests/root/graphs/README.md), written to OUT_DIR as NAME_VERSION_all.deb (the epoch left out, as dpkg
# names files). @TESTKEY@ in a File: line stands for KEY_FILE's content, @TOOL:NAME@ for the file
# tests/root/tools/NAME (its mode kept: the fake dkms), @KERNEL@ anywhere for KERNEL, @NEXT_KERNEL@ for
# NEXT_KERNEL (a newer kernel than the running one, for the kernel that boots next). A Module: line is
# compiled here with the host's C compiler into a kernel-module-shaped ELF object (its .modinfo section
# read by modinfo and depmod as a real module's), never a committed binary.
set -euo pipefail
graph=$1 out=$2 key=$3 kernel=$4 next_kernel=${5:-99.0.0-1-gpudoctor-test}
tools=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# module_object FILE NAME VERSION: an ELF relocatable object whose .modinfo section holds what modinfo shows
# of a module (name, version, license, vermagic of KERNEL); modinfo -k and depmod read it as a module.
module_object() {
  local file=$1 name=$2 version=$3 src i=0 field
  src=$tmp/modinfo-$BASHPID.c
  : >"$src"
  for field in "name=$name" "version=$version" "license=Dual MIT/GPL" "depends=" \
    "description=gpudoctor's root tests: a dummy $name module" "vermagic=$kernel SMP preempt mod_unload modversions "; do
    i=$((i + 1))
    printf '__attribute__((section(".modinfo"), used, aligned(1))) static const char f%d[] = "%s";\n' "$i" "$field" >>"$src"
  done
  mkdir -p "$(dirname "$file")"
  cc -c -o "$file" "$src"
}

# A maintainer script of the package: its lines after a shebang and `set -e`.
maintainer_script() {
  local file=$1
  shift
  printf '#!/bin/sh\nset -e\n' >"$file"
  printf '%b\n' "$@" >>"$file"
  chmod 0755 "$file"
}

build() { # the paragraph's fields are in the globals below
  local dir=$tmp/$name spec path content
  [[ -n $name && -n $version ]] || return 0
  rm -rf "$dir"
  mkdir -p "$dir/DEBIAN"
  {
    echo "Package: $name"
    echo "Version: $version"
    echo "Architecture: all"
    echo "Maintainer: ${maintainer:-gpudoctor tests <tests@gpudoctor.invalid>}"
    [[ -n $predepends ]] && echo "Pre-Depends: $predepends"
    [[ -n $depends ]] && echo "Depends: $depends"
    [[ -n $provides ]] && echo "Provides: $provides"
    [[ -n $conflicts ]] && echo "Conflicts: $conflicts"
    [[ -n $breaks ]] && echo "Breaks: $breaks"
    echo "Description: dummy $name for gpudoctor's root tests"
  } >"$dir/DEBIAN/control"
  if ((${#files[@]} == 0)); then files=("/usr/share/doc/$name/README dummy"); fi
  for spec in "${files[@]}"; do
    path=${spec%% *}
    content=${spec#* }
    mkdir -p "$dir$(dirname "$path")"
    if [[ $content == @TESTKEY@ ]]; then
      cp "$key" "$dir$path"
    elif [[ $content =~ ^@TOOL:([A-Za-z0-9_.-]+)@$ ]]; then
      cp -p "$tools/${BASH_REMATCH[1]}" "$dir$path"
    else
      printf '%b\n' "$content" >"$dir$path"
    fi
  done
  for spec in "${modules[@]}"; do
    read -r path mod_name mod_version <<<"$spec"
    module_object "$dir$path" "$mod_name" "$mod_version"
  done
  if ((${#postinst[@]})); then maintainer_script "$dir/DEBIAN/postinst" "${postinst[@]}"; fi
  if ((${#prerm[@]})); then maintainer_script "$dir/DEBIAN/prerm" "${prerm[@]}"; fi
  # Files below /etc are configuration files, as in real packages (dpkg keeps them on remove, drops on purge).
  (cd "$dir" && find etc -type f 2>/dev/null | sed 's|^|/|' >DEBIAN/conffiles) || true
  [[ -s $dir/DEBIAN/conffiles ]] || rm -f "$dir/DEBIAN/conffiles"
  dpkg-deb --root-owner-group -Zgzip -z1 --build "$dir" "$out/${name}_${version#*:}_all.deb" >/dev/null
}

name='' version='' depends='' predepends='' provides='' conflicts='' breaks='' maintainer=''
files=() modules=() postinst=() prerm=()
while IFS= read -r line || [[ -n $line ]]; do
  line=${line//@KERNEL@/$kernel}
  line=${line//@NEXT_KERNEL@/$next_kernel}
  case $line in
  '#'*) continue ;;
  '')
    # dpkg-deb spends its time waiting on fsync: a few packages at a time.
    while (($(jobs -rp | wc -l) >= 6)); do wait -n; done
    build &
    name='' version='' depends='' predepends='' provides='' conflicts='' breaks='' maintainer=''
    files=() modules=() postinst=() prerm=()
    ;;
  'Package: '*) name=${line#Package: } ;;
  'Version: '*) version=${line#Version: } ;;
  'Depends: '*) depends=${line#Depends: } ;;
  'Pre-Depends: '*) predepends=${line#Pre-Depends: } ;;
  'Provides: '*) provides=${line#Provides: } ;;
  'Conflicts: '*) conflicts=${line#Conflicts: } ;;
  'Breaks: '*) breaks=${line#Breaks: } ;;
  'Maintainer: '*) maintainer=${line#Maintainer: } ;;
  'Module: '*) modules+=("${line#Module: }") ;;
  'Postinst: '*) postinst+=("${line#Postinst: }") ;;
  'Prerm: '*) prerm+=("${line#Prerm: }") ;;
  'File: '*) files+=("${line#File: }") ;;
  *)
    echo "make_debs.sh: $graph: cannot read: $line" >&2
    exit 1
    ;;
  esac
done <"$graph"
build
wait
