#!/bin/bash
# The fault matrix's wrapper (tests/root/faults.bash installs it in a test root as /usr/local/sbin/TOOL for
# apt-get, dpkg, dnf, dkms, mv, cp, sync and uname; apt is pointed at the dpkg one with Dir::Bin::dpkg; and
# at the path of the gpudoctor that a migration's check step runs). It runs the real tool (the first TOOL of
# /usr/local/lib/gpudoctor-fault, /usr/sbin, /usr/bin, /sbin, /bin that is not itself) unless a line of
# /.gpudoctor-fault/faults chooses this call, which the test writes, never gpudoctor:
#   STEP TOOL ACTION ARG PATTERN
# STEP: a glob on the step the script is in (the last step-begin of the newest journal of /var/log/gpudoctor;
# "*" for any, "-" outside a step); ARG: the action's ("-" for none); PATTERN, the rest of the line: a glob on
# the arguments joined by spaces. The first line that
# matches and has not fired fires once (its number goes to /.gpudoctor-fault/fired), but for "pause";
# ACTION@N fires at the Nth call that matches (the second mv of a step):
#   fail [STATUS]     print the tool's kind of error and exit STATUS (apt-get 100, dkms 10, others 1)
#   kill              ask the test's killer for a SIGKILL of the script's process group (/.gpudoctor-fault/kill,
#                     which the killer outside the root watches), then wait for it: the tool never runs
#   kill-after        run the real tool, then ask for the SIGKILL: what it did stays half of the step
#   fill DIR          fill the filesystem that holds DIR (the test mounts a small tmpfs there) up to the last
#                     byte, then run the real tool: the disk fills while the step runs
#   pause             every matching call: write /.gpudoctor-fault/paused.N and wait for go.N (the test copies
#                     the root meanwhile: the step boundaries of a run), then run the real tool
# Every call is logged to /.gpudoctor-fault/calls.log. A chroot without /proc: only bash and coreutils here.
tool=${0##*/}
dir=/.gpudoctor-fault
real=
# /usr/local/lib/gpudoctor-fault holds the tools a test stands in for (the gpudoctor a check step runs).
for d in /usr/local/lib/gpudoctor-fault /usr/sbin /usr/bin /sbin /bin; do
  if [ -x "$d/$tool" ] && [ "$d/$tool" != "$0" ] && [ "$d" != /usr/local/sbin ]; then
    real=$d/$tool
    break
  fi
done
[ -n "$real" ] || {
  echo "fault wrapper: no real $tool" >&2
  exit 127
}
[ -d "$dir" ] || exec "$real" "$@"

# The step the script is in: the newest journal's last step-begin or step-done/-failed (then "-").
step=-
journal=
for f in /var/log/gpudoctor/*.journal; do
  if [ -f "$f" ] && { [ -z "$journal" ] || [ "$f" -nt "$journal" ]; }; then journal=$f; fi
done
if [ -n "$journal" ]; then
  step=$(awk -F '\t' '$4 == "step-begin" { s = $3 } $4 == "step-done" || $4 == "step-failed" || $4 == "verify-failed" { s = "-" } END { print (s == "" ? "-" : s) }' "$journal" 2>/dev/null)
fi
args="$*"
printf '%s\t%s\t%s\n' "$step" "$tool" "$args" >>"$dir/calls.log" 2>/dev/null

fire=
n=0
if [ -f "$dir/faults" ]; then
  while read -r f_step f_tool f_action f_arg f_pattern; do
    n=$((n + 1))
    case $f_step in '' | '#'*) continue ;; esac
    [ "$f_tool" = "$tool" ] || continue
    # shellcheck disable=SC2254 # globs, on purpose
    case $step in $f_step) ;; *) continue ;; esac
    # shellcheck disable=SC2254
    case $args in $f_pattern) ;; *) continue ;; esac
    if [ "$f_action" != pause ] && grep -qx "$n" "$dir/fired" 2>/dev/null; then continue; fi
    case $f_action in
    *@*)
      seen=$(($(cat "$dir/count.$n" 2>/dev/null || echo 0) + 1))
      echo "$seen" >"$dir/count.$n"
      [ "$seen" -ge "${f_action#*@}" ] || continue
      f_action=${f_action%@*}
      ;;
    esac
    fire=$f_action arg=$f_arg
    [ "$arg" = - ] && arg=
    [ "$f_action" = pause ] || echo "$n" >>"$dir/fired"
    break
  done <"$dir/faults"
fi

wait_for() { # FILE SECONDS
  i=0
  while [ ! -e "$1" ] && [ "$i" -lt "$(($2 * 20))" ]; do
    sleep 0.05
    i=$((i + 1))
  done
}

case $fire in
'') exec "$real" "$@" ;;
fail)
  printf '%s\t%s fail\n' "$step" "$tool" >>"$dir/log"
  case $tool in
  apt-get) echo "E: Sub-process /usr/bin/dpkg returned an error code (1) [injected by the fault matrix]" >&2 && exit "${arg:-100}" ;;
  dkms) echo "Error! Bad return status for module build on kernel: $(uname -r) (x86_64) [injected by the fault matrix]" >&2 && exit "${arg:-10}" ;;
  *) echo "$tool: Input/output error [injected by the fault matrix]" >&2 && exit "${arg:-1}" ;;
  esac
  ;;
kill)
  printf '%s\t%s kill\n' "$step" "$tool" >>"$dir/log"
  : >"$dir/kill"
  sleep 120
  exit 137
  ;;
kill-after)
  "$real" "$@"
  printf '%s\t%s kill-after\n' "$step" "$tool" >>"$dir/log"
  : >"$dir/kill"
  sleep 120
  exit 137
  ;;
fill)
  printf '%s\t%s fill %s\n' "$step" "$tool" "$arg" >>"$dir/log"
  dd if=/dev/zero of="$arg/.gpudoctor-fault-filler" bs=4k >/dev/null 2>&1
  dd if=/dev/zero of="$arg/.gpudoctor-fault-filler2" bs=512 >/dev/null 2>&1
  exec "$real" "$@"
  ;;
pause)
  k=$(($(cat "$dir/pauses" 2>/dev/null || echo 0) + 1))
  echo "$k" >"$dir/pauses"
  printf '%s\n' "$step" >"$dir/paused.$k"
  wait_for "$dir/go.$k" 300
  exec "$real" "$@"
  ;;
esac
exec "$real" "$@"
