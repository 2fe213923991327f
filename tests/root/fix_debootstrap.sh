#!/usr/bin/env bash
# gpudoctor's remediation in a real throwaway root: a minimal Debian 12 made with debootstrap (cached as a
# tarball), dummy packages with the vendors' names, the files a ROCm install leaves behind, and:
#   1. `fix purge-rocm`: --dry-run leaves the root bit-identical; the run removes exactly the ROCm packages,
#      folders, sources, keys, pins, ld.so.conf.d entries, modprobe and ICD files and profile exports (with
#      backups) and keeps the canaries (Mesa-like graphics packages, an NVIDIA package, unrelated files and
#      lines); a second run changes nothing.
#   2. `migrate --to nvidia --mirror file://...`: purges ROCm, installs the chosen driver and toolkit from a
#      signed local repository of dummy packages, stops for the reboot and goes on after it.
#   3. `fix purge-rocm --apply`, killed at random moments: every file it edits is the old or the new one, never
#      a torn one, and `undo` restores them all; a full apply then undo restores them too.
# Needs root (debootstrap, chroot, dpkg in the root); skips with 125 when it cannot make the root.
# The root is not given /proc: the scripts must not need it (apt and dpkg do not).
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/../e2e/common.bash"

[[ $(id -u) -eq 0 ]] || skip "needs root (debootstrap, chroot, dpkg inside the root)"
for tool in debootstrap chroot dpkg-deb apt-ftparchive gpg setsid; do
  command -v "$tool" >/dev/null || skip "$tool is missing (apt-get install debootstrap apt-utils gnupg)"
done

