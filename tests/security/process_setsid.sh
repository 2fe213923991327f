#!/usr/bin/env bash
# Processes that leave the tool's process group: a tool that double-forks a `setsid` grandchild (a daemon, in
# a session of its own, re-parented when its parent exits) must not leave it running, whether the tool then
# exits at once or hangs until its time limit. Killing the tool's process group alone misses such a process.
source "$(dirname "$0")/../e2e/common.bash"
mkdir -p "$work/bin"
marker=$((RANDOM + 40000))
marked="sleep ($marker|$((marker + 1))|$((marker + 2))|$((marker + 3)))\$"
survivors() { pgrep -f "$marked" || true; }
trap 'pkill -f "$marked" 2>/dev/null || true; rm -rf "$work"' EXIT
# Waits until no marked process is left (SIGKILL is asynchronous); fails naming the survivors.
expect_none_left() {
  for _ in $(seq 50); do
    [[ -z $(survivors) ]] && break
    sleep 0.1
  done
  [[ -z $(survivors) ]] || fail "$1: still running: $(survivors | xargs ps -o pid,ppid,sid,args -p)"
  pass "$1: no process of the tool is left"
}

# 1. The tool daemonizes a sleeper (its own session, stdio closed) and exits 0.
cat >"$work/bin/nvidia-smi" <<SCRIPT
#!/bin/sh
( setsid sleep $marker </dev/null >/dev/null 2>&1 & )
exit 0
SCRIPT
chmod +x "$work/bin/nvidia-smi"
status=0
PATH="$work/bin:$PATH" timeout -s KILL 60 "$gpudoctor" check --timeout 5000 --format json >"$work/r1.json" ||
  status=$?
[[ $status == 0 || $status == 1 ]] || fail "check exited $status"
expect "$work/r1.json" "[t for t in r['facts']['tools'] if t['key']=='nvidia-smi-xml'][0]['exit'] == 0" \
  "the daemonizing tool's exit 0 is recorded"
expect_none_left "a tool that exits after starting a setsid daemon"

# 2. The tool starts a setsid daemon, then hangs until gpudoctor kills it at its limit.
cat >"$work/bin/nvidia-smi" <<SCRIPT
#!/bin/sh
( setsid sleep $((marker + 1)) </dev/null >/dev/null 2>&1 & )
sleep $((marker + 2))
SCRIPT
status=0
PATH="$work/bin:$PATH" timeout -s KILL 60 "$gpudoctor" check --timeout 1000 --format json >"$work/r2.json" ||
  status=$?
[[ $status == 0 || $status == 1 ]] || fail "check exited $status"
expect "$work/r2.json" "[t for t in r['facts']['tools'] if t['key']=='nvidia-smi-xml'][0]['timed_out']" \
  "the hanging tool is recorded as timed out"
expect_none_left "a tool killed at its limit after starting a setsid daemon"

# 3. The daemon clears its environment (no tag to read) and leaves the tool's group and session: nothing ties
# it to the run, but it is below gpudoctor (the subreaper), and nothing gpudoctor starts outlives it.
cat >"$work/bin/nvidia-smi" <<SCRIPT
#!/bin/sh
( env -i setsid sleep $((marker + 3)) </dev/null >/dev/null 2>&1 & )
sleep 0.5 # until the daemon has cleared its environment: before that, its tag still ties it to the run
exit 0
SCRIPT
status=0
PATH="$work/bin:$PATH" timeout -s KILL 60 "$gpudoctor" check --timeout 5000 --format json >"$work/r3.json" ||
  status=$?
[[ $status == 0 || $status == 1 ]] || fail "check exited $status"
expect_none_left "a tool whose daemon cleared its environment and left the group"
