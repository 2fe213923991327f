#!/usr/bin/env bash
# Bad input gets a clear message and exit status 2; an untrusted bundle never writes outside its folder.
source "$(dirname "$0")/common.bash"
expect_status() {
  local want=$1 what=$2; shift 2
  local status=0
  "$@" >"$work/out" 2>"$work/err" || status=$?
  [[ $status == "$want" ]] || fail "$what: exit $status, not $want ($(cat "$work/err"))"
  pass "$what: exit $want: $(head -c 160 "$work/err")"
}
expect_status 2 "unknown flag" "$gpudoctor" check --no-such-flag
expect_status 2 "missing snapshot" "$gpudoctor" check --from "$work/nothing-here"
mkdir "$work/empty"
expect_status 2 "folder without manifest" "$gpudoctor" check --from "$work/empty"
grep -q "manifest" "$work/err" || fail "the message does not mention the manifest"
mkdir "$work/foreign"
echo '{"format": "something-else", "version": 1}' >"$work/foreign/manifest.json"
expect_status 2 "foreign snapshot format" "$gpudoctor" check --from "$work/foreign"
mkdir "$work/future"
echo '{"format": "gpudoctor-snapshot", "version": 99}' >"$work/future/manifest.json"
expect_status 2 "newer snapshot version" "$gpudoctor" check --from "$work/future"
grep -q "newer" "$work/err" || fail "the message does not say the format is newer"
mkdir "$work/badjson"
echo '{"format": "gpudoctor-snapshot", "version": 1}' >"$work/badjson/manifest.json"
echo '{not json' >"$work/badjson/env.json"
expect_status 2 "malformed env.json" "$gpudoctor" check --from "$work/badjson"
echo 'garbage' >"$work/garbage.tar.gz"
expect_status 2 "an archive that is not one" "$gpudoctor" check --from "$work/garbage.tar.gz"
# A real bundle damaged in transit: one bit of its gzip CRC-32, then one of its length (the last 8 bytes).
"$gpudoctor" bundle -o "$work/whole.tar.gz" >/dev/null 2>&1 || fail "bundle failed"
status=0
"$gpudoctor" check --from "$work/whole.tar.gz" --format json >/dev/null 2>"$work/err" || status=$?
[[ $status == 0 || $status == 1 ]] || fail "the whole bundle: exit $status: $(head -c 300 "$work/err")"
for from_end in 8 1; do
  cp "$work/whole.tar.gz" "$work/damaged.tar.gz"
  "$py" -c '
import sys
path, back = sys.argv[1], int(sys.argv[2])
data = bytearray(open(path, "rb").read())
data[-back] ^= 1
open(path, "wb").write(data)' "$work/damaged.tar.gz" "$from_end"
  expect_status 2 "a bundle with a damaged gzip trailer ($from_end from the end)" \
    "$gpudoctor" check --from "$work/damaged.tar.gz"
  grep -q "incorrect .* check" "$work/err" || fail "the message does not say which check failed"
done
expect_status 2 "unknown check id" "$gpudoctor" check --only no.such-check
expect_status 2 "explain of an unknown id" "$gpudoctor" explain no.such-check
# -i/--gpus names a GPU the machine has, or is refused naming those it has; fix and migrate have no -i.
eight="$source_dir/tests/machines/nvidia-8gpu-nccl-misconfigured/snapshot"
expect_status 2 "check -i of a GPU not there" "$gpudoctor" check --from "$eight" -i 9
grep -q 'no GPU "9": the GPUs here are gpu0 (0000:8d:00.0)' "$work/err" || fail "-i 9 does not list the GPUs"
expect_status 2 "probe --gpus of a word that is no GPU" "$gpudoctor" probe --from "$eight" --gpus fastest
expect_status 2 "fix takes no -i" "$gpudoctor" fix --from "$eight" -i 0
status=0
"$gpudoctor" check --from "$eight" -i 2 --format json >"$work/out" 2>"$work/err" || status=$?
[[ $status == 1 ]] || fail "check -i 2: exit $status, not 1 (the machine-wide NCCL errors stay)"
"$py" -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["selection"]["gpus"] == ["gpu2 (0000:95:00.0)"], r["selection"]
subjects = {x["subject"] for x in r["results"] if x["subject"].startswith("gpu")}
assert subjects == {"gpu2 (0000:95:00.0)"}, subjects
' "$work/out" || fail "check -i 2 --format json: results of other GPUs, or no selection"
pass "check -i 2: the per-GPU results are gpu2's, the report says so"
expect_status 0 "explain of a known id" "$gpudoctor" explain env.hsa-override-mismatch
grep -q "Why it matters" "$work/out" || fail "explain says nothing about why"
expect_status 0 "check --list" "$gpudoctor" check --list
[[ $(grep -c . "$work/out") -ge 20 ]] || fail "check --list lists fewer than 20 checks"

# A hostile archive: members with "..", an absolute name, a symlink pointing out and a file written through it.
"$py" - "$work/evil.tar.gz" <<'PY'
import io, sys, tarfile
def add(t, name, data=b"x", kind=tarfile.REGTYPE, link=""):
    info = tarfile.TarInfo(name); info.type = kind; info.linkname = link; info.size = len(data) if kind == tarfile.REGTYPE else 0
    t.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)
with tarfile.open(sys.argv[1], "w:gz") as t:
    add(t, "manifest.json", b'{"format": "gpudoctor-snapshot", "version": 1}')
    add(t, "../escaped-by-dotdot")
PY
expect_status 2 "an archive member with .." "$gpudoctor" check --from "$work/evil.tar.gz"
[[ ! -e $work/escaped-by-dotdot && ! -e /tmp/escaped-by-dotdot ]] || fail "a member was written outside"
"$py" - "$work/evil2.tar.gz" "$work/outside" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz") as t:
    m = tarfile.TarInfo("manifest.json"); d = b'{"format": "gpudoctor-snapshot", "version": 1}'; m.size = len(d); t.addfile(m, io.BytesIO(d))
    l = tarfile.TarInfo("fs"); l.type = tarfile.SYMTYPE; l.linkname = sys.argv[2]; t.addfile(l)
    f = tarfile.TarInfo("fs/planted"); f.size = 1; t.addfile(f, io.BytesIO(b"x"))
PY
mkdir "$work/outside"
status=0
"$gpudoctor" check --from "$work/evil2.tar.gz" >/dev/null 2>&1 || status=$?
[[ $status == 2 ]] || fail "an archive writing through a symlink: exit $status, not 2"
[[ ! -e $work/outside/planted ]] || fail "a file was written through a symlink outside the folder"
pass "writing through a symlink is refused"
