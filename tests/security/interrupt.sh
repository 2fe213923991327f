#!/usr/bin/env bash
# SIGINT and SIGTERM while gpudoctor waits on a hanging tool, during `check` and during `bundle`: it exits 130 /
# 143 (report-v1), and leaves neither a process it started (the tool, its group, a setsid daemon of it) nor a
# temporary folder (TMPDIR is a folder of this test, so "nothing left" is exact).
source "$(dirname "$0")/../e2e/common.bash"
set -m # job control: a background job gets SIGINT like a foreground one (not ignored, as without it)
mkdir -p "$work/bin" "$work/tmp"
marker=$((RANDOM + 40000))
pattern="sleep ($marker|$((marker + 1)))\$"
trap 'pkill -f "$pattern" 2>/dev/null || true; rm -rf "$work"' EXIT
cat >"$work/bin/nvidia-smi" <<SCRIPT
#!/bin/sh
( setsid sleep $marker </dev/null >/dev/null 2>&1 & )
sleep $((marker + 1))
SCRIPT
chmod +x "$work/bin/nvidia-smi"

for cmd in check bundle; do
  for sig in INT TERM; do
    want=$([[ $sig == INT ]] && echo 130 || echo 143)
    args=("$cmd" --timeout 600000)
    [[ $cmd == bundle ]] && args+=(-o "$work/out.tar.gz")
    PATH="$work/bin:$PATH" TMPDIR="$work/tmp" "$gpudoctor" "${args[@]}" >"$work/out" 2>"$work/err" &
    pid=$!
    # Interrupt once the hanging tool runs (and, for a bundle, its staging folder exists).
    for _ in $(seq 300); do
      pgrep -f "sleep $((marker + 1))\$" >/dev/null && break
      sleep 0.1
    done
    pgrep -f "sleep $((marker + 1))\$" >/dev/null || fail "$cmd: the fake tool never started"
    kill -s "$sig" "$pid"
    status=0
    timeout 30 tail --pid="$pid" -f /dev/null || fail "$cmd: SIG$sig: gpudoctor did not exit within 30 s"
    wait "$pid" || status=$?
    [[ $status == "$want" ]] || fail "$cmd: SIG$sig: exit $status, not $want: $(cat "$work/err")"
    for _ in $(seq 50); do
      pgrep -f "$pattern" >/dev/null || break
      sleep 0.1
    done
    ! pgrep -f "$pattern" >/dev/null || fail "$cmd: SIG$sig: processes left: $(pgrep -af "$pattern")"
    [[ -z $(ls -A "$work/tmp") ]] || fail "$cmd: SIG$sig: temporary files left: $(ls -A "$work/tmp")"
    [[ ! -e $work/out.tar.gz ]] || fail "$cmd: SIG$sig: a partial bundle was left"
    pass "$cmd: SIG$sig: exit $want, no process and no temporary folder left"
  done
done
