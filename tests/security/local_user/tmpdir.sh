#!/usr/bin/env bash
# Root's temporary folders are never made where another user can change them (docs/security.md, "Writing as
# root"). With TMPDIR a folder the account owns, or one it may write that has no sticky bit, the account can
# rename root's staging folder away and put a link to its own folder in its place: root then wrote the
# bundle's snapshot into the account's folder. As root, such a TMPDIR is refused, naming it and why, by every
# subcommand that makes a temporary folder (bundle's staging; check, probe, fix, migrate, fleet and diff
# unpacking an archive); a root-owned sticky TMPDIR (/tmp) and a folder of root's still serve.
# shellcheck source=tests/security/local_user/common.bash
source "$(dirname "$0")/common.bash" "$@"

theirs=$lu_home/tmp # the account's own folder
open=$work/open-tmp # root's, but anyone may write it and it has no sticky bit
stolen=$lu_home/stolen
mkdir -p "$theirs" "$open" "$stolen"
chown "$lu_uid" "$theirs" "$stolen"
chmod 0777 "$open" "$stolen"

# The account, for at most 90 s: every folder gpudoctor makes in either TMPDIR is exchanged, in one step
# (renameat2 RENAME_EXCHANGE), with a link to the account's folder; root's folder is put aside as NAME.taken.
as_user "$py" - "$theirs" "$open" "$stolen" <<'PY' &
import ctypes, glob, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
*tmpdirs, stolen = sys.argv[1:]
end = time.time() + 90
while time.time() < end:
    for d in (d for t in tmpdirs for d in glob.glob(t + "/gpudoctor-*")):
        if d.endswith((".taken", ".link")) or os.path.islink(d) or not os.path.isdir(d):
            continue
        link = d + ".link"
        try:
            os.symlink(stolen, link)
        except FileExistsError:
            pass
        if libc.renameat2(AT_FDCWD, link.encode(), AT_FDCWD, d.encode(), RENAME_EXCHANGE) == 0:
            os.rename(link, d + ".taken")
PY
swapper=$!

snap=$source_dir/tests/machines/nvidia-rtx3090-healthy/snapshot
tar -czf "$work/snap.tar.gz" -C "$snap" .
"$gpudoctor" check --from "$snap" --format json >"$work/r.json" 2>/dev/null || true

roots_files() { find "$lu_home" "$open" -uid 0 ! -path "$lu_home" ! -path "$open" -printf '%P\n' 2>/dev/null | sort; }

for tmpdir in "$theirs" "$open"; do
  for run in "bundle -o $work/b.tar.gz" "check --from $work/snap.tar.gz" "probe --from $work/snap.tar.gz" \
    "fix --from $work/snap.tar.gz" "migrate --to amd --from $work/snap.tar.gz" \
    "fleet $work/snap.tar.gz $work/r.json" "diff $work/snap.tar.gz $work/r.json"; do
    status=0
    # shellcheck disable=SC2086 # the words of the run
    TMPDIR=$tmpdir timeout -s KILL 300 "$gpudoctor" $run >"$work/out" 2>"$work/err" </dev/null || status=$?
    landed=$(roots_files)
    [[ -z $landed ]] ||
      fail "$run, TMPDIR=$tmpdir: root's files landed where $lu_user can change them (exit $status): $(wc -l <<<"$landed") files: $(sed -n 1,4p <<<"$landed" | paste -sd' ')"
    if [[ $status != 2 ]] || ! grep -q "TMPDIR ${tmpdir}[ :].*: as root, gpudoctor makes its temporary folders only where no other user can change them" "$work/err" "$work/out"; then
      fail "$run, TMPDIR=$tmpdir: exit $status, not refused naming TMPDIR: $(head -c 300 "$work/err")"
    fi
    pass "$run, TMPDIR=$tmpdir: refused: $(head -n1 "$work/err" | cut -c1-150)"
  done
done
kill "$swapper" 2>/dev/null || true
wait "$swapper" 2>/dev/null || true
no_canary "TMPDIR"

# Root's own folders still serve: a sticky, root-owned one (as /tmp) and a folder of root's.
sticky=$work/sticky
mkdir -m 1777 "$sticky"
mkdir -m 0700 "$work/roots-tmp"
for tmpdir in "$sticky" "$work/roots-tmp"; do
  status=0
  TMPDIR=$tmpdir "$gpudoctor" check --from "$work/snap.tar.gz" >/dev/null 2>"$work/err" || status=$?
  ((status <= 1)) || fail "check --from an archive with TMPDIR=$tmpdir: exit $status: $(head -c 300 "$work/err")"
  [[ -z $(ls -A "$tmpdir") ]] || fail "TMPDIR=$tmpdir: left $(ls -A "$tmpdir")"
done
pass "a sticky, root-owned TMPDIR and a folder of root's still serve, and are left empty"
