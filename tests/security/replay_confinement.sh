#!/usr/bin/env bash
# Replay reads only the snapshot (docs/security.md, "Reading nothing outside"): a bundle whose fs/, a folder
# below it, or cmd/ is a symlink leaving the snapshot, and path-valued variables (NCCL_CONF_FILE) pointing at
# the analyst's files, never make gpudoctor read a file of the machine it runs on. The canary is a file
# outside the snapshot whose unique value would show in the report if it were read.
source "$(dirname "$0")/../e2e/common.bash"

canary_value="canary$RANDOM$RANDOM"
outside=$work/outside
mkdir -p "$outside/etc" "$outside/cmd"
printf 'NCCL_SOCKET_IFNAME=%s\n' "$canary_value" >"$outside/canary.conf"
printf 'NCCL_SOCKET_IFNAME=%s\n' "$canary_value" >"$outside/etc/nccl.conf"
printf '%s\n' "$canary_value" >"$outside/cmd/0-uname.out"

# A snapshot at $1 whose environment points NCCL_CONF_FILE at the canary (an absolute path of this machine).
new_snapshot() {
  local dir=$1
  mkdir -p "$dir"
  printf '{"format": "gpudoctor-snapshot", "version": 1, "origin": "fixture"}\n' >"$dir/manifest.json"
  printf '{"NCCL_CONF_FILE": "%s", "HOME": "/root"}\n' "$outside/canary.conf" >"$dir/env.json"
}

# Replays $1; fails when the canary reaches the report or gpudoctor crashes. A refusal (exit 2) is fine.
replay_never_reads_canary() {
  local what=$1 from=$2 status=0
  timeout 60 "$gpudoctor" check --from "$from" --format json >"$work/out.json" 2>"$work/err" || status=$?
  case $status in
    0 | 1 | 2) ;;
    *) fail "$what: exit $status ($(head -c 300 "$work/err"))" ;;
  esac
  if grep -q -- "$canary_value" "$work/out.json" "$work/err"; then
    fail "$what: the report holds the canary from $outside (a file outside the snapshot was read)"
  fi
  pass "$what: exit $status, the canary outside the snapshot was not read"
}

# fs is a symlink to the analyst's root, absolute and relative.
new_snapshot "$work/abs"
ln -s / "$work/abs/fs"
replay_never_reads_canary "fs -> / (absolute)" "$work/abs"
grep -q 'fs' "$work/err" || fail "the refusal does not name fs: $(cat "$work/err")"

new_snapshot "$work/rel"
ln -s ../outside "$work/rel/fs"
printf '{"HOME": "/root"}\n' >"$work/rel/env.json" # /etc/nccl.conf is then outside/etc/nccl.conf
replay_never_reads_canary "fs -> ../outside (relative)" "$work/rel"

new_snapshot "$work/deep"
ln -s "../../../../../../../../../../../../.." "$work/deep/fs"
replay_never_reads_canary "fs -> ../../.. (relative, up to /)" "$work/deep"

# A folder below fs/ that is a symlink: resolved inside fs/ (absolute targets re-rooted, .. stops at fs/).
new_snapshot "$work/mid"
mkdir -p "$work/mid/fs"
ln -s "$outside/etc" "$work/mid/fs/etc"
printf '{"HOME": "/root"}\n' >"$work/mid/env.json"
replay_never_reads_canary "fs/etc -> an absolute folder outside" "$work/mid"
new_snapshot "$work/mid2"
mkdir -p "$work/mid2/fs"
ln -s "../../outside/etc" "$work/mid2/fs/etc"
printf '{"HOME": "/root"}\n' >"$work/mid2/env.json"
replay_never_reads_canary "fs/etc -> ../../outside/etc (relative)" "$work/mid2"

# cmd/ is a symlink out: the command outputs commands.json names are never read from outside.
for target in "$outside/cmd" "../outside/cmd"; do
  new_snapshot "$work/cmd"
  ln -s "$target" "$work/cmd/cmd"
  printf '[{"key": "uname-r", "argv": ["uname", "-r"], "found": true, "exit": 0, "stdout": "cmd/0-uname.out"}]\n' \
    >"$work/cmd/commands.json"
  replay_never_reads_canary "cmd -> $target" "$work/cmd"
  rm -rf "$work/cmd"
done

# A .tar.gz whose fs member is a symlink out (no member is written through it: the unpacker allows the link).
"$py" - "$work/evil-fs.tar.gz" "$outside" <<'PY'
import io, sys, tarfile
def add(t, name, data=None, link=None):
    info = tarfile.TarInfo(name)
    if link is not None:
        info.type = tarfile.SYMTYPE; info.linkname = link; t.addfile(info)
    else:
        info.size = len(data); t.addfile(info, io.BytesIO(data))
with tarfile.open(sys.argv[1], "w:gz") as t:
    add(t, "snap/manifest.json", b'{"format": "gpudoctor-snapshot", "version": 1}')
    add(t, "snap/env.json", b'{"HOME": "/root"}')
    add(t, "snap/fs", link=sys.argv[2])
PY
replay_never_reads_canary "a .tar.gz whose fs member links out" "$work/evil-fs.tar.gz"
"$py" - "$work/evil-fs-rel.tar.gz" "$outside/canary.conf" <<'PY'
import io, sys, tarfile
with tarfile.open(sys.argv[1], "w:gz") as t:
    for name, d in [("manifest.json", b'{"format": "gpudoctor-snapshot", "version": 1}'),
                    ("env.json", ('{"NCCL_CONF_FILE": "%s"}' % sys.argv[2]).encode())]:
        m = tarfile.TarInfo(name); m.size = len(d); t.addfile(m, io.BytesIO(d))
    l = tarfile.TarInfo("fs"); l.type = tarfile.SYMTYPE; l.linkname = "../../../../../../../../.."; t.addfile(l)
PY
replay_never_reads_canary "a .tar.gz whose fs member links to ../../.." "$work/evil-fs-rel.tar.gz"

# A well-formed snapshot whose NCCL_CONF_FILE names a file of this machine: read below fs/, or not at all.
new_snapshot "$work/plain"
mkdir -p "$work/plain/fs/etc"
replay_never_reads_canary "NCCL_CONF_FILE=$outside/canary.conf in env.json" "$work/plain"
# The same path recorded inside the snapshot is read from there (the defence is not "never read the file").
mkdir -p "$work/plain/fs$outside"
printf 'NCCL_SOCKET_IFNAME=inside%s\n' "$canary_value" >"$work/plain/fs$outside/canary.conf"
"$gpudoctor" check --from "$work/plain" --format json >"$work/out.json" 2>"$work/err" || true
grep -q "inside$canary_value" "$work/out.json" || fail "NCCL_CONF_FILE recorded inside the snapshot is not read"
pass "NCCL_CONF_FILE recorded inside the snapshot is read from the snapshot"
