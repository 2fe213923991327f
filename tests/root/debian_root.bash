# Shared by the package tests in tests/root (deb_package.sh, ansible_chroot.sh): the gpudoctor package of this
# checkout, and throwaway Debian 12 or 13 roots made from the debootstrap tarballs of debian_base.bash (which
# lib.bash, the other root tests, shares).
# shellcheck shell=bash
# Needs: common.bash sourced, $gpudoctor, $source_dir, $work.
# shellcheck disable=SC2154 # gpudoctor, source_dir and work come from common.bash

[[ $(id -u) -eq 0 ]] || skip "needs root (chroot, dpkg and apt inside the root)"
for tool in debootstrap chroot dpkg-deb tar flock cpack dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || skip "$tool is missing (./install.sh --test installs debootstrap, cmake, dpkg-dev)"
done
# The package is built without sanitizers whatever this build is: the sanitizer run would test it again.
if sanitizer_build; then
  skip "a sanitizer build: the package (built without sanitizers) is tested by the plain build's run"
fi

cache=${XDG_CACHE_HOME:-$HOME/.cache}/gpudoctor-test
mkdir -p "$cache/apt-archives"
# The Debian release of the roots new_root makes: bookworm (Debian 12), or trixie (Debian 13) where a test
# sets it; the minimal roots are debian_base.bash's, shared with lib.bash.
root_suite=bookworm
# shellcheck source=tests/root/debian_base.bash
source "$(dirname "${BASH_SOURCE[0]}")/debian_base.bash"

in_root() { chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive "${@:2}"; }

# apt-get in the root, with the .debs of earlier runs offered first (fewer downloads), the new ones kept, and
# the package lists refreshed once when they are too old for the archive (a superseded version is gone).
root_apt() {
  local root=$1
  shift
  cp -n "$cache"/apt-archives/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  if ! in_root "$root" apt-get -q -y "$@" >"$work/apt.log" 2>&1; then
    in_root "$root" apt-get -q update >>"$work/apt.log" 2>&1 || { tail -n 5 "$work/apt.log" >&2; return 1; }
    in_root "$root" apt-get -q -y "$@" >>"$work/apt.log" 2>&1 || { tail -n 5 "$work/apt.log" >&2; return 1; }
  fi
  (
    flock 9
    cp -n "$root"/var/cache/apt/archives/*.deb "$cache/apt-archives/" 2>/dev/null || true
  ) 9>"$cache/apt-archives.lock"
}

# new_root DIR [PACKAGES...]: the minimal root unpacked in DIR, with PACKAGES installed from the Debian
# archive; a root with packages is cached as a tarball named by what it holds.
new_root() {
  local root=$1 minbase
  shift
  ensure_debian_base "$root_suite"
  minbase=$(debian_base_tarball "$root_suite")
  mkdir -p "$root"
  if (($# == 0)); then
    tar -C "$root" -xzf "$minbase"
    return 0
  fi
  local key tarball
  key=$( (stat -c '%s %Y' "$minbase"; echo "$*") | sha256sum | cut -c1-16)
  tarball=$cache/debian-$root_suite-minbase+$(tr ' ' '+' <<<"$*")-$key.tar.gz
  if [[ ! -s $tarball ]]; then
    (
      flock 9
      [[ -s $tarball ]] && exit 0
      local stage=$work/stage-$key
      mkdir -p "$stage" && tar -C "$stage" -xzf "$minbase"
      root_apt "$stage" install --no-install-recommends "$@" || exit 1
      in_root "$stage" apt-get clean
      tar -C "$stage" -czf "$tarball.$$.tmp" . && mv "$tarball.$$.tmp" "$tarball"
      rm -rf "$stage"
    ) 9>"$tarball.lock" || skip "could not install $* into the Debian root (no network to the Debian archive?)"
  fi
  tar -C "$root" -xzf "$tarball"
}

# The package builds (./install.sh --deb, --portable, --rpm) take one lock, so that they run one after the
# other, and build in folders at the same depth below this build (deb-package/build, portable-package/build)
# with ccache's base folder at the checkout: their compile commands are then the same, and the second build
# takes the first one's objects from ccache instead of compiling them again.
package_lock=$(dirname "$gpudoctor")/package-build.lock
package_build() { # package_build --deb|--portable|--rpm BUILD_DIR
  CCACHE_BASEDIR=$source_dir "$source_dir/install.sh" "$1" --no-deps --build-dir "$2"
}

# The .deb of this checkout, built once per build folder by ./install.sh --deb (tests share it under a lock);
# GPUDOCTOR_TEST_DEB names one built already (./install.sh --deb), to test it without building it again.
package_deb() {
  if [[ -n ${GPUDOCTOR_TEST_DEB:-} ]]; then
    echo "$GPUDOCTOR_TEST_DEB"
    return 0
  fi
  local dir
  dir=$(dirname "$gpudoctor")/deb-package
  mkdir -p "$dir" "$work/deb"
  # Built and copied out under the lock: another root test running at the same time rebuilds the same
  # folder, and its build removes the .deb this one would still read.
  (
    flock 9
    package_build --deb "$dir/build" >"$dir/build.log" 2>&1 && cp "$dir"/build/gpudoctor_*_*.deb "$work/deb/"
  ) 9>"$package_lock" || { tail -n 20 "$dir/build.log" >&2; fail "./install.sh --deb failed ($dir/build.log)"; }
  ls "$work"/deb/gpudoctor_*_*.deb
}
