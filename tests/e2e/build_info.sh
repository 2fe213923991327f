#!/usr/bin/env bash
# Provenance (issue 35, item 5): `gpudoctor --version` names the version, the commit and the build date, and
# cmake/build_info.cmake takes them from SOURCE_DATE_EPOCH, git or neither, rewriting its file only when
# they change (a new commit recompiles one file).
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

command -v cmake >/dev/null || skip "no cmake"
shape='^gpudoctor [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-dirty)?|unknown), built ([0-9]{4}-[0-9]{2}-[0-9]{2}|unknown)\)$'
version=$("$gpudoctor" --version) || fail "gpudoctor --version exited $?"
[[ $version =~ $shape ]] || fail "gpudoctor --version says \"$version\""
pass "gpudoctor --version: $version"

script=$source_dir/cmake/build_info.cmake
info() { # SOURCE_DIR OUT [SOURCE_DATE_EPOCH]: runs the script, prints the commit and date it wrote
  local dir=$1 out=$2
  if (($# > 2)); then
    SOURCE_DATE_EPOCH=$3 cmake -DOUT="$out" -DSOURCE_DIR="$dir" -DVERSION=9.8.7 -P "$script" >/dev/null
  else
    env -u SOURCE_DATE_EPOCH cmake -DOUT="$out" -DSOURCE_DIR="$dir" -DVERSION=9.8.7 -P "$script" >/dev/null
  fi || fail "build_info.cmake failed for $dir"
  sed -n 's/^const char\* const \(commit\|date\) = "\(.*\)";$/\2/p' "$out" | paste -sd' '
}

# A source tarball: no git.
mkdir -p "$work/tarball"
[[ $(info "$work/tarball" "$work/a.cpp") == "unknown unknown" ]] || fail "without git: $(cat "$work/a.cpp")"
grep -qF 'const char* const version = "9.8.7";' "$work/a.cpp" || fail "the version is not written"
[[ $(info "$work/tarball" "$work/b.cpp" 86400) == "unknown 1970-01-02" ]] || fail "SOURCE_DATE_EPOCH is not the date"
pass "outside git: commit unknown; the date is SOURCE_DATE_EPOCH's, else unknown"

if command -v git >/dev/null; then
  repo=$work/repo
  git init -q "$repo"
  printf 'x\n' >"$repo/f"
  git -C "$repo" add f
  GIT_COMMITTER_DATE='2026-11-30T23:30:00Z' GIT_AUTHOR_DATE='2026-11-30T23:30:00Z' \
    git -C "$repo" -c user.name=t -c user.email=t@example.invalid commit -qm one
  head=$(git -C "$repo" rev-parse --short=12 HEAD)
  [[ $(info "$repo" "$work/c.cpp") == "$head 2026-11-30" ]] || fail "in git: $(cat "$work/c.cpp")"
  [[ $(info "$repo" "$work/c.cpp" 0) == "$head 1970-01-01" ]] || fail "SOURCE_DATE_EPOCH does not win over the commit's date"
  # Unchanged: the file is left alone (its mtime stays), so nothing is recompiled.
  info "$repo" "$work/c.cpp" >/dev/null
  touch -d '2000-01-01' "$work/c.cpp"
  info "$repo" "$work/c.cpp" >/dev/null
  [[ $(stat -c %Y "$work/c.cpp") == $(date -d '2000-01-01' +%s) ]] || fail "an unchanged build_info.cpp was rewritten"
  printf 'y\n' >"$repo/f"
  [[ $(info "$repo" "$work/c.cpp") == "$head-dirty 2026-11-30" ]] || fail "an edited tree is not -dirty: $(cat "$work/c.cpp")"
  pass "in git: the commit, -dirty for an edited tree, the commit's date; rewritten only on a change"
fi
