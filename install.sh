#!/usr/bin/env bash
# Builds and installs gpudoctor from this checkout, or builds it with its tests and runs them.
#
#   ./install.sh                 install the build dependencies (apt), build Release, install, run `gpudoctor check`
#   ./install.sh --test          install the build and test dependencies, build with tests, run the whole suite
#   ./install.sh --deb           build the Debian package gpudoctor_<version>_<arch>.deb (docs/packaging.md)
#   ./install.sh --portable      build gpudoctor-<version>-linux-x86_64.tar.gz, for any glibc >= 2.34 (docs/packaging.md)
#   ./install.sh --rpm           build the RPM gpudoctor-<version>-1.x86_64.rpm from the portable binary
#
# Options: --prefix DIR (default /usr/local), --no-deps (skip the package install), --sanitize (with --test:
# AddressSanitizer and UndefinedBehaviorSanitizer build), --build-dir DIR, --jobs N.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prefix=/usr/local
mode=install
deps=1
sanitize=0
build_dir=
jobs=$(nproc 2>/dev/null || echo 2)

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }
while (($#)); do
  case $1 in
    --test) mode="test" ;;
    --deb) mode="deb" ;;
    --portable) mode="portable" ;;
    --rpm) mode="rpm" ;;
    --prefix) prefix=${2:?--prefix needs a folder}; shift ;;
    --prefix=*) prefix=${1#*=} ;;
    --no-deps) deps=0 ;;
    --sanitize) sanitize=1 ;;
    --build-dir) build_dir=${2:?--build-dir needs a folder}; shift ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

# help2man: the man page (gpudoctor(1), installed with the binary).
build_packages=(build-essential cmake ninja-build pkg-config ccache help2man
  libyaml-cpp-dev libcli11-dev libcurl4-openssl-dev nlohmann-json3-dev libfmt-dev libarchive-dev zlib1g-dev)
# Tests also meet real tools: Debian's ROCm 5.2 (hipcc, rocminfo, rocm-smi) and a CPU PyTorch.
# debootstrap, apt-utils (apt-ftparchive) and gnupg make the throwaway Debian root of tests/root/fix_debootstrap.sh;
# openssl makes the certificate of the local HTTPS server (test_http, e2e/bundle_upload.sh).
# The fleet integrations' tests (docs/fleet.md) start these for real: promtool and node_exporter, slurmctld and
# slurmd with munge, ansible-playbook over a chroot connection; systemd for `systemd-analyze verify`; the
# package build's tools (help2man, dpkg-shlibdeps, file). dnf, rpm (rpm, rpmbuild) and createrepo-c (createrepo_c,
# modifyrepo_c) install the RPM root of tests/root/rhel_installroot.sh from dummy RPM repositories; dnf-plugins-core
# has dnf's versionlock plugin, whose locks a purge removes and undo puts back there.
# python3-yaml: tests/security/redaction_harness.sh reads checks/knowledge/secrets.yaml to plant its rows.
test_packages=(doctest-dev python3 python3-yaml shellcheck debootstrap apt-utils gnupg openssl
  prometheus prometheus-node-exporter slurm-wlm munge ansible systemd help2man dpkg-dev file dnf dnf-plugins-core rpm
  createrepo-c)
# `cpack -G DEB`: the man page (help2man) and Depends (dpkg-shlibdeps, which CPack finds ELF files for with file).
deb_packages=(help2man dpkg-dev file)
# The portable build and the RPM: binutils (readelf, objdump) checks the binary, rpm's rpmbuild makes the RPM.
portable_packages=(help2man binutils file rpm)
# chromium, tesseract-ocr and poppler-utils: the HTML pages loaded, read from a screenshot and printed
# (tests/e2e/html_pages.sh); lintian: the package judged (tests/root/deb_package.sh).
test_optional_packages=(hipcc rocminfo rocm-smi python3-torch chromium tesseract-ocr poppler-utils lintian)

os_id=unknown os_like="" os_version=""
if [[ -r /etc/os-release ]]; then
  # shellcheck disable=SC1091
  . /etc/os-release
  os_id=${ID:-unknown} os_like=${ID_LIKE:-} os_version=${VERSION_ID:-}
fi

sudo_cmd=()
if (($(id -u) != 0)); then
  command -v sudo >/dev/null || die "not root and sudo is missing: run as root or install sudo"
  sudo_cmd=(sudo)
fi

cxx_packages=()
export CXX=${CXX:-}
# C++23 std::expected needs libstdc++ 12: Ubuntu 22.04's default g++ 11 lacks it.
if [[ $os_id == ubuntu && $os_version == 22.04 && -z $CXX ]]; then
  cxx_packages=(g++-12)
  CXX=g++-12
