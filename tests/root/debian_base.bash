# The minimal Debian roots every root test starts from: debootstrap --variant=minbase of a Debian SUITE
# (bookworm, or trixie for Debian 13), with python3-venv and kmod (modinfo and depmod read the dummy drivers'
# modules as a real system's), made once and cached as debian-SUITE-minbase-py-kmod.tar.gz under one lock
# per suite. Sourced by lib.bash (the remediation tests) and debian_root.bash (the package tests), which
# share the tarballs.
# shellcheck shell=bash
# Needs: $cache, $work, skip (common.bash).
# shellcheck disable=SC2154 # cache and work come from the sourcing file

debian_mirror_url=${GPUDOCTOR_DEBIAN_MIRROR:-http://deb.debian.org/debian}
debian_base_tarball() { echo "$cache/debian-$1-minbase-py-kmod.tar.gz"; }

ensure_debian_base() { # SUITE
  local suite=$1 tarball lock=$cache/minbase.lock start
  tarball=$(debian_base_tarball "$suite")
  [[ $suite == bookworm ]] || lock=$cache/minbase-$suite.lock
  [[ -s $tarball ]] && return 0
  (
    flock 9
    [[ -s $tarball ]] && exit 0
    echo "making the Debian $suite root with debootstrap (once; cached as $tarball)"
    start=$SECONDS
    if ! debootstrap --variant=minbase --include=python3-venv,kmod "$suite" "$work/bootstrap" "$debian_mirror_url" \
      >"$work/debootstrap.log" 2>&1; then
      tail -n 5 "$work/debootstrap.log" >&2
      exit 125
    fi
    rm -rf "$work/bootstrap/var/cache/apt/archives/"*.deb "$work/bootstrap/var/lib/apt/lists/"*_*
    # Its own temporary name: another root test may be making it too.
    tar -C "$work/bootstrap" -czf "$tarball.$$.tmp" . && mv "$tarball.$$.tmp" "$tarball"
    rm -rf "$work/bootstrap"
    echo "debootstrap took $((SECONDS - start)) s"
  ) 9>"$lock" || skip "debootstrap $suite from $debian_mirror_url failed (no network to the Debian archive?)"
}
