#!/usr/bin/env bash
# The portable tarball and the RPM (docs/packaging.md). ./install.sh --portable and --rpm build both from one
# binary that needs no shared library but libc, libm, libgcc_s and the loader, and no glibc symbol above 2.34
# (contrib/packaging/check_portable.sh, which must also refuse this build's own, dynamically linked binary);
# SHA256SUMS verifies both. The tarball's one folder runs in place in a throwaway Debian 12 root: `check`
# without libarchive (opened only when a bundle needs it: `bundle` then names the package to install), and with
# it `bundle --obfuscate` and `check --from` that bundle. The RPM requires only those libraries' sonames and
# versions (and libarchive's and libcurl's sonames, opened when used), holds the .deb's files, marks the
# copyright file %license, carries the changelog, and dnf installs it into a Rocky 9 root with those Requires
# met and removes it, leaving an unfinished migration's records. Both run in Debian 13 too.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/../e2e/common.bash"
# shellcheck source=tests/root/debian_root.bash
source "$(dirname "$0")/debian_root.bash"
for tool in rpm rpmbuild readelf objdump sha256sum; do
  command -v "$tool" >/dev/null || skip "$tool is missing (apt-get install rpm binutils)"
done

# Built once per build folder, under the package builds' lock, after or before the .deb's build: the two
# compile the same objects, so the second takes them from ccache (package_build, debian_root.bash).
dir=$(dirname "$gpudoctor")/portable-package
mkdir -p "$dir" "$work/art"
(
  flock 9
  package_build --portable "$dir/build" >"$dir/build.log" 2>&1 &&
    package_build --rpm "$dir/build" >>"$dir/build.log" 2>&1 &&
    cp "$dir"/build/gpudoctor-*-linux-x86_64.tar.gz "$dir"/build/gpudoctor-*.x86_64.rpm "$dir/build/SHA256SUMS" "$work/art/"
) 9>"$package_lock" || { tail -n 20 "$dir/build.log" >&2; fail "./install.sh --portable or --rpm failed ($dir/build.log)"; }
tarball=$(ls "$work"/art/gpudoctor-*-linux-x86_64.tar.gz)
rpm_file=$(ls "$work"/art/gpudoctor-*.x86_64.rpm)
(cd "$work/art" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not verify the artefacts"
[[ $(wc -l <"$work/art/SHA256SUMS") == 2 ]] || fail "SHA256SUMS lists $(wc -l <"$work/art/SHA256SUMS") files, not 2"
pass "$(basename "$tarball") and $(basename "$rpm_file") built, SHA256SUMS verifies both"

# ---- the tarball ------------------------------------------------------------------------------------------
top=$(basename "$tarball" .tar.gz)
tar -tzf "$tarball" >"$work/tar-list"
if grep -qv "^$top/" "$work/tar-list"; then fail "the tarball has paths outside $top/: $(grep -v "^$top/" "$work/tar-list")"; fi
for path in bin/gpudoctor share/gpudoctor/probes/sources.txt share/man/man1/gpudoctor.1.gz \
  share/doc/gpudoctor/copyright share/doc/gpudoctor/changelog.gz share/bash-completion/completions/gpudoctor \
  lib/systemd/system/gpudoctor-metrics.service libexec/gpudoctor/gpudoctor-slurm-healthcheck; do
  grep -qx "$top/$path" "$work/tar-list" || fail "the tarball lacks $top/$path"
done
mkdir -p "$work/unpacked" && tar -C "$work/unpacked" -xzf "$tarball"
portable=$work/unpacked/$top/bin/gpudoctor
"$source_dir/contrib/packaging/check_portable.sh" "$portable" >"$work/portable.txt" 2>&1 ||
  fail "the packed binary is not portable: $(cat "$work/portable.txt")"
# The checker can fail: this build's own binary links libstdc++ and the rest as shared libraries.
"$source_dir/contrib/packaging/check_portable.sh" "$gpudoctor" >"$work/dynamic.txt" 2>&1 &&
  fail "check_portable.sh accepts this build's dynamically linked binary: $(cat "$work/dynamic.txt")"
grep -q 'NEEDED libstdc++.so.6' "$work/dynamic.txt" || fail "check_portable.sh did not name libstdc++: $(cat "$work/dynamic.txt")"
pass "one folder $top/ with the binary, probe sources, man page, docs, units; $(tr '\n' ' ' <"$work/portable.txt")"

# In place in Debian 12, first without libarchive (minbase has none), then with it.
root=$work/root
new_root "$root"
in_root "$root" sh -c 'ls /usr/lib/x86_64-linux-gnu/libarchive.so.13*' >/dev/null 2>&1 &&
  fail "the minimal root has libarchive already: the case without it is not tried"
mkdir -p "$root/opt" && tar -C "$root/opt" -xzf "$tarball"
status=0
in_root "$root" "/opt/$top/bin/gpudoctor" check --format json >"$work/report.json" 2>"$work/check.err" || status=$?
((status <= 1)) || fail "the portable gpudoctor check exited $status in Debian 12: $(head -c 400 "$work/check.err")"
expect "$work/report.json" "r['format'] == 'gpudoctor-report' and len(r['results']) > 20 and r['facts']['os']['id']['value'] == 'debian'" \
  "the portable binary's check runs in place in Debian 12 without libarchive"
status=0
in_root "$root" "/opt/$top/bin/gpudoctor" bundle -o /tmp/bundle.tar.gz >/dev/null 2>"$work/bundle.err" || status=$?
((status != 0)) || fail "bundle succeeded without libarchive"
grep -q 'libarchive' "$work/bundle.err" || fail "bundle without libarchive does not name it: $(head -c 400 "$work/bundle.err")"
[[ ! -e $root/tmp/bundle.tar.gz ]] || fail "bundle without libarchive left /tmp/bundle.tar.gz"
pass "without libarchive, bundle exits $status and says: $(head -n 1 "$work/bundle.err")"

root2=$work/root2
new_root "$root2" libarchive13
mkdir -p "$root2/opt" && tar -C "$root2/opt" -xzf "$tarball"
in_root "$root2" "/opt/$top/bin/gpudoctor" bundle --obfuscate -o /tmp/bundle.tar.gz >/dev/null 2>"$work/bundle2.err" ||
  fail "the portable bundle --obfuscate failed in Debian 12 with libarchive13: $(head -c 400 "$work/bundle2.err")"
status=0
in_root "$root2" "/opt/$top/bin/gpudoctor" check --from /tmp/bundle.tar.gz --format json >"$work/replayed.json" 2>&1 || status=$?
((status <= 1)) || fail "check --from the portable bundle exited $status: $(head -c 400 "$work/replayed.json")"
pass "with libarchive13 the portable binary writes an obfuscated bundle in place, and check --from reads it"

# And in Debian 13, where libarchive is trixie's libarchive13t64.
root_suite=trixie
root3=$work/trixie
new_root "$root3" libarchive13t64
mkdir -p "$root3/opt" && tar -C "$root3/opt" -xzf "$tarball"
status=0
in_root "$root3" "/opt/$top/bin/gpudoctor" check --format json >"$work/report-trixie.json" 2>"$work/check-trixie.err" || status=$?
((status <= 1)) || fail "the portable gpudoctor check exited $status in Debian 13: $(head -c 400 "$work/check-trixie.err")"
expect "$work/report-trixie.json" "r['facts']['os']['version_id']['value'] == '13'" "the portable check runs in place in Debian 13"
in_root "$root3" "/opt/$top/bin/gpudoctor" bundle --obfuscate -o /tmp/bundle.tar.gz >/dev/null 2>"$work/bundle3.err" ||
  fail "the portable bundle --obfuscate failed in Debian 13: $(head -c 400 "$work/bundle3.err")"
pass "in Debian 13 the portable binary checks and writes an obfuscated bundle in place"
root_suite=bookworm

# ---- the RPM ----------------------------------------------------------------------------------------------
rpm -qp --requires "$rpm_file" >"$work/requires"
while read -r req; do
  case $req in
    'rpmlib('*|'rtld(GNU_HASH)'|/bin/bash|/bin/sh) continue ;;
    'libarchive.so.13()(64bit)'|'libcurl.so.4()(64bit)') continue ;;
  esac
  [[ $req =~ ^(libc\.so\.6|libm\.so\.6|libgcc_s\.so\.1|ld-linux-x86-64\.so\.2)(\(\)|\(([A-Z]+)_([0-9.]+)\))\(64bit\)$ ]] ||
    fail "the RPM requires $req: not one of the portable binary's libraries"
  node=${BASH_REMATCH[3]:-} version=${BASH_REMATCH[4]:-}
  if [[ $node == GLIBC ]]; then
    [[ $(printf '%s\n2.34\n' "$version" | sort -V | tail -n 1) == 2.34 ]] || fail "the RPM requires $req (glibc above 2.34)"
  fi
