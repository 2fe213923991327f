#!/usr/bin/env bash
# What is left when gpudoctor ends (docs/security.md, "Processes"): a daemon of a tool run that nothing ties to
# the run (it cleared its environment and left the group) is killed when gpudoctor exits; a daemon an --apply
# step started (a package script starting a service on a machine without systemd) is left running, whether or
# not tool runs came before. Driven by tests/lifecycle_driver, which runs tool runs and steps as gpudoctor does.
source "$(dirname "$0")/../e2e/common.bash"
driver=${GPUDOCTOR_LIFECYCLE_DRIVER:-$(dirname "$gpudoctor")/tests/gpudoctor_lifecycle_driver}
[[ -x $driver ]] || skip "no lifecycle driver at $driver (tests/CMakeLists.txt builds it)"
marker=$((RANDOM + 40000))
marked="sleep ($marker|$((marker + 1))|$((marker + 2))|$((marker + 3)))\$"
trap 'pkill -f "$marked" 2>/dev/null || true; rm -rf "$work"' EXIT
running() { pgrep -f "sleep $1\$" >/dev/null; }
# A daemon that clears its environment and leaves its session; the starter waits until it has.
daemon() { echo "( env -i setsid sleep $1 </dev/null >/dev/null 2>&1 & ); sleep 0.5"; }
settle() { # waits for SIGKILL (asynchronous) to have ended $1, at most 5 s
  for _ in $(seq 50); do
    running "$1" || return 0
    sleep 0.1
  done
}

# 1. Tool runs only: nothing outlives the run.
"$driver" "tool:$(daemon "$marker")" >"$work/out1" || fail "driver failed: $(cat "$work/out1")"
settle "$marker"
running "$marker" && fail "a tool run's daemon outlived gpudoctor"
pass "a tool run's daemon that nothing ties to its run is killed when gpudoctor ends"

# 2. An --apply step starts a service: it stays.
"$driver" "step:$(daemon $((marker + 1)))" >"$work/out2" || fail "driver failed: $(cat "$work/out2")"
settle $((marker + 1))
running $((marker + 1)) || fail "a service an --apply step started was killed when gpudoctor ended"
pass "a service an --apply step started keeps running after gpudoctor ends"

# 3. Tool runs, then a step: the step's service stays; the tool's tagged daemon is gone with its run.
"$driver" "tool:( setsid sleep $((marker + 2)) </dev/null >/dev/null 2>&1 & )" \
  "step:$(daemon $((marker + 3)))" >"$work/out3" || fail "driver failed: $(cat "$work/out3")"
settle $((marker + 2))
running $((marker + 2)) && fail "a tool run's setsid daemon outlived its run"
running $((marker + 3)) || fail "a service an --apply step started after tool runs was killed"
pass "after tool runs and a step: the tool's daemon is gone, the step's service stays"
