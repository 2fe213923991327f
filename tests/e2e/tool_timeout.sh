#!/usr/bin/env bash
# A vendor tool that never returns: check kills it at its time limit, records it as timed out after running
# for (at least) that limit, reports tool.timeout, and leaves no process of the tool behind (the whole process
# group is killed). It asserts on what gpudoctor recorded, not on wall time, so a sanitizer build on a loaded
# machine passes too; the only clock here is a hang guard far above any plausible run.
source "$(dirname "$0")/common.bash"
mkdir -p "$work/bin"
marker=$((RANDOM + 40000))
cat >"$work/bin/nvidia-smi" <<SCRIPT
#!/bin/sh
sleep $marker &
sleep $((marker + 1))
SCRIPT
chmod +x "$work/bin/nvidia-smi"
status=0
PATH="$work/bin:$PATH" timeout -s KILL 30 "$gpudoctor" check --timeout 1000 --format json >"$work/report.json" ||
  status=$?
[[ $status != 137 ]] || fail "check did not finish within 30 s (hang guard) with a 1000 ms tool limit"
[[ $status == 0 || $status == 1 ]] || fail "check exited $status"
expect "$work/report.json" "any(x['id']=='tool.timeout' and x['status']=='warn' and 'nvidia-smi' in x['subject'] for x in r['results'])" \
  "tool.timeout warns about nvidia-smi"
run="[t for t in r['facts']['tools'] if t['key']=='nvidia-smi-xml'][0]"
expect "$work/report.json" "$run['timed_out'] and $run['exit'] is None" "the nvidia-smi run is recorded as timed out"
expect "$work/report.json" "$run['timeout_ms'] == 1000" "it ran under the 1000 ms limit given"
expect "$work/report.json" "$run['duration_ms'] >= $run['timeout_ms']" "it was killed at its limit, not before"
# SIGKILL is asynchronous: give a loaded machine time to finish the kill before calling it a survivor.
for _ in $(seq 50); do
  pgrep -f "sleep ($marker|$((marker + 1)))\$" >/dev/null || break
  sleep 0.1
done
if pgrep -f "sleep ($marker|$((marker + 1)))\$" >/dev/null; then
  pkill -f "sleep ($marker|$((marker + 1)))\$" || true
  fail "the fake nvidia-smi's processes survived"
fi
pass "no process of the killed tool is left"