done <"$work/requires"
grep -qx 'libarchive.so.13()(64bit)' "$work/requires" || fail "the RPM does not require libarchive's soname"
pass "the RPM requires only libc, libm, libgcc_s, the loader (glibc <= 2.34), libarchive and libcurl: $(grep -c . "$work/requires") lines"

# The .deb's files, the RPM's files: the same (directories aside; the .deb's /lib/systemd is /usr/lib/systemd).
deb=$(package_deb)
dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./|/|; s|^/lib/|/usr/lib/|' | sort >"$work/deb-files"
rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$rpm_file" | awk '$1 !~ /^d/ {print $2}' | sort >"$work/rpm-files"
diff "$work/deb-files" "$work/rpm-files" >"$work/files.diff" ||
  fail "the RPM's files are not the .deb's: $(head -n 10 "$work/files.diff" | tr '\n' ' ')"
[[ $'\n'$(rpm -qpL "$rpm_file")$'\n' == *$'\n'/usr/share/doc/gpudoctor/copyright$'\n'* ]] || fail "the copyright file is not %license"
[[ $(rpm -qp --changelog "$rpm_file") == *"- $(rpm -qp --qf '%{VERSION}' "$rpm_file")-1"* ]] ||
  fail "the RPM's %changelog has no entry for its version"
