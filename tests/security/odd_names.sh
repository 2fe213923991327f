#!/usr/bin/env bash
# Recording survives odd names (docs/security.md): file names that are not UTF-8, or hold a newline or an
# escape sequence, in a folder the recorder lists (here the user's site-packages, which python3 puts on
# sys.path from $HOME) are recorded as they are; the bundle is complete and `check --from` it works.
source "$(dirname "$0")/../e2e/common.bash"

pyver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
home=$work/home
site=$home/.local/lib/python$pyver/site-packages
mkdir -p "$site"
names=(
  $'bad\xff\xfename.pth'             # not UTF-8 (a .pth file: read, too)
  $'pkg\xe9-1.0.dist-info'           # Latin-1, a distribution folder
  $'new\nline-2.0.dist-info'         # a newline
  $'esc\e[31mred-3.0.dist-info'      # an escape sequence
  "$(printf 'x%.0s' {1..240})-4.0.dist-info" # a long name (over tar's 100 bytes)
)
for name in "${names[@]}"; do
  if [[ $name == *.dist-info ]]; then mkdir "$site/$name"; else : >"$site/$name"; fi
done
# The user's site folder is on python3's sys.path only when HOME says so and user site is enabled.
HOME=$home "$py" -c 'import site, sys; sys.exit(0 if site.ENABLE_USER_SITE else 1)' ||
  skip "python3 has no user site folder here"

status=0
HOME=$home "$gpudoctor" bundle -o "$work/bundle.tar.gz" >"$work/out" 2>"$work/err" || status=$?
[[ $status == 0 ]] || fail "bundle failed with odd names (exit $status): $(cat "$work/err")"
grep -q "judges differently" "$work/err" && fail "the recorded snapshot judges differently: $(cat "$work/err")"
gzip -t "$work/bundle.tar.gz" || fail "the bundle is not a complete gzip file"
pass "bundle with odd names: exit 0, a complete archive, the replay judges as the live run"

# Every odd name is in the archive, as it was.
mkdir "$work/unpacked"
tar -xzf "$work/bundle.tar.gz" -C "$work/unpacked"
for name in "${names[@]}"; do
  [[ -e $work/unpacked/fs$site/$name ]] || fail "$(printf '%q' "$name") is not in the bundle"
done
pass "the odd names are recorded as they are"

status=0
"$gpudoctor" check --from "$work/bundle.tar.gz" --format json >"$work/replay.json" 2>"$work/err" || status=$?
[[ $status == 0 || $status == 1 ]] || fail "check --from the bundle: exit $status: $(cat "$work/err")"
expect "$work/replay.json" \
  "any(d.startswith('esc') for e in r['facts']['python']['interpreters'] for d in e.get('distributions') or [])" \
  "the replay sees the distributions whose folder names are odd"
if grep -q $'\e' "$work/replay.json"; then fail "an escape sequence from a file name reached the JSON report raw"; fi
pass "check --from the bundle works"
