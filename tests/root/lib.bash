# Shared by the root tests (tests/root/*.sh): real Debian 12 roots made with debootstrap, machines built in
# them from the package graphs of tests/root/graphs by apt itself, the vendors' repositories served by a
# local proxy, and helpers to look at a root afterwards. Everything slow is cached under
# ${XDG_CACHE_HOME:-~/.cache}/gpudoctor-test, keyed by a hash of what made it:
#   debian-bookworm-minbase-py-kmod.tar.gz  debootstrap --variant=minbase (+ python3-venv, kmod), made once
#   debian-trixie-minbase-py-kmod.tar.gz    the same of Debian 13, for the machines of Debian's own stacks
#   debian-trixie-real-<hash>/        Debian 13's real packages of those stacks, downloaded once, with an index
#   mirror-<hash>.tar.gz              the signed repositories and wheel indexes built from graphs/
#   machine-<name>-<hash>.tar.zst     a machine (ROCm 6, CUDA 12) installed into the base root
# The roots are not given /proc (the scripts must not need it), except where a test mounts it on purpose.
# shellcheck shell=bash
# shellcheck source=tests/e2e/common.bash
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/common.bash"

[[ $(id -u) -eq 0 ]] || skip "needs root (debootstrap, chroot, dpkg inside the root)"
for tool in debootstrap chroot dpkg-deb apt-ftparchive gpg setsid flock zstd; do
  command -v "$tool" >/dev/null || skip "$tool is missing (apt-get install debootstrap apt-utils gnupg zstd)"
done
host_python=$(command -v /usr/bin/python3 || command -v python3 || true)
[[ -n $host_python ]] || skip "no python3 for the tests' proxy and wheels"

root_dir=$source_dir/tests/root
cache=${XDG_CACHE_HOME:-$HOME/.cache}/gpudoctor-test
mkdir -p "$cache"
kernel=$(uname -r)
# A kernel newer than the running one (the kernel that boots next once its linux-image is in a root).
next_kernel=99.0.0-1-gpudoctor-test
proxy_pid=
# The dummy packages' signing key; the mirror build exports it here.
test_key_dir=$work/key