cache=${XDG_CACHE_HOME:-$HOME/.cache}/gpudoctor-test
tarball=$cache/debian-bookworm-minbase.tar.gz
mirror_url=${GPUDOCTOR_DEBIAN_MIRROR:-http://deb.debian.org/debian}
if [[ ! -s $tarball ]]; then
  mkdir -p "$cache"
  echo "making the Debian 12 root with debootstrap (once; cached as $tarball)"
  start=$SECONDS
  if ! debootstrap --variant=minbase bookworm "$work/bootstrap" "$mirror_url" >"$work/debootstrap.log" 2>&1; then
    tail -n 5 "$work/debootstrap.log" >&2
    skip "debootstrap from $mirror_url failed (no network to the Debian archive?)"
  fi
  rm -rf "$work/bootstrap/var/cache/apt/archives/"*.deb
  tar -C "$work/bootstrap" -czf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
  rm -rf "$work/bootstrap"
  echo "debootstrap took $((SECONDS - start)) s"
fi

in_root() { chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  ${GPUDOCTOR_BOOT_ID:+GPUDOCTOR_BOOT_ID=$GPUDOCTOR_BOOT_ID} "${@:2}"; }
# shellcheck disable=SC2016 # dpkg-query's format, not bash's
installed_version() { in_root "$1" dpkg-query -W -f='${db:Status-Abbrev} ${Version}' "$2" 2>/dev/null || true; }

# ---- dummy packages -------------------------------------------------------------------------------------
# make_deb NAME VERSION DEPENDS [PATH=CONTENT ...]
make_deb() {
  local name=$1 version=$2 depends=$3 dir spec
  shift 3
  dir=$work/debsrc/$name
  mkdir -p "$dir/DEBIAN"
  {
    echo "Package: $name"
    echo "Version: $version"
    echo "Architecture: all"
    echo "Maintainer: gpudoctor tests <tests@gpudoctor.invalid>"
    [[ -n $depends ]] && echo "Depends: $depends"
    echo "Description: dummy $name for gpudoctor's tests"
  } >"$dir/DEBIAN/control"
  for spec in "$@"; do
    mkdir -p "$dir$(dirname "${spec%%=*}")"
    printf '%s\n' "${spec#*=}" >"$dir${spec%%=*}"
  done
  dpkg-deb --root-owner-group -Zgzip --build "$dir" . >/dev/null
}
mkdir -p "$work/debs" "$work/mirror-debs"
(
  cd "$work/debs" || exit 1
  make_deb rocm-core 6.2.4.60204-139~22.04 "" /opt/rocm-6.2.4/.info/version=6.2.4-139
  make_deb hip-runtime-amd 6.2.41134.60204-139~22.04 "rocm-core" /opt/rocm-6.2.4/lib/libamdhip64.so.6=elf
  make_deb rocminfo 1.0.0.60204-139~22.04 "rocm-core" /opt/rocm-6.2.4/bin/rocminfo=rocminfo
  make_deb rocm-hip-sdk 6.2.4.60204-139~22.04 "hip-runtime-amd, rocminfo"
  make_deb amdgpu-dkms 1:6.8.5.60204-2041575.22.04 "" /usr/src/amdgpu-6.8.5-2041575.22.04/dkms.conf=PACKAGE_NAME=amdgpu
  make_deb amdgpu-install 6.2.60204-2041575.22.04 "" /usr/bin/amdgpu-install=installer
  make_deb libdrm-amdgpu1 2.4.114-1+gpudoctor "" /usr/lib/x86_64-linux-gnu/libdrm_amdgpu.so.1=mesa
  make_deb mesa-vulkan-drivers 22.3.6-1+gpudoctor "" /usr/share/vulkan/icd.d/radeon_icd.x86_64.json=radv
  make_deb libnvidia-compute-550 550.127.05-1+gpudoctor "" /usr/lib/x86_64-linux-gnu/libcuda.so.550=canary
)
(
  cd "$work/mirror-debs" || exit 1
  make_deb nvidia-open-580 580.95.05-1 "" /usr/share/doc/nvidia-open-580/README=driver
  make_deb cuda-toolkit-13-0 13.0.2-1 "" /usr/local/cuda-13.0/version.json='{"cuda":{"version":"13.0.2"}}'
  make_deb "linux-headers-$(uname -r)" 1.0-1 "" "/usr/src/linux-headers-$(uname -r)/Makefile=headers"
  make_deb cuda-toolkit-12-6 12.6.3-1 "" /usr/local/cuda-12.6/version.json='{"cuda":{"version":"12.6.3"}}'
)

# ---- a Debian root with what a ROCm 6.2.4 install leaves -------------------------------------------------
new_root() {
  local root=$1
  mkdir -p "$root"
  tar -C "$root" -xzf "$tarball"
  mkdir -p "$root/tmp/gd"
  cp "$work"/debs/*.deb "$root/tmp/gd/"
  in_root "$root" sh -c 'dpkg -i /tmp/gd/*.deb' >/dev/null
  rm -f "$root"/tmp/gd/*.deb
  in_root "$root" useradd -m -s /bin/bash sam
  in_root "$root" update-alternatives --quiet --install /opt/rocm rocm /opt/rocm-6.2.4 100
  printf 'leftover\n' >"$root/opt/rocm-6.2.4/lib/libleftover.so"
  mkdir -p "$root/var/lib/dkms/amdgpu/6.8.5-2041575.22.04" "$root/etc/apt/keyrings" "$root/etc/OpenCL/vendors" \
    "$root/etc/modprobe.d"
  ln -s /usr/src/amdgpu-6.8.5-2041575.22.04 "$root/var/lib/dkms/amdgpu/6.8.5-2041575.22.04/source"
  printf 'built.o\n' >"$root/usr/src/amdgpu-6.8.5-2041575.22.04/amdgpu.o"
  echo 'deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.2.4 jammy main' \
    >"$root/etc/apt/sources.list.d/rocm.list"
  echo 'deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/amdgpu/6.2.4/ubuntu jammy main' \
    >"$root/etc/apt/sources.list.d/amdgpu.list"
  printf 'not a real key\n' >"$root/etc/apt/keyrings/rocm.gpg"
  printf 'Package: *\nPin: release o=repo.radeon.com\nPin-Priority: 600\n' >"$root/etc/apt/preferences.d/rocm-pin-600"
  printf '# Debian\ndeb http://deb.debian.org/debian bookworm main\ndeb https://repo.radeon.com/rocm/apt/6.2.4 jammy main\n' \
    >"$root/etc/apt/sources.list"
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
EOF
  chmod 0640 "$root/home/sam/.bashrc"
  mkdir -p "$root/opt/other"
  printf 'keep me\n' >"$root/opt/other/keep.txt"
  printf 'canary=1\n' >"$root/etc/canary.conf"
}

# Every path below the root with its type, mode, owner, size, link target and content hash (not the times),
# leaving out the scripts this test put there and the journal (which a run appends to).
tree_state() {
  (
    cd "$1" || exit 1
    local skip=(\( -path ./tmp/gd -o -path ./var/log/gpudoctor \) -prune -o)
    find . "${skip[@]}" -printf '%y %m %U:%G %s %l %p\n' | sort
    find . "${skip[@]}" -type f -print0 | sort -z | xargs -0 sha256sum
  )
}

# The files purge-rocm edits or removes, as the kill test compares them.
edited=(/etc/apt/sources.list /etc/apt/sources.list.d/rocm.list /etc/apt/sources.list.d/amdgpu.list
  /etc/apt/keyrings/rocm.gpg /etc/apt/preferences.d/rocm-pin-600 /etc/ld.so.conf.d/rocm.conf
  /etc/modprobe.d/amdgpu.conf /etc/OpenCL/vendors/amdocl64_60204_139.icd /etc/environment
  /etc/profile.d/rocm.sh /home/sam/.bashrc)
digest() { if [[ -e $1 ]]; then sha256sum <"$1" | cut -c1-64; else echo absent; fi; }

# ==== 1. purge-rocm, dry run, run, second run ===============================================================
A=$work/rootA
new_root "$A"
declare -A before_edit
for f in "${edited[@]}"; do before_edit[$f]=$(digest "$A$f"); done
canary_before=$(cat "$A/opt/other/keep.txt" "$A/etc/canary.conf" "$A/etc/ld.so.conf.d/x86_64-linux-gnu.conf" | sha256sum)
"$gpudoctor" fix purge-rocm --root "$A" --emit "$A/tmp/gd/purge.sh" 2>"$work/emit.err" ||
  fail "fix purge-rocm --root: $(cat "$work/emit.err")"
shellcheck "$A/tmp/gd/purge.sh" || fail "the rendered purge script does not pass shellcheck"
grep -q "^  gd_purge_packages amdgpu-dkms amdgpu-install hip-runtime-amd rocm-core rocm-hip-sdk rocminfo$" \
  "$A/tmp/gd/purge.sh" || fail "the purge list is not the explicit list of installed ROCm packages"
pass "purge-rocm rendered from the root's facts: explicit package list, shellcheck clean"

tree_state "$A" >"$work/A0"
in_root "$A" bash /tmp/gd/purge.sh --dry-run >"$work/dry.out" 2>&1 || fail "--dry-run failed: $(tail -5 "$work/dry.out")"
tree_state "$A" >"$work/A1"
cmp -s "$work/A0" "$work/A1" || fail "--dry-run changed the root: $(diff "$work/A0" "$work/A1" | head -5)"
grep -q 'would run: env DEBIAN_FRONTEND=noninteractive apt-get purge' "$work/dry.out" ||
  fail "--dry-run did not print the purge command"
[[ ! -e $A/var/log/gpudoctor ]] || fail "--dry-run wrote a journal"
pass "--dry-run prints the commands and leaves the root bit-identical"

in_root "$A" bash /tmp/gd/purge.sh >"$work/run.out" 2>&1 || fail "the purge script failed: $(tail -15 "$work/run.out")"
for p in rocm-core hip-runtime-amd rocminfo rocm-hip-sdk amdgpu-dkms amdgpu-install; do
  [[ $(installed_version "$A" "$p") == ii* ]] && fail "$p is still installed"
done
pass "the ROCm packages are gone"
for p in libdrm-amdgpu1 mesa-vulkan-drivers libnvidia-compute-550; do
  [[ $(installed_version "$A" "$p") == ii* ]] || fail "the canary $p was removed"
done
pass "the graphics canaries (libdrm-amdgpu1, mesa-vulkan-drivers) and NVIDIA's libnvidia-compute-550 stay"
for path in /opt/rocm-6.2.4 /opt/rocm /usr/src/amdgpu-6.8.5-2041575.22.04 /var/lib/dkms/amdgpu/6.8.5-2041575.22.04 \
  /etc/alternatives/rocm /etc/apt/sources.list.d/rocm.list /etc/apt/sources.list.d/amdgpu.list \
  /etc/apt/keyrings/rocm.gpg /etc/apt/preferences.d/rocm-pin-600 /etc/ld.so.conf.d/rocm.conf \
  /etc/modprobe.d/amdgpu.conf /etc/OpenCL/vendors/amdocl64_60204_139.icd; do
  [[ -e $A$path || -L $A$path ]] && fail "$path is still there"
done
pass "ROCm folders, DKMS trees, alternatives, sources, key, pin, ld.so.conf.d, modprobe and ICD files are gone"
grep -q 'deb.debian.org' "$A/etc/apt/sources.list" || fail "the Debian line of sources.list was removed"
grep -q 'repo.radeon.com' "$A/etc/apt/sources.list" && fail "the radeon line of sources.list is still there"
grep -Eq 'ROCM_PATH|HSA_OVERRIDE|/opt/rocm' "$A/home/sam/.bashrc" && fail ".bashrc still names ROCm"
# shellcheck disable=SC2016 # the profile's own text
for line in 'export EDITOR=vim' "alias ll='ls -l'" 'export PATH="$HOME/bin:$PATH"'; do
  grep -qxF "$line" "$A/home/sam/.bashrc" || fail ".bashrc lost a line that is not ROCm's: $line"
done
sam_ids=$(in_root "$A" id -u sam):$(in_root "$A" id -g sam)
[[ $(stat -c '%u:%g %a' "$A/home/sam/.bashrc") == "$sam_ids 640" ]] || fail ".bashrc changed owner or mode"
grep -q HSA_OVERRIDE "$A/etc/environment" && fail "/etc/environment still sets HSA_OVERRIDE_GFX_VERSION"
grep -qx 'PATH="/usr/local/bin:/usr/bin:/bin"' "$A/etc/environment" || fail "/etc/environment lost PATH"
grep -q /opt/rocm "$A/etc/profile.d/rocm.sh" && fail "/etc/profile.d/rocm.sh still names /opt/rocm"
pass "sources.list, .bashrc, /etc/environment and profile.d keep everything but ROCm's lines"
[[ $(cat "$A/opt/other/keep.txt" "$A/etc/canary.conf" "$A/etc/ld.so.conf.d/x86_64-linux-gnu.conf" | sha256sum) == \
  "$canary_before" ]] || fail "an unrelated file changed"
pass "unrelated files are untouched"
backups=$A/var/backups/gpudoctor
for f in /etc/apt/sources.list.d/rocm.list /etc/apt/sources.list /home/sam/.bashrc /etc/environment \
  /etc/ld.so.conf.d/rocm.conf /etc/apt/keyrings/rocm.gpg; do
  b=$(find "$backups" -path "*$f" -type f | head -n1)
  [[ -n $b && $(digest "$b") == "${before_edit[$f]}" ]] || fail "no backup of $f with its old content"
done
[[ $(stat -c %a "$backups") == 700 ]] || fail "the backup folder is readable by others"
journal=$(find "$A/var/log/gpudoctor" -name '*.journal' | head -n1)
[[ $(grep -c $'\tstep-done' "$journal") -ge 8 ]] || fail "the journal lacks its steps: $(cat "$journal")"
pass "edited and removed files have backups (0700), the journal has every step"

tree_state "$A" >"$work/A2"
in_root "$A" bash /tmp/gd/purge.sh >"$work/run2.out" 2>&1 || fail "the second run failed: $(tail -5 "$work/run2.out")"
tree_state "$A" >"$work/A3"
cmp -s "$work/A2" "$work/A3" || fail "the second run changed the root: $(diff "$work/A2" "$work/A3" | head -5)"
grep -q 'nothing needed changing' "$work/run2.out" || fail "the second run did not say it changed nothing"
pass "a second run changes nothing"
declare -A after_edit
for f in "${edited[@]}"; do after_edit[$f]=$(digest "$A$f"); done
rm -rf "$A"

# ==== 2. migrate --to nvidia through a local signed mirror, with the reboot ==================================
B=$work/rootB
new_root "$B"
printf 'deb https://repo.radeon.com/rocm/apt/6.2.4 jammy main\n' >"$B/etc/apt/sources.list"
repo=$B/srv/mirror/compute/cuda/repos/debian12/x86_64
mkdir -p "$repo"
cp "$work"/mirror-debs/*.deb "$repo/"
export GNUPGHOME=$work/gnupg
mkdir -m 0700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key 'gpudoctor test mirror <mirror@gpudoctor.invalid>' rsa2048 sign never
(
  cd "$repo" || exit 1
  apt-ftparchive packages . >Packages
  apt-ftparchive -o APT::FTPArchive::Release::Origin=gpudoctor-test release . >Release
  gpg --batch --yes --clearsign -o InRelease Release
  gpg --batch --armor --export >3bf863cc.pub
)
"$gpudoctor" migrate --to nvidia --root "$B" --mirror file:///srv/mirror --emit "$B/tmp/gd/migrate.sh" 2>"$work/emit.err" ||
  fail "migrate --to nvidia --root: $(cat "$work/emit.err")"
for want in 'gd_install_packages nvidia-open-580' 'gd_install_packages cuda-toolkit-13-0'; do
  grep -q "$want" "$B/tmp/gd/migrate.sh" || fail "the plan lacks $want (the tables' choice for Debian 12)"
done
grep -q 'file:///srv/mirror/compute/cuda/repos/debian12/x86_64/ /' "$B/tmp/gd/migrate.sh" ||
  fail "the repository is not the mirror's"
shellcheck "$B/tmp/gd/migrate.sh" || fail "the migration script does not pass shellcheck"
pass "migrate --to nvidia chose CUDA 13.0 with nvidia-open-580 and pointed the repository at the mirror"

apply() { "$gpudoctor" migrate --root "$B" --yes "$@"; }
GPUDOCTOR_BOOT_ID=boot-one apply --to nvidia --mirror file:///srv/mirror --apply >"$work/mig1.out" 2>&1 ||
  fail "migrate --apply failed: $(tail -15 "$work/mig1.out")"
grep -q 'gpudoctor migrate --resume' "$work/mig1.out" || fail "the migration did not stop for the reboot: $(tail "$work/mig1.out")"
[[ $(installed_version "$B" rocm-core) == ii* ]] && fail "ROCm is still installed after the migration's purge"
for want in 'nvidia-open-580 580.95.05-1' 'cuda-toolkit-13-0 13.0.2-1'; do
  got=$(installed_version "$B" "${want% *}")
  [[ $got == "ii  ${want#* }" ]] || fail "${want% *} ${want#* } is not installed ($got): $(tail -20 "$work/mig1.out")"
done
[[ $(installed_version "$B" cuda-toolkit-12-6) == ii* ]] && fail "a toolkit that was not chosen got installed"
grep -qx 'blacklist nouveau' "$B/etc/modprobe.d/blacklist-nouveau.conf" || fail "nouveau is not blacklisted"
grep -q '/usr/local/cuda-13.0/bin' "$B/etc/profile.d/cuda-path.sh" || fail "CUDA is not on PATH"
pass "migrate --apply purged ROCm, installed nvidia-open-580 580.95.05-1 and cuda-toolkit-13-0 13.0.2-1 from the mirror, then asked for the reboot"
GPUDOCTOR_BOOT_ID=boot-one apply --resume >"$work/mig2.out" 2>&1 || fail "--resume failed: $(tail "$work/mig2.out")"
grep -q 'Reboot now' "$work/mig2.out" || fail "--resume went on without a reboot: $(tail "$work/mig2.out")"
GPUDOCTOR_BOOT_ID=boot-two apply --resume >"$work/mig3.out" 2>&1 || fail "--resume failed: $(tail "$work/mig3.out")"
for want in 'rebooted since this script asked' 'gpudoctor check --only' 'All 17 steps ran'; do
  grep -q "$want" "$work/mig3.out" || fail "after the reboot --resume did not finish ($want): $(tail "$work/mig3.out")"
done
pass "migrate --resume waits for the reboot, then continues where it stopped and ends with gpudoctor check"
tree_state "$B" >"$work/B1"
GPUDOCTOR_BOOT_ID=boot-two in_root "$B" bash /tmp/gd/migrate.sh --no-reboot >"$work/mig4.out" 2>&1 ||
  fail "a run after the end failed: $(tail "$work/mig4.out")"
tree_state "$B" >"$work/B2"
cmp -s "$work/B1" "$work/B2" || fail "a run after the migration changed the root: $(diff "$work/B1" "$work/B2" | head)"
pass "the script run again by hand after the migration changes nothing"
rm -rf "$B"

# ==== 3. --apply killed at random moments; undo ===============================================================
check_torn() { # every edited file holds its old or its new content
  local root=$1 f d
  for f in "${edited[@]}"; do
    d=$(digest "$root$f")
    [[ $d == "${before_edit[$f]}" || $d == "${after_edit[$f]}" ]] || fail "$f is neither old nor new after the kill: $d"
  done
}
check_restored() {
  local root=$1 f
  for f in "${edited[@]}"; do
    [[ $(digest "$root$f") == "${before_edit[$f]}" ]] || fail "undo did not restore $f"
  done
}
D=$work/rootD
new_root "$D"
start=$(date +%s%N)
"$gpudoctor" fix purge-rocm --root "$D" --apply --yes >"$work/applyD.out" 2>&1 || fail "--apply failed: $(tail "$work/applyD.out")"
echo "a full --apply of purge-rocm took $((($(date +%s%N) - start) / 1000000)) ms"
journal_d=$work/journal-d
cp "$D"/var/log/gpudoctor/*.journal "$journal_d"
for f in "${edited[@]}"; do
  [[ $(digest "$D$f") == "${after_edit[$f]}" ]] || fail "--apply left $f other than the script does"
done
"$gpudoctor" undo --root "$D" --yes >"$work/undoD.out" 2>&1 || fail "undo failed: $(cat "$work/undoD.out")"
check_restored "$D"
grep -q 'apt-get install .*rocm-core=6.2.4.60204-139~22.04' "$work/undoD.out" ||
  fail "undo does not print how to reinstall the purged packages: $(cat "$work/undoD.out")"
"$gpudoctor" undo --root "$D" --yes >"$work/undoD2.out" 2>&1 || fail "a second undo failed"
grep -q 'undone already' "$work/undoD2.out" || fail "a second undo did something: $(cat "$work/undoD2.out")"
pass "a full --apply then undo restores every file and prints the apt-get install that reinstalls the packages"
rm -rf "$D"

# The steps of that apply, in order; each kill waits for one of them to begin (spread over the steps, at a
# random one of each slice), then kills the whole process group a random 0-40 ms later.
mapfile -t steps < <(grep $'\tstep-begin' "$journal_d" | cut -f3)
((${#steps[@]} >= 8)) || fail "the apply ran only ${#steps[@]} steps"
kills=${GPUDOCTOR_KILLS:-5}
for ((i = 1; i <= kills; i++)); do
  C=$work/rootC$i
  new_root "$C"
  target=${steps[$(((i - 1) * ${#steps[@]} / kills + RANDOM % (${#steps[@]} / kills)))]}
  setsid "$gpudoctor" fix purge-rocm --root "$C" --apply --yes >"$work/apply$i.out" 2>&1 &
  pid=$!
  for ((wait = 0; wait < 3000; wait++)); do
    if grep -qs $'\t'"$target"$'\tstep-begin' "$C"/var/log/gpudoctor/*.journal; then break; fi
    sleep 0.01
  done
  sleep "0.0$((RANDOM % 5))$((RANDOM % 10))"
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  check_torn "$C"
  if [[ -f $C/var/lib/gpudoctor/last-apply.json ]]; then
    "$gpudoctor" undo --root "$C" --yes >"$work/undo$i.out" 2>&1 || fail "undo failed: $(cat "$work/undo$i.out")"
  fi
  check_restored "$C"
  done_steps=$(cat "$C"/var/log/gpudoctor/*.journal 2>/dev/null | grep -c $'\tstep-done' || true)
  pass "killed in step $target ($done_steps steps done): every file old or new; undo restored them"
  rm -rf "$C"
done
