#!/usr/bin/env bash
# make_debs.sh GRAPH OUT_DIR KEY_FILE KERNEL: one dummy .deb per paragraph of a package graph
# (tests/root/graphs/README.md), written to OUT_DIR as NAME_VERSION_all.deb (the epoch left out, as dpkg
# names files). @TESTKEY@ in a File: line stands for KEY_FILE's content, @KERNEL@ anywhere for KERNEL.
set -euo pipefail
graph=$1 out=$2 key=$3 kernel=$4
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

build() { # the paragraph's fields are in the globals below
  local dir=$tmp/$name spec path content
  [[ -n $name && -n $version ]] || return 0
  rm -rf "$dir"
  mkdir -p "$dir/DEBIAN"
  {
    echo "Package: $name"
    echo "Version: $version"
    echo "Architecture: all"
    echo "Maintainer: gpudoctor tests <tests@gpudoctor.invalid>"
    [[ -n $predepends ]] && echo "Pre-Depends: $predepends"
    [[ -n $depends ]] && echo "Depends: $depends"
    [[ -n $provides ]] && echo "Provides: $provides"
    echo "Description: dummy $name for gpudoctor's root tests"
  } >"$dir/DEBIAN/control"
  if ((${#files[@]} == 0)); then files=("/usr/share/doc/$name/README dummy"); fi
  for spec in "${files[@]}"; do
    path=${spec%% *}
    content=${spec#* }
    mkdir -p "$dir$(dirname "$path")"
    if [[ $content == @TESTKEY@ ]]; then
      cp "$key" "$dir$path"
    else
      printf '%b\n' "$content" >"$dir$path"
    fi
  done
  # Files below /etc are configuration files, as in real packages (dpkg keeps them on remove, drops on purge).
  (cd "$dir" && find etc -type f 2>/dev/null | sed 's|^|/|' >DEBIAN/conffiles) || true
  [[ -s $dir/DEBIAN/conffiles ]] || rm -f "$dir/DEBIAN/conffiles"
  dpkg-deb --root-owner-group -Zgzip -z1 --build "$dir" "$out/${name}_${version#*:}_all.deb" >/dev/null
}

name='' version='' depends='' predepends='' provides=''
files=()
while IFS= read -r line || [[ -n $line ]]; do
  line=${line//@KERNEL@/$kernel}
  case $line in
  '#'*) continue ;;
  '')
    # dpkg-deb spends its time waiting on fsync: a few packages at a time.
    while (($(jobs -rp | wc -l) >= 6)); do wait -n; done
    build &
    name='' version='' depends='' predepends='' provides=''
    files=()
    ;;
  'Package: '*) name=${line#Package: } ;;
  'Version: '*) version=${line#Version: } ;;
  'Depends: '*) depends=${line#Depends: } ;;
  'Pre-Depends: '*) predepends=${line#Pre-Depends: } ;;
  'Provides: '*) provides=${line#Provides: } ;;
  'File: '*) files+=("${line#File: }") ;;
  *)
    echo "make_debs.sh: $graph: cannot read: $line" >&2
    exit 1
    ;;
  esac
done <"$graph"
build
wait