# Unmounts what a test mounted below $work (tmpfs, /proc), stops the proxy and what the test started.
root_cleanup() {
  local mnt
  if [[ -n $proxy_pid ]]; then kill "$proxy_pid" 2>/dev/null || true; fi
  for pid in ${root_bg_pids:-}; do kill -KILL "$pid" 2>/dev/null || true; done
  while read -r _ mnt _; do
    if [[ $mnt == "$work"/t && -n ${GPUDOCTOR_KEEP_WORK:-} ]]; then continue; fi
    if [[ $mnt == "$work"/* ]]; then umount -l "$mnt" 2>/dev/null || true; fi
  done < <(sort -r -k2 /proc/mounts)
  # GPUDOCTOR_KEEP_WORK=1 keeps the roots to look at after a failure.
  if [[ -n ${GPUDOCTOR_KEEP_WORK:-} ]]; then echo "kept $work" >&2; else rm -rf "$work"; fi
}
trap root_cleanup EXIT
root_bg_pids=

# Runs a command inside ROOT with a clean environment (and GPUDOCTOR_BOOT_ID when the test set one).
in_root() {
  chroot "$1" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    LANG=C.UTF-8 ${GPUDOCTOR_BOOT_ID:+GPUDOCTOR_BOOT_ID=$GPUDOCTOR_BOOT_ID} "${@:2}"
}
# shellcheck disable=SC2016 # dpkg-query's format, not bash's
installed_version() { in_root "$1" dpkg-query -W -f='${db:Status-Abbrev} ${Version}' "$2" 2>/dev/null || true; }
is_installed() { [[ $(installed_version "$1" "$2") == ii* || $(installed_version "$1" "$2") == hi* ]]; }
# Names of the installed packages of ROOT, one a line.
# shellcheck disable=SC2016
installed_names() { in_root "$1" dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 ~ /^[ih]i/ {print $2}' | sort; }
digest() { if [[ -e $1 ]]; then sha256sum <"$1" | cut -c1-64; else echo absent; fi; }

# Every path below the root with its type, mode, owner, size, link target and content hash (not the times),
# leaving out the scripts a test put there and the journal (which a run appends to).
tree_state() {
  (
    cd "$1" || exit 1
    local skip=(\( -path ./tmp/gd -o -path ./var/log/gpudoctor -o -path ./proc \) -prune -o)
    find . "${skip[@]}" -printf '%y %m %U:%G %s %l %p\n' | sort
    find . "${skip[@]}" -type f -print0 | sort -z | xargs -0 sha256sum
  )
}

# ---- the cached Debian roots (debian_base.bash) ----------------------------------------------------------
# shellcheck source=tests/root/debian_base.bash
source "$root_dir/debian_base.bash"

# ensure_real_archive SUITE PACKAGE...: a repository of Debian SUITE's own builds of PACKAGEs and of what they
# need beyond the minimal root (no recommends), downloaded once from Debian's archive (every component) by
# apt itself and cached as $cache/debian-SUITE-real-<hash>/: pool-SUITE/COMPONENT/*.deb and
# dists/SUITE, an index of just those packages signed with a key of its own (key.gpg). Sets real_archive.
# The packages are Debian's, byte for byte; only the index is ours (the test roots cannot reach the archive).
ensure_real_archive() {
  local suite=$1 hash start=$SECONDS
  shift
  ensure_debian_base "$suite"
  hash=$( (echo "$suite $*" && declare -f ensure_real_archive build_real_archive) | sha256sum | cut -c1-16)
  real_archive=$cache/debian-$suite-real-$hash
  if [[ ! -s $real_archive/key.gpg ]]; then
    (
      flock 9
      [[ -s $real_archive/key.gpg ]] && exit 0
      build_real_archive "$suite" "$@" >"$work/real-archive.log" 2>&1 || { tail -n 5 "$work/real-archive.log" >&2; exit 1; }
      forget_unused "debian-$suite-real-*"
      echo "downloaded Debian $suite's $* in $((SECONDS - start)) s ($(du -sm "$real_archive" | cut -f1) MiB)" >&2
    ) 9>"$cache/real-$suite.lock" || skip "could not download $* from Debian $suite (no network to the Debian archive?)"
  fi
  touch "$real_archive" # in use: forget_unused keeps it
}

build_real_archive() {
  local suite=$1 stage=$work/real-stage deb section component
  shift
  rm -rf "$stage" && mkdir -p "$stage/root" "$stage/archive"
  tar -C "$stage/root" -xzf "$(debian_base_tarball "$suite")"
  echo "deb $debian_mirror_url $suite main contrib non-free non-free-firmware" >"$stage/root/etc/apt/sources.list"
  cp /etc/resolv.conf "$stage/root/etc/resolv.conf"
  in_root "$stage/root" apt-get update -q || return 1
  in_root "$stage/root" apt-get install -q -y --download-only --no-install-recommends "$@" || return 1
  for deb in "$stage/root/var/cache/apt/archives/"*.deb; do
    section=$(dpkg-deb -f "$deb" Section)
    component=main
    [[ $section == */* ]] && component=${section%%/*}
    mkdir -p "$stage/archive/pool-$suite/$component"
    mv "$deb" "$stage/archive/pool-$suite/$component/"
  done
  (
    local key_gpg=(gpg --homedir "$stage/gnupg" --batch)
    mkdir -m 0700 "$stage/gnupg"
    "${key_gpg[@]}" --quiet --passphrase '' --quick-gen-key 'gpudoctor test: Debian packages <repos@gpudoctor.invalid>' \
      rsa2048 sign never
    cd "$stage/archive" || exit 1
    for component in main contrib non-free non-free-firmware; do
      mkdir -p "pool-$suite/$component" "dists/$suite/$component/binary-amd64"
      apt-ftparchive packages "pool-$suite/$component" >"dists/$suite/$component/binary-amd64/Packages"
    done
    apt-ftparchive -o APT::FTPArchive::Release::Origin=Debian -o APT::FTPArchive::Release::Label=Debian \
      -o "APT::FTPArchive::Release::Suite=$suite" -o "APT::FTPArchive::Release::Codename=$suite" \
      -o APT::FTPArchive::Release::Architectures=amd64 -o "APT::FTPArchive::Release::Components=main contrib non-free non-free-firmware" \
      release "dists/$suite" >"$stage/Release"
    mv "$stage/Release" "dists/$suite/Release"
    "${key_gpg[@]}" --yes --clearsign -o "dists/$suite/InRelease" "dists/$suite/Release"
    "${key_gpg[@]}" --export >key.gpg.tmp
  ) || return 1
  rm -rf "$real_archive"
  mv "$stage/archive" "$real_archive" && mv "$real_archive/key.gpg.tmp" "$real_archive/key.gpg"
  rm -rf "$stage"
}

# serve_real_archive: the real archive (ensure_real_archive) served as deb.debian.org/debian SUITE beside the
# dummy bookworm suite.
serve_real_archive() {
  cp -r "$real_archive"/pool-* "$real_archive"/dists "$mirror/debian/"
}

# ---- the vendors' repositories, built from the graphs ------------------------------------------------------
# mirror/ holds every repository at its path on the vendor's host: rocm/apt/<release>, amdgpu/<line>/ubuntu,
# graphics/<release>/ubuntu, compute/cuda/repos/debian12/x86_64, libnvidia-container/stable/deb/amd64, the
# distribution's debian/, the signing keys, and PyTorch's wheel indexes whl/<tag>.
mirror=$work/mirror

# apt_repo DIR SUITES ORIGIN LABEL GRAPH...: a pool/dists repository (SUITES: one or more suites, the same
# packages in each) or a flat one (SUITES "/").
apt_repo() {
  local dir=$1 suites=$2 origin=$3 label=$4 graph suite
  shift 4
  mkdir -p "$dir"
  for graph in "$@"; do
    [[ $graph == /* ]] || graph=$root_dir/graphs/$graph
    "$root_dir/tools/make_debs.sh" "$graph" "$dir/pool" "$test_key_dir/key.gpg" "$kernel" "$next_kernel"
  done
  (
    cd "$dir" || exit 1
    local rel=(-o "APT::FTPArchive::Release::Origin=$origin" -o "APT::FTPArchive::Release::Label=$label")
    if [[ $suites == / ]]; then
      mv pool/*.deb . && rmdir pool
      apt-ftparchive packages . >Packages
      apt-ftparchive "${rel[@]}" release . >Release
      gpg --batch --yes --clearsign -o InRelease Release
      exit 0
    fi
    for suite in $suites; do
      mkdir -p "dists/$suite/main/binary-amd64"
      apt-ftparchive packages pool >"dists/$suite/main/binary-amd64/Packages"
      gzip -k "dists/$suite/main/binary-amd64/Packages"
      apt-ftparchive "${rel[@]}" -o "APT::FTPArchive::Release::Suite=$suite" \
        -o "APT::FTPArchive::Release::Codename=$suite" -o APT::FTPArchive::Release::Architectures=amd64 \
        -o APT::FTPArchive::Release::Components=main release "dists/$suite" >"$work/Release"
      mv "$work/Release" "dists/$suite/Release"
      gpg --batch --yes --clearsign -o "dists/$suite/InRelease" "dists/$suite/Release"
    done
  )
}

build_mirror() {
  export GNUPGHOME=$work/gnupg
  mkdir -p "$test_key_dir"
  mkdir -m 0700 "$GNUPGHOME"
  gpg --batch --quiet --passphrase '' --quick-gen-key 'gpudoctor test repositories <repos@gpudoctor.invalid>' \
    rsa2048 sign never
  gpg --batch --export >"$test_key_dir/key.gpg"
  gpg --batch --armor --export >"$test_key_dir/key.asc"
  apt_repo "$mirror/debian" bookworm Debian Debian debian-12.txt
  apt_repo "$mirror/rocm/apt/6.2.4" jammy repo.radeon.com "ROCm 6.2.4" rocm-6.2.4.txt
  apt_repo "$mirror/rocm/apt/6.1" jammy repo.radeon.com "ROCm 6.1" rocm-6.1.0-versioned.txt
  apt_repo "$mirror/amdgpu/6.2.4/ubuntu" jammy repo.radeon.com amdgpu amdgpu-6.2.4.txt
  apt_repo "$mirror/rocm/apt/7.2" "jammy noble" repo.radeon.com "ROCm 7.2" rocm-7.2.txt
  apt_repo "$mirror/amdgpu/30.30/ubuntu" "jammy noble" repo.radeon.com amdgpu amdgpu-30.30.txt
  apt_repo "$mirror/graphics/7.2/ubuntu" "jammy noble" repo.radeon.com graphics graphics-7.2.txt
  apt_repo "$mirror/compute/cuda/repos/debian12/x86_64" / "NVIDIA" "NVIDIA CUDA" cuda-debian12.txt
  # Debian 13's and Ubuntu 24.04's folders: the same packages, with the cuda-keyring that names the folder.
  local folder
  for folder in debian13 ubuntu2404; do
    sed "s/debian12/$folder/g" "$root_dir/graphs/cuda-debian12.txt" >"$work/cuda-$folder.txt"
    apt_repo "$mirror/compute/cuda/repos/$folder/x86_64" / "NVIDIA" "NVIDIA CUDA" "$work/cuda-$folder.txt"
    cp "$test_key_dir/key.asc" "$mirror/compute/cuda/repos/$folder/x86_64/3bf863cc.pub"
  done
  # Ubuntu 24.04's archive, for the Ubuntu-shaped root (distribution_ubuntu.sh).
  apt_repo "$mirror/ubuntu" noble Ubuntu Ubuntu ubuntu-2404-nvidia.txt
  apt_repo "$mirror/libnvidia-container/stable/deb/amd64" / "https://nvidia.github.io/libnvidia-container/stable/deb/amd64" "nvidia-container-toolkit" nvidia-container.txt
  cp "$test_key_dir/key.asc" "$mirror/compute/cuda/repos/debian12/x86_64/3bf863cc.pub"
  cp "$test_key_dir/key.asc" "$mirror/rocm/rocm.gpg.key"
  cp "$test_key_dir/key.asc" "$mirror/libnvidia-container/gpgkey"
  "$host_python" "$root_dir/tools/make_wheels.py" "$root_dir/graphs/wheels.txt" "$mirror/whl"
  mkdir -p "$mirror/keys" && cp "$test_key_dir"/key.* "$mirror/keys/"
}

# forget_unused PATTERN: the cached tarballs of PATTERN no test has used for a day. Not every other one: two
# checkouts with other graphs (a branch, a worktree) each need their own, and would rebuild them in turn.
forget_unused() {
  find "$cache" -maxdepth 1 -name "$1" -mmin +1440 -exec rm -rf {} +
}

ensure_mirror() {
  mirror_hash=$( (cat "$root_dir"/graphs/*.txt "$root_dir/tools/make_debs.sh" "$root_dir/tools/make_wheels.py" \
    "$root_dir"/tools/fake_dkms*.sh && echo "$next_kernel" &&
    declare -f apt_repo build_mirror) | sha256sum | cut -c1-16)
  mirror_tarball=$cache/mirror-$mirror_hash.tar.gz
  if [[ ! -s $mirror_tarball ]]; then
    (
      flock 9
      if [[ ! -s $mirror_tarball ]]; then
        local start=$SECONDS
        build_mirror
        tar -C "$(dirname "$mirror")" -czf "$mirror_tarball.tmp" mirror && mv "$mirror_tarball.tmp" "$mirror_tarball"
        forget_unused "mirror-*.tar.gz"
        rm -rf "$mirror"
        echo "built the test repositories from tests/root/graphs in $((SECONDS - start)) s"
      fi
    ) 9>"$cache/lock"
  fi
  touch "$mirror_tarball" # in use: forget_unused keeps it
  tar -C "$(dirname "$mirror")" -xzf "$mirror_tarball"
  mkdir -p "$test_key_dir" && cp "$mirror"/keys/key.* "$test_key_dir/"
}

# The proxy that plays the vendors' hosts (tools/vendor_proxy.py); its port in $proxy_port.
start_proxy() {
  "$host_python" "$root_dir/tools/vendor_proxy.py" "$mirror" "$work/proxy.port" 1800 &
  proxy_pid=$!
  for _ in $(seq 100); do [[ -s $work/proxy.port ]] && break; sleep 0.05; done
  [[ -s $work/proxy.port ]] || fail "the vendors' proxy did not start"
  proxy_port=$(cat "$work/proxy.port")
}

# ---- machines -----------------------------------------------------------------------------------------------
# apt inside a test root: through the proxy, no retries, and dpkg without fsync (a throwaway root).
wire_root() {
  printf 'Acquire::http::Proxy "http://127.0.0.1:%s/";\nAcquire::Retries "0";\nDPkg::Options:: "--force-unsafe-io";\n' \
    "$proxy_port" >"$1/etc/apt/apt.conf.d/00gpudoctor-test-proxy"
}

# A fresh copy of the base root of SUITE (bookworm) at DIR, wired to the proxy, trusting the test key, with
# the user sam.
new_base_root() { # DIR [SUITE]
  local root=$1
  mkdir -p "$root"
  tar -C "$root" -xzf "$(debian_base_tarball "${2:-bookworm}")"
  wire_root "$root"
  # The distribution's archive (our dummy debian/) is signed with the test key, not Debian's.
  cp "$test_key_dir/key.gpg" "$root/etc/apt/trusted.gpg.d/gpudoctor-test.gpg"
  in_root "$root" useradd -m -s /bin/bash sam
  mkdir -p "$root/tmp/gd"
}

# The mirror as the file:// mirror a migration is pointed at (--mirror file:///srv/mirror): hard links.
add_local_mirror() { mkdir -p "$1/srv" && cp -al "$mirror" "$1/srv/mirror"; }

# machine NAME: a root with NAME's stack installed (machine_NAME is the function that installs it), cached
# as a tarball; prints the tarball. The hash covers the mirror, this file and the function.
# A machine of another Debian release names it in machine_suites (NAME -> SUITE); the real archive's key,
# where there is one, is in the hash too: a machine trusts the key of the archive it was built from, and an
# archive made again (its cache entry forgotten) has a new one.
declare -A machine_suites=()
machine_tarball() {
  local name=$1 hash tarball suite=${machine_suites[$1]:-bookworm} archive_key=
  if [[ -n ${real_archive:-} ]]; then archive_key=$(sha256sum <"$real_archive/key.gpg"); fi
  hash=$( (echo "$mirror_hash" "$(debian_base_tarball "$suite")" "$archive_key" &&
    declare -f "machine_$name" new_base_root in_root distribution_machine && cat "$root_dir"/tools/fake_dkms*.sh) | sha256sum | cut -c1-16)
  tarball=$cache/machine-$name-$hash.tar.zst
  if [[ ! -s $tarball ]]; then
    (
      flock 9
      if [[ ! -s $tarball ]]; then
        local dir=$work/machine-$name start=$SECONDS
        new_base_root "$dir" "$suite"
        "machine_$name" "$dir" >"$work/machine-$name.log" 2>&1 || {
          tail -n 30 "$work/machine-$name.log" >&2
          fail "could not build the $name machine"
        }
        rm -f "$dir/etc/apt/apt.conf.d/00gpudoctor-test-proxy"
        rm -rf "$dir/var/cache/apt/archives/"*.deb
        tar -C "$dir" --zstd -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
        forget_unused "machine-$name-*.tar.zst"
        rm -rf "$dir"
        echo "built the $name machine in $((SECONDS - start)) s (cached as $tarball)" >&2
      fi
    ) 9>"$cache/lock"
  fi
  touch "$tarball" # in use: forget_unused keeps it
  printf '%s' "$tarball"
}

# Debian 13's own stacks as the distribution tests install them: one archive for both (one download).
# shellcheck disable=SC2034 # read by distribution_rocm.sh, distribution_nvidia.sh and fault_matrix.sh
debian_stacks=(gcc rocminfo hipcc rocm-smi libucx0 nvidia-driver nvidia-smi libcuda1)

# distribution_machine ROOT PACKAGE...: the body of a Debian 13 machine running Debian's own builds of a stack,
# PACKAGEs from Debian's real packages (ensure_real_archive, served as deb.debian.org/debian trixie with every
# component). The dummy bookworm suite stays listed for what the vendors' dummy packages need (the kernels).
# Debian's dkms is diverted to the tests' fake one, as everywhere here (no kernel builds in a root); the fake
# makes module-shaped objects for a real DKMS package with Debian's gcc (which Debian's linux-headers bring on a
# real machine). The running kernel's image and headers come first: a DKMS postinst builds for that kernel.
distribution_machine() {
  local root=$1
  shift
  cp "$real_archive/key.gpg" "$root/etc/apt/trusted.gpg.d/gpudoctor-test-debian.gpg"
  echo "deb http://deb.debian.org/debian trixie main contrib non-free non-free-firmware" >"$root/etc/apt/sources.list"
  echo "deb http://deb.debian.org/debian bookworm main" >"$root/etc/apt/sources.list.d/gpudoctor-test-dummies.list"
  mkdir -p "$root/usr/lib/dkms"
  for file in /usr/sbin/dkms /usr/lib/dkms/common.postinst; do
    in_root "$root" dpkg-divert --local --rename --divert "$file.distrib" --add "$file"
  done
  install -m 0755 "$root_dir/tools/fake_dkms.sh" "$root/usr/sbin/dkms"
  install -m 0755 "$root_dir/tools/fake_dkms_postinst.sh" "$root/usr/lib/dkms/common.postinst"
  in_root "$root" apt-get update -q
  in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "linux-image-$kernel" "linux-headers-$kernel" gcc
  in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

# The Debian 13 machines of the distribution tests and the fault matrix (ensure_real_archive trixie
# "${debian_stacks[@]}" and serve_real_archive first): Debian's own NVIDIA driver, and Debian's own ROCm with
# OpenMPI's libucx0 needing its HIP runtime.
machine_suites[distro_nvidia]=trixie
machine_distro_nvidia() { distribution_machine "$1" nvidia-driver nvidia-smi libcuda1; }
machine_suites[distro_rocm]=trixie
machine_distro_rocm() { distribution_machine "$1" rocminfo hipcc rocm-smi libucx0; }
# shellcheck disable=SC2034 # read by the distribution tests and fault_matrix.sh
{
  # Debian's driver as apt installs it: every package of its, the GL, EGL and GLX ones whose names carry
  # nvidia inside too (before the stack's globs took "*nvidia*" as NVIDIA's guide does, libegl-nvidia0 and the
  # like stayed, holding on to the 550 libraries beside NVIDIA's 580).
  debian_nvidia_packages=(glx-alternative-nvidia libcuda1 libegl-nvidia0 libgl1-nvidia-glvnd-glx libglx-nvidia0
    libnvidia-eglcore libnvidia-glcore libnvidia-glvkspirv libnvidia-gpucomp libnvidia-ml1 libnvidia-pkcs11-openssl3
    libnvidia-ptxjitcompiler1 nvidia-alternative nvidia-driver nvidia-driver-bin nvidia-driver-libs nvidia-egl-common
    nvidia-egl-icd nvidia-kernel-common nvidia-kernel-dkms nvidia-kernel-support nvidia-legacy-check nvidia-modprobe
    nvidia-smi nvidia-support nvidia-vdpau-driver xserver-xorg-video-nvidia)
  # Debian's ROCm that a plan replaces, and the HIP runtime it keeps because OpenMPI's libucx0 needs it.
  debian_rocm_packages=(hipcc libamd-comgr-dev libamdhip64-dev libhiprtc-builtins5 libhsa-runtime-dev
    librocm-smi64-1 rocm-device-libs-17 rocm-smi rocminfo)
  debian_rocm_kept=(libamd-comgr2 libamdhip64-5 libhsa-runtime64-1 libhsakmt1)
}

# new_machine NAME DIR: a copy of the cached machine at DIR, wired to this run's proxy.
new_machine() {
  local tarball
  tarball=$(machine_tarball "$1")
  mkdir -p "$2"
  tar -C "$2" --zstd -xf "$tarball"
  wire_root "$2"
  mkdir -p "$2/tmp/gd"
}

# A ROCm 6.2.4 workstation installed the way AMD's native-install guide does it (knowledge.md 7.2): key and
# sources (ROCm 6.2.4, ROCm 6.1 for a second versioned release, amdgpu 6.2.4), the pin, amdgpu-dkms, the
# `rocm` meta package, AMD's graphics stack; the distribution's libucx0 (which needs the distribution's HIP
# runtime) and a desktop that needs Mesa; a user with ROCm in his profile, MIOpen caches and a venv with
# PyTorch for ROCm 6.1.
machine_rocm6() {
  local root=$1
  mkdir -p "$root/etc/apt/keyrings"
  cp "$test_key_dir/key.gpg" "$root/etc/apt/keyrings/rocm.gpg"
  {
    echo 'deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] http://repo.radeon.com/rocm/apt/6.2.4 jammy main'
    echo 'deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] http://repo.radeon.com/rocm/apt/6.1 jammy main'
  } >"$root/etc/apt/sources.list.d/rocm.list"
  echo 'deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] http://repo.radeon.com/amdgpu/6.2.4/ubuntu jammy main' \
    >"$root/etc/apt/sources.list.d/amdgpu.list"
  printf 'Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n' >"$root/etc/apt/preferences.d/rocm-pin-600"
  in_root "$root" apt-get update -q
  # The running kernel's image and headers first: amdgpu-dkms's postinst builds the module for it.
  in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "linux-image-$kernel" "linux-headers-$kernel"
  in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    amdgpu-install amdgpu-dkms rocm rocm-hip-sdk6.1.0 libgl1-amdgpu-mesa-dri libegl1-amdgpu-mesa \
    mesa-amdgpu-va-drivers mesa-amdgpu-vdpau-drivers xserver-xorg-amdgpu-video-amdgpu libdrm-amdgpu1 \
    xserver-xorg-video-amdgpu
  in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    gpu-desktop-canary libucx0
  in_root "$root" update-alternatives --quiet --install /opt/rocm rocm /opt/rocm-6.2.4 100
  printf 'leftover\n' >"$root/opt/rocm-6.2.4/lib/libleftover.so"
  # amdgpu-dkms's postinst built the module (the fake dkms: /var/lib/dkms/amdgpu/..., /lib/modules/.../updates/dkms);
  # a file no package owns is left in its source folder, as a build leaves objects.
  mkdir -p "$root/etc/OpenCL/vendors" "$root/etc/modprobe.d"
  printf 'built.o\n' >"$root/usr/src/amdgpu-6.8.5-2044426.22.04/amdgpu.o"
  printf '/opt/rocm/lib\n/opt/rocm/lib64\n' >"$root/etc/ld.so.conf.d/rocm.conf"
  printf 'options amdgpu ppfeaturemask=0xffffffff\n' >"$root/etc/modprobe.d/amdgpu.conf"
  printf 'libamdocl64.so\n' >"$root/etc/OpenCL/vendors/amdocl64_60204_139.icd"
  printf 'PATH="/usr/local/bin:/usr/bin:/bin"\nHSA_OVERRIDE_GFX_VERSION="11.0.0"\n' >"$root/etc/environment"
  # shellcheck disable=SC2016 # the profile's own text
  printf '# ROCm\nexport PATH=$PATH:/opt/rocm/bin\n' >"$root/etc/profile.d/rocm.sh"
  cat >>"$root/home/sam/.bashrc" <<'EOF'
export EDITOR=vim
alias ll='ls -l'
export ROCM_PATH=/opt/rocm
export HSA_OVERRIDE_GFX_VERSION=11.0.0
export PATH="$HOME/bin:/opt/rocm/bin:$PATH"
export LD_LIBRARY_PATH=/opt/rocm/lib:/opt/rocm/lib64${LD_LIBRARY_PATH:+:${LD_LIBRARY_PATH}}
export HIP_VISIBLE_DEVICES=0
export CUDA_VISIBLE_DEVICES=
source /opt/rocm/share/rocm/env.sh
EOF
  chmod 0640 "$root/home/sam/.bashrc"
  mkdir -p "$root/home/sam/.config/miopen" "$root/home/sam/.cache/miopen/3.2.0"
  printf 'db\n' >"$root/home/sam/.config/miopen/gfx1100_48.HIP.3_2_0.ufdb.txt"
  printf 'kernel\n' >"$root/home/sam/.cache/miopen/3.2.0/gfx1100_48.ukdb"
  in_root "$root" chown -R sam:sam /home/sam/.config /home/sam/.cache
  mkdir -p "$root/opt/other"
  printf 'keep me\n' >"$root/opt/other/keep.txt"
  printf 'canary=1\n' >"$root/etc/canary.conf"
  # PyTorch for ROCm 6.1 in sam's venv, from the (local copy of the) rocm6.1 wheel index.
  cp -r "$mirror/whl/rocm6.1" "$root/tmp/gd/whl"
  in_root "$root" runuser -u sam -- python3 -m venv /home/sam/venv
  in_root "$root" runuser -u sam -- /home/sam/venv/bin/pip install -q --no-index --find-links /tmp/gd/whl \
    torch torchvision
  rm -rf "$root/tmp/gd/whl"
}

# A CUDA 12.6 server installed the way NVIDIA's guides do it: cuda-keyring (its source, key and pin), the
# toolkit, the driver 560 with cuda-drivers, the Fabric Manager, cuDNN and NCCL, the container toolkit wired
# into Docker, containerd and CDI; a user with CUDA in his profile and a venv with PyTorch for CUDA 12.6.
machine_cuda12() {
  local root=$1
  cp "$mirror/compute/cuda/repos/debian12/x86_64/cuda-keyring_1.1-1_all.deb" "$root/tmp/gd/"
  in_root "$root" dpkg -i /tmp/gd/cuda-keyring_1.1-1_all.deb
  cp "$test_key_dir/key.gpg" "$root/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg"
  echo 'deb [signed-by=/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg] http://nvidia.github.io/libnvidia-container/stable/deb/amd64 /' \
    >"$root/etc/apt/sources.list.d/nvidia-container-toolkit.list"
  in_root "$root" apt-get update -q
  in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "linux-image-$kernel" "linux-headers-$kernel"
  in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    cuda-toolkit-12-6 cuda-drivers-560 nvidia-fabricmanager-560 libcudnn9-cuda-12 libnccl2 \
    nvidia-container-toolkit
  in_root "$root" update-alternatives --quiet --install /usr/local/cuda cuda /usr/local/cuda-12.6 100
  # /var/run is a link to /run in the root: written through it from outside, it would be the host's /run.
  mkdir -p "$root/etc/docker" "$root/etc/containerd" "$root/etc/cdi" "$root/run/cdi" "$root/etc/modprobe.d"
  cat >"$root/etc/docker/daemon.json" <<'EOF'
{
    "default-runtime": "nvidia",
    "log-driver": "json-file",
    "runtimes": {
        "nvidia": {
            "args": [],
            "path": "nvidia-container-runtime"
        }
    }
}
EOF
  cat >"$root/etc/containerd/config.toml" <<'EOF'
version = 2

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]

    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "nvidia"

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
          privileged_without_host_devices = false
          runtime_engine = ""
          runtime_root = ""
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
            BinaryName = "/usr/bin/nvidia-container-runtime"

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
          runtime_type = "io.containerd.runc.v2"
EOF
  printf 'cdiVersion: 0.5.0\nkind: nvidia.com/gpu\n' >"$root/etc/cdi/nvidia.yaml"
  printf '{"cdiVersion":"0.5.0","kind":"nvidia.com/gpu"}\n' >"$root/run/cdi/nvidia-container-toolkit.json"
  printf 'options nvidia NVreg_PreserveVideoMemoryAllocations=1\n' >"$root/etc/modprobe.d/nvidia.conf"
  cat >>"$root/home/sam/.bashrc" <<'EOF'
export EDITOR=vim
export CUDA_HOME=/usr/local/cuda-12.6
export PATH=/usr/local/cuda-12.6/bin${PATH:+:${PATH}}
export CUDA_VISIBLE_DEVICES=0
EOF
  cp -r "$mirror/whl/cu126" "$root/tmp/gd/whl"
  in_root "$root" runuser -u sam -- python3 -m venv /home/sam/venv
  in_root "$root" runuser -u sam -- /home/sam/venv/bin/pip install -q --no-index --find-links /tmp/gd/whl torch
  rm -rf "$root/tmp/gd/whl" "$root"/tmp/gd/*.deb
}

# A service manager for roots that have none: `systemctl is-active UNIT` answers from
# /var/lib/fake-systemd/UNIT (active or absent), stop/start/restart change it, and every call is logged to
# /var/log/fake-systemctl.log, so a test can see what a script stopped.
add_fake_systemctl() {
  local root=$1 unit
  shift
  mkdir -p "$root/var/lib/fake-systemd"
  for unit in "$@"; do echo active >"$root/var/lib/fake-systemd/$unit"; done
  cat >"$root/usr/local/bin/systemctl" <<'EOF'
#!/bin/sh
echo "$*" >>/var/log/fake-systemctl.log
quiet=
[ "$1" = --quiet ] && quiet=1 && shift
cmd=$1
shift
[ "$1" = --quiet ] && quiet=1 && shift
unit=${1%.service}
case $cmd in
is-active) if [ -f "/var/lib/fake-systemd/$unit" ]; then [ -n "$quiet" ] || echo active; exit 0; fi
  [ -n "$quiet" ] || echo inactive; exit 3 ;;
stop) rm -f "/var/lib/fake-systemd/$unit" ;;
start | restart) echo active >"/var/lib/fake-systemd/$unit" ;;
esac
exit 0
EOF
  chmod 0755 "$root/usr/local/bin/systemctl"
}

# Starts a few shared pieces every root test needs: the base root, the mirror, the proxy. The roots live
# on a tmpfs (throwaway: dpkg's fsyncs cost nothing there), unless GPUDOCTOR_ROOTS_ON_DISK is set.
root_setup() {
  ensure_debian_base bookworm
  if [[ -z ${GPUDOCTOR_ROOTS_ON_DISK:-} ]]; then
    mkdir -p "$work/t"
    mount -t tmpfs -o size=6g,mode=0755 gpudoctor-test "$work/t" || fail "cannot mount a tmpfs for the roots"
    roots=$work/t
  else
    roots=$work
  fi
  # The mirror beside the roots: add_local_mirror hard-links it into them.
  mirror=$roots/mirror
  ensure_mirror
  start_proxy
}

# The gpudoctor a migration's check step runs, by the absolute path of the one that wrote the script
# (docs/fixes.md, "Parameters": post.gpudoctor), inside ROOT: a stub (the real binary needs libraries the
# root lacks), root's and 0755, that logs how it was called to /var/log/gpudoctor-stub.log and passes.
add_gpudoctor_stub() {
  local gd
  gd=$(readlink -f "$gpudoctor")
  mkdir -p "$1$(dirname "$gd")"
  cat >"$1$gd" <<'SH'
#!/bin/sh
echo "$0 $*" >>/var/log/gpudoctor-stub.log
echo "gpudoctor (stub): all checks pass"
SH
  chmod 0755 "$1$gd"
}

# ---- plans ----------------------------------------------------------------------------------------------------
# same_plan_from_snapshot ROOT [fix RECIPE] ARGS...: records ROOT as a bundle (bundle --root) and asserts that
# `migrate ARGS --from` the bundle (or `fix RECIPE ARGS`) writes the script `... --root ROOT` writes (but for
# the lines naming where the plan came from, and the script id that hashes them). The script made --from the
# bundle stays in $work/offline.sh.
same_plan_from_snapshot() {
  local root=$1 snap=$work/snapshot-$RANDOM.tar.gz command=(migrate)
  shift
  if [[ ${1:-} == fix ]]; then command=(fix "$2") && shift 2; fi
  "$gpudoctor" bundle --root "$root" -o "$snap" >"$work/bundle.out" 2>&1 || fail "bundle --root: $(tail -3 "$work/bundle.out")"
  "$gpudoctor" "${command[@]}" "$@" --root "$root" --emit "$work/live.sh" 2>"$work/live.err" ||
    fail "${command[*]} --root: $(cat "$work/live.err")"
  "$gpudoctor" "${command[@]}" "$@" --from "$snap" --emit "$work/offline.sh" 2>"$work/offline.err" ||
    fail "${command[*]} --from: $(cat "$work/offline.err")"
  local strip='/^# From: /d; /^GD_SCRIPT_ID=/d; /^GD_FOR_HOST=/d; /^# For:  host /d'
  if ! diff <(sed "$strip" "$work/live.sh") <(sed "$strip" "$work/offline.sh") >"$work/plan.diff"; then
    fail "the plan --from a snapshot of the root differs from the live one: $(head -20 "$work/plan.diff")"
  fi
  rm -f "$snap"
}

# migrate_apply ROOT ARGS...: `gpudoctor migrate ARGS` at ROOT: its script passes shellcheck, and --apply runs
# to the stop before the reboot (boot one). migrate_resume ROOT goes on after it (boot two), with the stub of
# the check step's gpudoctor.
migrate_apply() {
  local root=$1
  shift
  "$gpudoctor" migrate "$@" --root "$root" --emit "$root/tmp/gd/migrate.sh" 2>"$work/emit.err" ||
    fail "migrate $* --root: $(cat "$work/emit.err")"
  shellcheck "$root/tmp/gd/migrate.sh" || fail "the migration script does not pass shellcheck"
  GPUDOCTOR_BOOT_ID=boot-one "$gpudoctor" migrate "$@" --root "$root" --apply --yes >"$work/migrate.out" 2>&1 ||
    fail "migrate $* --apply failed: $(tail -25 "$work/migrate.out")"
}
migrate_resume() {
  add_gpudoctor_stub "$1"
  GPUDOCTOR_BOOT_ID=boot-two "$gpudoctor" migrate --root "$1" --yes --resume >"$work/resume.out" 2>&1 ||
    fail "migrate --resume failed: $(tail "$work/resume.out")"
}

# apt_consistent ROOT WHEN: dpkg has nothing half-done and apt's dependencies hold.
apt_consistent() {
  [[ -z $(in_root "$1" dpkg --audit) ]] || fail "dpkg --audit $2: $(in_root "$1" dpkg --audit)"
  in_root "$1" apt-get check -q >/dev/null 2>&1 || fail "apt-get check fails $2"
}

# The names of the packages of graph files (tests/root/graphs), one a line.
graph_packages() {
  local g
  for g in "$@"; do sed -n 's/^Package: //p' "$root_dir/graphs/$g"; done | sort -u
}

# Runs a command that must fail with status 1 and leave ROOT's installed packages as they were.
expect_refusal() {
  local root=$1 what=$2 out=$3 before after status=0
  shift 3
  before=$(installed_names "$root")
  "$@" >"$out" 2>&1 || status=$?
  [[ $status == 1 ]] || fail "$what: exit status $status, not 1: $(tail -5 "$out")"
  after=$(installed_names "$root")
  [[ $before == "$after" ]] || fail "$what changed the installed packages: $(diff <(echo "$before") <(echo "$after") | sed -n 1,10p)"
}