fi

# A fresh machine may still be running unattended-upgrades: wait for dpkg's lock instead of failing.
apt_get() { "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 "$@"; }

# finish_interrupted_dpkg, which waits for a running package manager first.
# shellcheck source=contrib/install/dpkg_wait.bash
source "$here/contrib/install/dpkg_wait.bash"

install_deps() {
  case " $os_id $os_like " in
    *" debian "*|*" ubuntu "*) ;;
    *)
      echo "install.sh: $os_id is not Debian or Ubuntu; install these (or your distribution's equivalents) by hand," >&2
      echo "then run ./install.sh --no-deps:" >&2
      echo "  a C++23 compiler (g++ >= 12), CMake >= 3.22, Ninja, pkg-config," >&2
      echo "  yaml-cpp, CLI11, libcurl, nlohmann-json >= 3.10, fmt, libarchive; for --test also doctest and python3." >&2
      exit 1 ;;
  esac
  local wanted=("${build_packages[@]}" "${cxx_packages[@]}")
  [[ $mode == test ]] && wanted+=("${test_packages[@]}")
  [[ $mode == deb ]] && wanted+=("${deb_packages[@]}")
  [[ $mode == portable || $mode == rpm ]] && wanted+=("${portable_packages[@]}")
  say "Installing build dependencies with apt-get: ${wanted[*]}"
  export DEBIAN_FRONTEND=noninteractive
  finish_interrupted_dpkg
  apt_get update -qq
  # The services among the test packages (prometheus, node_exporter, munge, slurmctld, slurmd) must not start
  # on install: the tests start their own, on loopback. policy-rc.d tells invoke-rc.d so (unless the machine
  # already has one).
  local policy=/usr/sbin/policy-rc.d made_policy=0
  if [[ $mode == test && ! -e $policy ]]; then
    printf '#!/bin/sh\n# install.sh --test: no service starts while the test packages install\nexit 101\n' |
      "${sudo_cmd[@]}" tee "$policy" >/dev/null && "${sudo_cmd[@]}" chmod 0755 "$policy" && made_policy=1
  fi
  local rc=0
  apt_get install -y -qq --no-install-recommends "${wanted[@]}" || rc=$?
  if ((made_policy)); then "${sudo_cmd[@]}" rm -f "$policy"; fi
  ((rc == 0)) || die "apt-get install failed (exit $rc)"
  if [[ $mode == test ]]; then
    local available=()
    for pkg in "${test_optional_packages[@]}"; do
      if apt-cache show "$pkg" >/dev/null 2>&1; then available+=("$pkg"); else echo "  ($pkg is not packaged here: its tests will skip)"; fi
    done
    if ((${#available[@]})); then
      say "Installing the real tools the end-to-end tests meet: ${available[*]}"
      apt_get install -y -qq "${available[@]}"
    fi
  fi
}

((deps)) && install_deps

cmake_args=(-G Ninja)
[[ -n $CXX ]] && cmake_args+=(-DCMAKE_CXX_COMPILER="$CXX")
# A unity build (16 .cpp files to a compiler run) parses the heavy headers once a batch, not once a file
# (bench/build_time.sh times both). Both of CI's builds are unity builds since 2026-12-06 (the sanitizer
# build's cold compile: 404 s against 12 min file by file); a developer's `cmake -B build` compiles each file
# alone and so still fails a file that compiles only beside another (docs/architecture.md, "Unity builds").
# The sanitizer build makes no real probe programs: they are built without sanitizers in either build, and
# the plain pass runs them (the sanitizer pass runs gpudoctor over the probe stand-ins, tests/probe_mock).
cmake_args+=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16)
if ((sanitize)); then cmake_args+=(-DGPUDOCTOR_BUILD_PROBES=OFF); fi

if [[ $mode == install ]]; then
  build_dir=${build_dir:-$here/build-release}
  say "Building gpudoctor (Release) in $build_dir"
  cmake -S "$here" -B "$build_dir" "${cmake_args[@]}" -DCMAKE_BUILD_TYPE=Release -DGPUDOCTOR_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build_dir" -j "$jobs"
  say "Installing to $prefix"
  if [[ -w $prefix || ! -e $prefix && -w $(dirname "$prefix") ]]; then
    cmake --install "$build_dir" --prefix "$prefix"
  else
    "${sudo_cmd[@]}" cmake --install "$build_dir" --prefix "$prefix"
  fi
  say "Running $prefix/bin/gpudoctor check"
  status=0
  "$prefix/bin/gpudoctor" check || status=$?
  case $status in
    0) ;;
    1) echo "(gpudoctor found problems on this machine: see above; exit status 1)" ;;
    *) die "gpudoctor check failed with exit status $status" ;;
  esac
  exit 0
