#!/usr/bin/env bash
# After a SIGKILL (nothing can clean up), the next run of gpudoctor removes the temporary folder the killed one
# left, and only what it can prove is its own and dead: the staging folder of a bundle still running survives,
# and so does a dead run's folder owned by another user.
source "$(dirname "$0")/../e2e/common.bash"
set -m
mkdir -p "$work/bin" "$work/tmp"
marker=$((RANDOM + 40000))
pattern="sleep $marker\$"
trap 'pkill -f "$pattern" 2>/dev/null || true; [[ -n ${live:-} ]] && kill -9 $live 2>/dev/null || true; rm -rf "$work"' EXIT
cat >"$work/bin/nvidia-smi" <<SCRIPT
#!/bin/sh
sleep $marker
SCRIPT
chmod +x "$work/bin/nvidia-smi"
# Starts a bundle that hangs in the fake nvidia-smi, in $started once its staging folder exists.
start_bundle() {
  local before
  before=$(pgrep -fc "$pattern" || true)
  PATH="$work/bin:$PATH" TMPDIR="$work/tmp" "$gpudoctor" bundle --timeout 600000 -o "$work/$1.tar.gz" \
    >/dev/null 2>&1 &
  started=$!
  for _ in $(seq 300); do
    (($(pgrep -fc "$pattern" || true) > before)) && return
    sleep 0.1
  done
  fail "the bundle's fake nvidia-smi never started"
}

start_bundle killed
killed=$started
kill -9 "$killed"
wait "$killed" 2>/dev/null || true
pkill -f "$pattern" || true # its tool: no gpudoctor is left to kill it
stale=$(ls -A "$work/tmp")
[[ $(wc -w <<<"$stale") == 1 ]] || fail "expected one staging folder left by the killed bundle, found: $stale"
pass "a SIGKILLed bundle leaves its staging folder ($stale)"
cp -a "$work/tmp/$stale" "$work/tmp/$stale-other-user" # the same name shape, another owner
chown -R nobody "$work/tmp/$stale-other-user" 2>/dev/null || skip "cannot chown (not root)"

start_bundle live
live=$started
running=$(ls -A "$work/tmp" | grep -vx -e "$stale" -e "$stale-other-user")
[[ -n $running ]] || fail "the running bundle has no staging folder"

TMPDIR="$work/tmp" "$gpudoctor" check --list >/dev/null || fail "check --list failed"
[[ ! -e $work/tmp/$stale ]] || fail "the killed run's folder $stale is still there"
pass "the next run removed the killed run's folder"
[[ -d $work/tmp/$running ]] || fail "the running bundle's folder $running was removed"
pass "the folder of a bundle still running is kept"
[[ -d $work/tmp/$stale-other-user ]] || fail "another user's folder was removed"
pass "another user's folder is kept"
kill -TERM "$live"
status=0
wait "$live" || status=$?
live=
[[ $status == 143 ]] || fail "the running bundle, terminated, exited $status"
[[ ! -e $work/tmp/$running ]] || fail "the terminated bundle left its folder $running"
pass "the running bundle, terminated, removed its own folder"