pass "the RPM holds the .deb's $(grep -c . "$work/rpm-files") files, %license and %changelog"

# Installed with dnf into the project's Rocky 9 root, from dummy repositories of Rocky's BaseOS whose glibc,
# libgcc, libarchive and libcurl provide what RHEL 9's do (tests/root/graphs/rpm/rocky-9-libraries.txt): dnf
# must meet every Requires. rpm -V accepts the installed files; dnf remove takes them all, and leaves an
# unfinished migration's records, journal, undo cache and backups as they were.
if ! command -v dnf >/dev/null || ! command -v createrepo_c >/dev/null; then
  echo "(dnf or createrepo_c is missing: the RPM is not installed; apt-get install dnf createrepo-c)"
  exit 0
fi
export HOME=$work # rpm and dnf read ~/.rpmmacros: rpm's database in the root where the RHEL family keeps it
printf '%%_dbpath /var/lib/rpm\n' >"$HOME/.rpmmacros"
mirror=$work/rpm-mirror
python3 "$source_dir/tests/root/tools/make_rpms.py" "$mirror" "file://$mirror" \
  "$source_dir"/tests/root/graphs/rpm/rocky-9.txt "$source_dir"/tests/root/graphs/rpm/rocky-9-libraries.txt \
  >"$work/make_rpms.log" 2>&1 || fail "could not build the Rocky 9 repositories: $(tail -n 5 "$work/make_rpms.log")"
R=$work/rocky9
mkdir -p "$work/repos.d"
printf '[main]\ninstallonly_limit=3\nkeepcache=0\n' >"$work/dnf.conf"
printf '[baseos]\nname=BaseOS\nbaseurl=file://%s/rocky/9/BaseOS/x86_64/os/\ngpgcheck=0\n' "$mirror" >"$work/repos.d/baseos.repo"
root_dnf() { dnf -q --config="$work/dnf.conf" --noplugins --nogpgcheck --setopt=reposdir="$work/repos.d" \
  --installroot "$R" --releasever=9 -y "$@"; }
root_dnf install rocky-release >"$work/dnf.log" 2>&1 || fail "could not make the Rocky 9 root: $(tail -n 5 "$work/dnf.log")"
root_dnf install "$rpm_file" >>"$work/dnf.log" 2>&1 || fail "dnf install of the RPM failed: $(tail -n 10 "$work/dnf.log")"
rpm --root "$R" -q gpudoctor >/dev/null || fail "dnf did not install gpudoctor"
[[ -x $R/usr/bin/gpudoctor && -f $R/usr/share/gpudoctor/probes/sources.txt ]] || fail "the RPM's files are not in the root"
rpm --root "$R" -V gpudoctor >"$work/rpm-V.log" 2>&1 || fail "rpm -V: $(head -n 5 "$work/rpm-V.log")"
pulled=$(rpm --root "$R" -qa --qf '%{NAME}\n' | sort | paste -sd' ')
records=(/var/lib/gpudoctor/migration.json /var/log/gpudoctor/migrate-to-nvidia-0123abcd.journal
  /var/cache/gpudoctor/migrate-to-nvidia-0123abcd/outgoing/rocm-core-6.2.4-1.el9.x86_64.rpm
  /var/backups/gpudoctor/migrate-to-nvidia-0123abcd/20261201T090000Z-1/etc/environment)
for f in "${records[@]}"; do mkdir -p "$R$(dirname "$f")" && echo "record $f" >"$R$f"; done
rpm --root "$R" -ql gpudoctor >"$work/rpm-owned"
root_dnf remove gpudoctor >>"$work/dnf.log" 2>&1 || fail "dnf remove gpudoctor failed: $(tail -n 10 "$work/dnf.log")"
while read -r path; do
  [[ -e $R$path && ! -d $R$path ]] && fail "dnf remove left $path"
done <"$work/rpm-owned"
for f in "${records[@]}"; do
  [[ $(cat "$R$f" 2>/dev/null) == "record $f" ]] || fail "removing the RPM removed or changed $f"
done
pass "dnf installs the RPM into the Rocky 9 root with its Requires met (root: $pulled), rpm -V accepts it, dnf remove takes its files and leaves a migration's records"
