#!/usr/bin/env bash
# A tool stuck in the kernel (uninterruptible sleep, as in a wedged driver) does not end on SIGKILL. gpudoctor
# must not wait for it forever: it kills it at the time limit, waits a bounded time, reports it as unkillable
# (facts.tools, and tool.timeout says so), leaves it, and finishes.
#
# A real unkillable process, made here: a FUSE file system (this test's own daemon, speaking the protocol on
# /dev/fuse) that reads a request and never answers it. Once the daemon has read the request, the kernel waits for
# the answer in uninterruptible sleep, SIGKILL or not (fs/fuse/dev.c, request_wait_answer). Ending the daemon
# aborts the connection and frees the process. Needs root and /dev/fuse; skips otherwise. The bounded wait
# itself is also tested without FUSE, with an injected clock (tests/security/test_process_lifecycle.cpp).
source "$(dirname "$0")/../e2e/common.bash"
[[ $(id -u) == 0 ]] || skip "mounting a FUSE file system needs root"
[[ -c /dev/fuse ]] || skip "no /dev/fuse"
mkdir -p "$work/bin" "$work/mnt"
cat >"$work/fused.py" <<'PY'
# A FUSE daemon that answers INIT and nothing else: whoever looks inside the mount waits for ever.
import ctypes, os, struct, sys
mnt, ready = sys.argv[1], sys.argv[2]
fd = os.open("/dev/fuse", os.O_RDWR)
libc = ctypes.CDLL(None, use_errno=True)
opts = b"fd=%d,rootmode=40000,user_id=0,group_id=0" % fd
if libc.mount(b"gpudoctor-test", mnt.encode(), b"fuse", 0, opts) != 0:
    sys.exit(77)
while True:
    data = os.read(fd, (1 << 20) + 4096)
    length, opcode, unique = struct.unpack("<IIQ", data[:16])
    if opcode == 26:  # FUSE_INIT: protocol 7.31, fuse_init_out (64 bytes)
        max_readahead = struct.unpack("<I", data[48:52])[0]
        out = struct.pack("<IIIIHHIIHHI7I", 7, 31, max_readahead, 0, 0, 0, 4096, 1, 0, 0, 0, *([0] * 7))
        os.write(fd, struct.pack("<IiQ", 16 + len(out), 0, unique) + out)
        open(ready, "w").write("ready\n")
    # Anything else (LOOKUP, INTERRUPT...) is read and never answered.
PY
"$py" "$work/fused.py" "$work/mnt" "$work/ready" &
daemon=$!
disown "$daemon" # its end (SIGKILL, below) is no news
cleanup() {
  kill -9 "$daemon" 2>/dev/null || true # closes /dev/fuse: the connection aborts, the stuck process ends
  umount -l "$work/mnt" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 100); do
  [[ -s $work/ready ]] && break
  kill -0 "$daemon" 2>/dev/null || skip "cannot mount a FUSE file system here"
  sleep 0.1
done
[[ -s $work/ready ]] || skip "the FUSE file system did not start"

cat >"$work/bin/nvidia-smi" <<SCRIPT
#!/bin/sh
exec cat "$work/mnt/gpu0"
SCRIPT
chmod +x "$work/bin/nvidia-smi"
status=0
PATH="$work/bin:$PATH" timeout -s KILL 60 "$gpudoctor" check --timeout 1000 --format json >"$work/report.json" ||
  status=$?
[[ $status != 137 ]] || fail "check waited for the unkillable tool (killed by the 60 s hang guard)"
[[ $status == 0 || $status == 1 ]] || fail "check exited $status"
pass "check finished although its tool could not be killed"
stuck=$(pgrep -f "cat $work/mnt/gpu0" || true)
[[ -n $stuck && $(awk '{print $3}' "/proc/$stuck/stat") == D ]] || fail "the tool was not stuck in the kernel"
pass "the tool is still there, in uninterruptible sleep (D)"
run="[t for t in r['facts']['tools'] if t['key']=='nvidia-smi-xml'][0]"
expect "$work/report.json" "$run['timed_out'] and $run['unkillable']" "the run is recorded as timed out and unkillable"
expect "$work/report.json" "any(x['id']=='tool.timeout' and x['status']=='warn' and 'did not end when killed' in x['message'] for x in r['results'])" \
  "tool.timeout says the tool did not end when killed"
