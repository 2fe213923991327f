#!/usr/bin/env bash
# A vendor tool that never returns: check still finishes within its time limit plus a second, reports
# tool.timeout, and leaves no process of the tool behind (the whole process group is killed).
source "$(dirname "$0")/common.bash"
mkdir -p "$work/bin"
marker=$((RANDOM + 40000))
cat >"$work/bin/nvidia-smi" <<SCRIPT
#!/bin/sh
sleep $marker &
sleep $((marker + 1))
SCRIPT
chmod +x "$work/bin/nvidia-smi"
start=$(date +%s%N)
status=0
PATH="$work/bin:$PATH" "$gpudoctor" check --timeout 1000 --format json >"$work/report.json" || status=$?
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
[[ $status == 0 || $status == 1 ]] || fail "check exited $status"
((elapsed_ms < 2000)) || fail "check took ${elapsed_ms} ms with a 1000 ms tool limit"
pass "check finished in ${elapsed_ms} ms (limit 1000 ms + 1 s)"
expect "$work/report.json" "any(x['id']=='tool.timeout' and x['status']=='warn' and 'nvidia-smi' in x['subject'] for x in r['results'])" \
  "tool.timeout warns about nvidia-smi"
expect "$work/report.json" "any(t['key']=='nvidia-smi-xml' and t['timed_out'] for t in r['facts']['tools'])" \
  "the nvidia-smi run is recorded as timed out"
sleep 0.2
if pgrep -f "sleep $marker" >/dev/null || pgrep -f "sleep $((marker + 1))" >/dev/null; then
  pkill -f "sleep $marker" || true
  fail "the fake nvidia-smi's processes survived"
fi
pass "no process of the killed tool is left"
