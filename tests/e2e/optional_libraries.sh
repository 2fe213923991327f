#!/usr/bin/env bash
# libarchive and libcurl are opened when a command first needs them (util/shared_library): `check` and
# `--version` start without them; where one cannot be loaded, the command that needs it says so in one
# sentence naming the package (bundle before it records anything, --upload after the bundle is written,
# check --from a bundle), instead of every start failing in the dynamic loader. The machine's real library is
# hidden in a private mount namespace (an empty file bound over it), so nothing outside this test changes.
# shellcheck source-path=SCRIPTDIR source=common.bash
source "$(dirname "$0")/common.bash"
if [[ $(id -u) != 0 ]] || ! unshare --mount --propagation private -- true 2>/dev/null; then
  skip "needs root and unshare (a private mount namespace)"
fi
readelf -d "$gpudoctor" >"$work/dynamic"
grep -qE 'NEEDED.*(libarchive|libcurl)' "$work/dynamic" && fail "gpudoctor links libarchive or libcurl at start"
pass "neither libarchive nor libcurl is in gpudoctor's NEEDED"

# The real files behind the sonames, as the loader's cache names them.
ldconfig -p >"$work/ld.so.cache.txt"
real_of() { readlink -f "$(awk -v lib="$1" '$1 == lib && /x86-64/ && !seen {print $NF; seen = 1}' "$work/ld.so.cache.txt")"; }
archive=$(real_of libarchive.so.13)
curl=$(real_of libcurl.so.4)
[[ -f $archive && -f $curl ]] || skip "libarchive.so.13 or libcurl.so.4 is not installed here"
: >"$work/empty"
# Runs "$@" with both libraries hidden; its stdout and stderr go to $work/out and $work/err.
without() {
  # shellcheck disable=SC2016 # the inner bash expands them
  unshare --mount --propagation private -- bash -c '
    mount --bind "$1" "$2" && mount --bind "$1" "$3" && shift 3 && exec "$@"' _ \
    "$work/empty" "$archive" "$curl" "$@" >"$work/out" 2>"$work/err"
}

status=0
without "$gpudoctor" check --format json || status=$?
((status <= 1)) || fail "check without libarchive and libcurl exited $status: $(head -c 300 "$work/err")"
expect "$work/out" "r['format'] == 'gpudoctor-report' and len(r['results']) > 20" \
  "check runs without libarchive and libcurl"

status=0
without "$gpudoctor" bundle -o "$work/b.tar.gz" || status=$?
[[ $status == 3 ]] || fail "bundle without libarchive exited $status (want 3): $(head -c 300 "$work/err")"
[[ $(wc -l <"$work/err") == 1 ]] || fail "bundle said more than one line: $(cat "$work/err")"
grep -qE '^gpudoctor: .*needs libarchive\.so\.13.*install libarchive13' "$work/err" || fail "bundle said: $(cat "$work/err")"
[[ ! -e $work/b.tar.gz ]] || fail "bundle without libarchive left $work/b.tar.gz"
pass "bundle without libarchive: exit 3 before recording, naming the package"

"$gpudoctor" bundle -o "$work/good.tar.gz" >/dev/null 2>&1 || fail "bundle with libarchive failed"
status=0
without "$gpudoctor" check --from "$work/good.tar.gz" --format json || status=$?
[[ $status == 2 ]] || fail "check --from a bundle without libarchive exited $status (want 2)"
grep -q 'needs libarchive.so.13' "$work/err" || fail "check --from said: $(cat "$work/err")"
pass "check --from a bundle without libarchive: exit 2, naming the library"

# libcurl alone hidden: the bundle is written, the upload says what to install (exit 4: upload failed).
status=0
# shellcheck disable=SC2016 # the inner bash expands them
unshare --mount --propagation private -- bash -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' _ \
  "$work/empty" "$curl" "$gpudoctor" bundle -o "$work/up.tar.gz" --upload https://127.0.0.1:9/x \
  >"$work/out" 2>"$work/err" || status=$?
[[ $status == 4 ]] || fail "bundle --upload without libcurl exited $status (want 4): $(head -c 300 "$work/err")"
grep -q 'needs libcurl.so.4.*install libcurl4' "$work/err" || fail "--upload said: $(cat "$work/err")"
[[ -s $work/up.tar.gz ]] || fail "the bundle was not kept when the upload could not start"
pass "bundle --upload without libcurl: the bundle is kept, exit 4, naming the package"