fi

if [[ $mode == deb ]]; then
  # Release, hardened, yaml-cpp and fmt inside the binary, no probe programs (they link the vendors' runtimes: the package
  # ships their sources, compiled at run time where nvcc or hipcc is), installed below /usr.
  build_dir=${build_dir:-$here/build-deb}
  say "Building the Debian package in $build_dir"
  cmake -S "$here" -B "$build_dir" "${cmake_args[@]}" -DCMAKE_BUILD_TYPE=Release -DGPUDOCTOR_BUILD_TESTS=OFF \
    -DGPUDOCTOR_BUILD_PROBES=OFF -DGPUDOCTOR_STATIC_DEPS=ON -DGPUDOCTOR_HARDENING=ON -DGPUDOCTOR_REQUIRE_MAN_PAGE=ON -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
  cmake --build "$build_dir" -j "$jobs"
  (cd "$build_dir" && rm -f gpudoctor_*.deb && cpack -G DEB >/dev/null) || die "cpack -G DEB failed"
  deb=$(ls "$build_dir"/gpudoctor_*.deb)
  say "Built $deb"
  dpkg-deb --field "$deb" Package Version Architecture Depends
  exit 0
fi

if [[ $mode == portable || $mode == rpm ]]; then
  # One binary for every distribution with glibc >= 2.34: libstdc++, zlib, yaml-cpp and fmt linked in
  # (GPUDOCTOR_PORTABLE), no probe programs (their sources are in it). The RPM is made from the same binary.
  build_dir=${build_dir:-$here/build-portable}
  say "Building the portable binary in $build_dir"
  cmake -S "$here" -B "$build_dir" "${cmake_args[@]}" -DCMAKE_BUILD_TYPE=Release -DGPUDOCTOR_BUILD_TESTS=OFF \
    -DGPUDOCTOR_BUILD_PROBES=OFF -DGPUDOCTOR_PORTABLE=ON -DGPUDOCTOR_REQUIRE_MAN_PAGE=ON -DCMAKE_INSTALL_PREFIX=/usr >/dev/null
  cmake --build "$build_dir" -j "$jobs"
  # What makes it portable, checked before it is packed: the libraries it needs and the newest glibc symbol.
  "$here/contrib/packaging/check_portable.sh" "$build_dir/gpudoctor" || die "the binary is not portable (above)"
  generator=TGZ pattern='gpudoctor-*-linux-*.tar.gz'
  [[ $mode == rpm ]] && generator=RPM pattern='gpudoctor-*.rpm'
  (cd "$build_dir" && rm -f $pattern && cpack -G "$generator" >/dev/null) || die "cpack -G $generator failed"
  artefact=$(ls "$build_dir"/$pattern)
  # One SHA256SUMS beside the artefacts (`sha256sum -c SHA256SUMS` where they are received).
  (cd "$build_dir" && shopt -s nullglob && sha256sum -- gpudoctor-*-linux-*.tar.gz gpudoctor-*.rpm >SHA256SUMS)
  say "Built $artefact (its sha256 in $build_dir/SHA256SUMS)"
  exit 0
fi

# --test
if ((sanitize)); then
  build_dir=${build_dir:-$here/build-asan}
  cmake_args+=(-DCMAKE_BUILD_TYPE=Debug -DENABLE_SANITIZERS=ON)
else
  build_dir=${build_dir:-$here/build-test}
  cmake_args+=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
fi
# Warnings fail the sanitizer build of a checkout or CI (-O0: the warnings the code owns); optimised builds
# only report them, since -O2 diagnostics vary between compiler releases.
werror=OFF
[[ (-n ${CI:-} || -d $here/.git) && $sanitize == 1 ]] && werror=ON
say "Building gpudoctor with its tests in $build_dir (warnings as errors: $werror)"
cmake -S "$here" -B "$build_dir" "${cmake_args[@]}" -DGPUDOCTOR_BUILD_TESTS=ON -DGPUDOCTOR_WARNINGS_AS_ERRORS=$werror >/dev/null
cmake --build "$build_dir" -j "$jobs"
say "Running the test suite"
cd "$build_dir"
# The root tests (label root: real Debian roots, minutes), the sweeps (label sweep: gpudoctor run hundreds of
# times over one generated corpus) and the suites of output words and formats (label once) run once per CI
# run, in the plain build (tests/CMakeLists.txt).
if ((sanitize)); then ctest --output-on-failure -j "$jobs" -LE 'root|sweep|once'; else ctest --output-on-failure -j "$jobs"; fi
