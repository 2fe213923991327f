#!/usr/bin/env bash
# The Debian package (docs/fleet.md): ./install.sh --deb builds gpudoctor_<version>_amd64.deb; its Depends
# (dpkg-shlibdeps over the gpudoctor binary) name neither the vendors' runtimes nor yaml-cpp or fmt (linked in);
# it holds the binary, the man page, the bash completion, the systemd units, the probe sources and the Slurm
# and NHC checks; `systemd-analyze verify` accepts its units. In a throwaway Debian 12 root (the debootstrap
# tarball fix_debootstrap.sh caches): `apt-get install ./gpudoctor_*.deb` installs it with its dependencies
# from the Debian archive, `gpudoctor check` runs there (and writes nothing but root's interpreter cache),
# `bundle` writes a bundle there that `check --from` reads, the timer's unit writes the
# history and, where node_exporter's folder exists, the textfile in one run (its ExecStart as installed, under
# the folders its StateDirectory= and ReadWritePaths= name), and `apt-get purge` removes every path the
# package installed (its own folders too) and nothing else: not the records, journals, backups and undo cache
# of a migration, nor the history.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/../e2e/common.bash"
# shellcheck source=tests/root/debian_root.bash
source "$(dirname "$0")/debian_root.bash"

deb=$(package_deb)
[[ $(basename "$deb") =~ ^gpudoctor_[0-9.]+_amd64\.deb$ ]] || fail "the package is named $(basename "$deb")"
depends=$(dpkg-deb --field "$deb" Depends)
[[ -n $depends ]] || fail "the package has no Depends (dpkg-shlibdeps did not run?)"
for lib in libamdhip64 libcudart libcuda libnvidia libhsa libyaml-cpp libfmt libasan; do
  [[ $depends == *"$lib"* ]] && fail "the package depends on $lib: $depends"
done
# libarchive and libcurl are opened when used (util/shared_library.hpp): named by hand, not by dpkg-shlibdeps.
[[ $depends == *"libarchive13 (>= "* ]] || fail "the package does not depend on libarchive13: $depends"
recommends=$(dpkg-deb --field "$deb" Recommends)
[[ $recommends == *"libcurl4 (>= "* ]] || fail "the package does not recommend libcurl4: $recommends"
pass "$(basename "$deb"): Depends: $depends; Recommends: $recommends"

