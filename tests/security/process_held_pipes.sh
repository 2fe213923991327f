#!/usr/bin/env bash
# A tool that exits while a process it started still holds its stdout keeps its exit code: it finished, it was
# not killed at its limit. The leftover (in the tool's group, or in a session of its own) is killed.
source "$(dirname "$0")/../e2e/common.bash"
mkdir -p "$work/bin"
marker=$((RANDOM + 40000))
survivors() { pgrep -f "sleep ($marker|$((marker + 1)))\$" || true; }
trap 'pkill -f "sleep ($marker|$((marker + 1)))\$" 2>/dev/null || true; rm -rf "$work"' EXIT

for how in "sleep $marker" "setsid sleep $((marker + 1))"; do
  cat >"$work/bin/nvidia-smi" <<SCRIPT
#!/bin/sh
$how &
echo "failed to talk to the driver"
exit 3
SCRIPT
  chmod +x "$work/bin/nvidia-smi"
  status=0
  PATH="$work/bin:$PATH" timeout -s KILL 60 "$gpudoctor" check --timeout 3000 --format json >"$work/r.json" ||
    status=$?
  [[ $status == 0 || $status == 1 ]] || fail "$how: check exited $status"
  run="[t for t in r['facts']['tools'] if t['key']=='nvidia-smi-xml'][0]"
  expect "$work/r.json" "$run['exit'] == 3 and not $run['timed_out']" \
    "$how holding stdout: the tool's exit 3 is kept, not reported as timed out"
  for _ in $(seq 50); do
    [[ -z $(survivors) ]] && break
    sleep 0.1
  done
  [[ -z $(survivors) ]] || fail "$how: the process holding the pipe survived"
  pass "$how: the process holding the pipe is killed"
done