# Installable on Debian 12 and 13 and Ubuntu 22.04 and 24.04: every clause met in each release by a package
# of that name or one that provides it, at or above its floor (tests/data/packaging/release_packages.txt).
releases_file=$source_dir/tests/data/packaging/release_packages.txt
met_in() { # met_in RELEASE "name (>= version)"
  local release=$1 clause=$2 name op floor
  name=${clause%% *}
  if [[ $clause =~ \(([<>=]+)\ ([^\)]+)\) ]]; then op=${BASH_REMATCH[1]} floor=${BASH_REMATCH[2]}; fi
  local rel package version provides
  while read -r rel package version provides; do
    [[ $rel == "$release" && ($package == "$name" || $provides == "$name") ]] || continue
    [[ -z ${op:-} ]] && return 0
    dpkg --compare-versions "$version" "$op" "$floor" && return 0
  done < <(grep -v '^#' "$releases_file")
  return 1
}
while IFS= read -r clause; do
  [[ -n $clause ]] || continue
  for release in jammy noble bookworm trixie; do
    met=0
    IFS='|' read -ra alternatives <<<"$clause"
    for alternative in "${alternatives[@]}"; do
      alternative=${alternative# } alternative=${alternative% }
      met_in "$release" "$alternative" && met=1
    done
    ((met)) || fail "'$clause' cannot be met in $release ($releases_file)"
  done
done <<<"${depends//, /$'\n'}"$'\n'"${recommends//, /$'\n'}"
pass "every clause of Depends and Recommends is met in jammy, noble, bookworm and trixie"

dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$work/contents"
for path in /usr/bin/gpudoctor /usr/share/man/man1/gpudoctor.1.gz \
  /usr/share/bash-completion/completions/gpudoctor /usr/lib/systemd/system/gpudoctor-metrics.service \
  /usr/lib/systemd/system/gpudoctor-metrics.timer /usr/lib/systemd/system/gpudoctor-probe.service \
  /usr/lib/systemd/system/gpudoctor-probe.timer /usr/share/gpudoctor/probes/sources.txt \
  /usr/libexec/gpudoctor/gpudoctor-slurm-healthcheck /usr/share/gpudoctor/nhc/gpudoctor_gpu.nhc \
  /usr/share/gpudoctor/grafana/gpudoctor-nodes.json \
  /usr/share/doc/gpudoctor/fleet.md; do
  grep -qx "$path" "$work/contents" || fail "the package lacks $path"
done
grep -q '^/usr/libexec/gpudoctor/gpudoctor-probe' "$work/contents" && fail "the package holds built probe programs"
pass "the package holds the binary, man page, completion, units, probe sources, Slurm and NHC checks"

# lintian: no error, no warning and no info tag (what is so on purpose is overridden in the package, with its
# reason: contrib/debian/gpudoctor.lintian-overrides); its hardening tags stand for hardening-check (Fortify
# Source functions, immediate binding); the copyright file and the changelog are there (docs/packaging.md).
if command -v lintian >/dev/null; then
  lintian_out=$(timeout 300 lintian --fail-on error,warning,info --display-info "$deb" 2>&1) ||
    fail "lintian reports errors, warnings or info tags: $lintian_out"
  pass "lintian: no error, no warning, no info tag"
else
  echo "(lintian is missing: the package is not judged by it; apt-get install lintian)"
fi

# The units as systemd reads them, in the package's own tree (no systemd runs here): the targets they name
# from this machine's systemd, the binary and the man page (Documentation=man:gpudoctor(1)) from the package.
dpkg-deb -x "$deb" "$work/pkg"
dynamic=$(readelf -d "$work/pkg/usr/bin/gpudoctor")
[[ $dynamic == *BIND_NOW* ]] || fail "the packaged binary is not linked with -z now"
[[ $dynamic == *libarchive.so* || $dynamic == *libcurl.so* ]] &&
  fail "the packaged binary links libarchive or libcurl at start: $(grep NEEDED <<<"$dynamic")"
if command -v systemd-analyze >/dev/null && [[ -d /usr/lib/systemd/system || -d /lib/systemd/system ]]; then
  units=$work/pkg/usr/lib/systemd/system
  for dir in /usr/lib/systemd/system /lib/systemd/system; do
    [[ -d $dir ]] && cp -rn "$dir/." "$units/" 2>/dev/null
  done
  verify=$(MANPATH=$work/pkg/usr/share/man systemd-analyze verify --root="$work/pkg" \
    "$units/gpudoctor-metrics.service" "$units/gpudoctor-metrics.timer" "$units/gpudoctor-probe.service" \
    "$units/gpudoctor-probe.timer" 2>&1) ||
    fail "systemd-analyze verify rejects the units: $verify"
  [[ -z $verify ]] || fail "systemd-analyze verify has remarks on the units: $verify"
  pass "systemd-analyze verify accepts gpudoctor-metrics and gpudoctor-probe .service and .timer (binary and man page found)"
  echo "systemd-analyze security: $(systemd-analyze security --offline=true --root="$work/pkg" \
    "$units/gpudoctor-metrics.service" 2>&1 | tail -n 1)"
else
  echo "(systemd-analyze or systemd's units are missing: the units are not verified; apt-get install systemd)"
fi
zgrep -q -- '--max-output-length' "$work/pkg/usr/share/man/man1/gpudoctor.1.gz" ||
  fail "the man page does not describe the subcommands' options"

# ---- a throwaway Debian 12 --------------------------------------------------------------------------------
root=$work/root
new_root "$root"
# Every file, link and folder of the root but apt's and dpkg's own state and logs.
tree() { (cd "$1" && find . -xdev \( -path ./var/cache/apt -o -path ./var/lib/apt -o -path ./var/lib/dpkg \
  -o -path ./var/log -o -path ./tmp -o -path ./etc/resolv.conf -o -path ./etc/ld.so.cache \) -prune -o \
  -printf '%p\n' | sed 's|^\.||' | sort); }
mkdir -p "$root/tmp/gd" && cp "$deb" "$root/tmp/gd/"
root_apt "$root" install "/tmp/gd/$(basename "$deb")" ||
  fail "apt-get install ./$(basename "$deb") failed in Debian 12: $(tail -n 5 "$work/apt.log")"
# shellcheck disable=SC2016 # dpkg-query's format
[[ $(in_root "$root" dpkg-query -W -f='${Status}' gpudoctor) == 'install ok installed' ]] || fail "not installed"
in_root "$root" dpkg -L gpudoctor >"$work/installed"
pass "apt-get install ./$(basename "$deb") in Debian 12 installed it with: $(grep -oE '^(Setting up|Unpacking) [^ ]+' "$work/apt.log" | awk '{print $3}' | sort -u | paste -sd' ')"

# An unfinished migration's records (docs/fixes.md, "The undo cache's lifetime"): purging gpudoctor's own
# package must leave them, or the migration could never be resumed or undone.
records=(/var/lib/gpudoctor/migration.json /var/log/gpudoctor/migrate-to-nvidia-0123abcd.journal
  /var/cache/gpudoctor/migrate-to-nvidia-0123abcd/outgoing/rocm-core_6.2.4_amd64.deb
  /var/backups/gpudoctor/migrate-to-nvidia-0123abcd/20261201T090000Z-1/etc/environment)
for f in "${records[@]}"; do
  mkdir -p "$root$(dirname "$f")"
  echo "record $f" >"$root$f"
done
tree "$root" >"$work/installed-tree"
status=0
in_root "$root" gpudoctor check --format json >"$work/report.json" 2>"$work/check.err" || status=$?
((status <= 1)) || fail "gpudoctor check exited $status in the root: $(head -c 400 "$work/check.err")"
expect "$work/report.json" "r['format'] == 'gpudoctor-report' and len(r['results']) > 20 and r['facts']['os']['id']['value'] == 'debian'" \
  "gpudoctor check runs in the root and knows it is Debian"
[[ $(in_root "$root" gpudoctor --version) == "gpudoctor "* ]] || fail "gpudoctor --version"
tree "$root" >"$work/checked-tree"
# Nothing but what the interpreters said of themselves (docs/architecture.md, "Interpreter answers
# remembered"): root's cache, 0700, its records 0600.
comm -13 "$work/installed-tree" "$work/checked-tree" >"$work/written"
grep -vE '^/var/cache/gpudoctor/interpreters(/[0-9a-f]{32}\.json)?$' "$work/written" >"$work/written-else" || true
comm -23 "$work/installed-tree" "$work/checked-tree" >>"$work/written-else"
[[ ! -s $work/written-else ]] ||
  fail "gpudoctor check changed files in the root: $(head -n 10 "$work/written-else" | tr '\n' ' ')"
grep -q '\.json$' "$work/written" || fail "gpudoctor check remembered no interpreter in the root"
[[ $(stat -c '%U %a' "$root/var/cache/gpudoctor/interpreters") == "root 700" ]] ||
  fail "the interpreter cache is $(stat -c '%U %a' "$root/var/cache/gpudoctor/interpreters")"
[[ -z $(find "$root/var/cache/gpudoctor/interpreters" -type f ! -perm 0600) ]] || fail "a cache record is not 0600"
# A bundle, written and read back there: libarchive, opened when first used, comes from the package's Depends.
in_root "$root" gpudoctor bundle -o /tmp/gd/bundle.tar.gz >/dev/null 2>"$work/bundle.err" ||
  fail "gpudoctor bundle failed in the root: $(head -c 400 "$work/bundle.err")"
status=0
in_root "$root" gpudoctor check --from /tmp/gd/bundle.tar.gz --format json >"$work/replayed.json" 2>&1 || status=$?
((status <= 1)) || fail "gpudoctor check --from the bundle exited $status in the root: $(head -c 400 "$work/replayed.json")"
pass "gpudoctor bundle writes a bundle in the root, and check --from reads it there"

# The timer's unit as installed: one run keeps the report in the history, with or without node_exporter.
unit=$root/usr/lib/systemd/system/gpudoctor-metrics.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
[[ $exec_start == /usr/bin/gpudoctor\ check\ --history\ --textfile\ * ]] || fail "the unit runs $exec_start"
for line in StateDirectory=gpudoctor StateDirectoryMode=0700; do
  grep -qx "$line" "$unit" || fail "the unit lacks $line (/var/lib/gpudoctor, root's, 0700)"
done
grep -q '^ConditionPathIsDirectory' "$unit" && fail "the unit still needs node_exporter's folder to run"
textfile=$(sed -n 's/.*--textfile \([^ ]*\).*/\1/p' <<<"$exec_start")
run_unit() { # systemd would make the state folder; ExecStart runs with no terminal, stdout discarded
  mkdir -p "$root/var/lib/gpudoctor" && chmod 0700 "$root/var/lib/gpudoctor"
  local status=0
  # shellcheck disable=SC2086 # ExecStart's words, as systemd splits them (no quotes in it)
  in_root "$root" $exec_start >/dev/null 2>"$work/unit.err" </dev/null || status=$?
  ((status <= 1)) || fail "the unit's command exited $status: $(head -c 400 "$work/unit.err")"
}
run_unit
[[ $(find "$root/var/lib/gpudoctor/history" -name '*.json' | wc -l) == 1 ]] ||
  fail "without node_exporter the unit kept no report: $(ls -la "$root/var/lib/gpudoctor/history" 2>&1)"
[[ ! -e $root$textfile && ! -e $root$(dirname "$textfile") ]] || fail "without node_exporter the unit made $textfile"
mkdir -p "$root$(dirname "$textfile")"
run_unit
[[ $(find "$root/var/lib/gpudoctor/history" -name '*.json' | wc -l) == 2 && -s $root$textfile ]] ||
  fail "with node_exporter's folder one run did not write both the history and $textfile"
[[ $(stat -c %a "$root/var/lib/gpudoctor/history") == 700 && $(stat -c %a "$root$textfile") == 644 ]] ||
  fail "modes: history $(stat -c %a "$root/var/lib/gpudoctor/history"), textfile $(stat -c %a "$root$textfile")"
[[ $(find "$root/var/lib/gpudoctor/history" -name '*.json' -perm 0600 | wc -l) == 2 ]] || fail "kept reports not 0600"
listed=$(in_root "$root" gpudoctor history 2>&1) || fail "gpudoctor history in the root failed: $listed"
[[ $listed == *"2 reports"* ]] || fail "gpudoctor history in the root: $listed"
pass "the unit's command keeps the report (0600 in a 0700 folder) without node_exporter, and writes the textfile (0644) beside it with one"
tree "$root" >"$work/checked-tree"

# assert_purged ROOT LIST RELEASE: no file the package had (dpkg -L, in LIST) is left in ROOT after the purge;
# folders others share (/usr/bin) stay.
assert_purged() {
  local path
  while read -r path; do
    [[ -e $1$path || -L $1$path ]] || continue
    [[ -d $1$path && ! -L $1$path ]] && continue
    fail "apt-get purge left $path in $3"
  done <"$2"
}

# Purged, the root lacks exactly the package's files and the folders only it had; nothing else changed.
root_apt "$root" purge gpudoctor || fail "apt-get purge gpudoctor failed"
tree "$root" >"$work/purged-tree"
comm -13 "$work/checked-tree" "$work/purged-tree" >"$work/appeared"
[[ ! -s $work/appeared ]] || fail "the purge added $(head -n 10 "$work/appeared" | tr '\n' ' ')"
comm -23 "$work/checked-tree" "$work/purged-tree" >"$work/removed"
sort -u "$work/installed" | grep -vx '/\.' >"$work/owned"
comm -23 "$work/removed" "$work/owned" >"$work/removed-not-owned"
[[ ! -s $work/removed-not-owned ]] || fail "the purge removed what was not the package's: $(head -n 10 "$work/removed-not-owned" | tr '\n' ' ')"
assert_purged "$root" "$work/owned" "Debian 12"
for dir in /usr/share/gpudoctor /usr/libexec/gpudoctor /usr/share/doc/gpudoctor; do
  [[ ! -e $root$dir ]] || fail "apt-get purge left the folder $dir"
done
for f in "${records[@]}"; do
  [[ $(cat "$root$f" 2>/dev/null) == "record $f" ]] || fail "apt-get purge gpudoctor removed or changed $f"
done
[[ $(find "$root/var/lib/gpudoctor/history" -name '*.json' | wc -l) == 2 ]] || fail "apt-get purge removed the history"
pass "apt-get purge removed all $(grep -c . "$work/removed") paths the package installed (its folders too), nothing else: a migration's records, journal, cache and backups stay"
root_apt "$root" autoremove --purge || fail "apt-get autoremove --purge failed"

# ---- a throwaway Debian 13 (trixie) -----------------------------------------------------------------------
# The same package where libarchive13 and libcurl4 are trixie's t64 packages (libarchive13t64 provides
# libarchive13): apt installs it with its Depends met, check and bundle run, and a purge leaves none of it.
root_suite=trixie
troot=$work/trixie
new_root "$troot"
mkdir -p "$troot/tmp/gd" && cp "$deb" "$troot/tmp/gd/"
root_apt "$troot" install "/tmp/gd/$(basename "$deb")" ||
  fail "apt-get install ./$(basename "$deb") failed in Debian 13: $(tail -n 5 "$work/apt.log")"
# shellcheck disable=SC2016 # dpkg-query's format
[[ $(in_root "$troot" dpkg-query -W -f='${Status}' gpudoctor) == 'install ok installed' ]] || fail "not installed in Debian 13"
grep -q 'Setting up libarchive13t64' "$work/apt.log" || fail "apt did not meet libarchive13 with trixie's libarchive13t64"
in_root "$troot" dpkg -L gpudoctor >"$work/installed-trixie"
status=0
in_root "$troot" gpudoctor check --format json >"$work/report-trixie.json" 2>"$work/check-trixie.err" || status=$?
((status <= 1)) || fail "gpudoctor check exited $status in Debian 13: $(head -c 400 "$work/check-trixie.err")"
expect "$work/report-trixie.json" "r['facts']['os']['id']['value'] == 'debian' and r['facts']['os']['version_id']['value'] == '13'" \
  "gpudoctor check runs in Debian 13 and knows it is Debian 13"
in_root "$troot" gpudoctor bundle -o /tmp/gd/bundle.tar.gz >/dev/null 2>"$work/bundle-trixie.err" ||
  fail "gpudoctor bundle failed in Debian 13: $(head -c 400 "$work/bundle-trixie.err")"
status=0
in_root "$troot" gpudoctor check --from /tmp/gd/bundle.tar.gz --format json >/dev/null 2>"$work/replay-trixie.err" || status=$?
((status <= 1)) || fail "check --from the bundle exited $status in Debian 13: $(head -c 400 "$work/replay-trixie.err")"
root_apt "$troot" purge gpudoctor || fail "apt-get purge gpudoctor failed in Debian 13"
assert_purged "$troot" "$work/installed-trixie" "Debian 13"
pass "Debian 13: apt-get install met the Depends with trixie's packages, check and bundle ran, the purge left none of it"
root_suite=bookworm
