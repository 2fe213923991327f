#!/usr/bin/env bash
# fixes/lib.bash's questions to a tool whose answer comes in many writes, under the scripts' own
# `set -euo pipefail`: the answer is the same whether the match is on the first line or the last. A reader
# that quits at its first match (grep -q) kills the writer with SIGPIPE, and pipefail turns a "yes" into a "no"
# (tests/lint/shell_pipes.py keeps such pipelines out; this shows what they cost).
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"
source_dir=$2

# The tools, faked: FIRST, then 20000 more lines, one write per line (as a tool that flushes per line).
cat >"$work/fakes.bash" <<'FAKES'
many_lines() {
  local i
  echo "$1"
  for ((i = 0; i < 20000; i++)); do echo "line-$i  more"; done
}
dnf() { many_lines "epel  Extra Packages for Enterprise Linux"; }
mokutil() { many_lines "/var/lib/dkms/mok.pub is already enrolled"; }
gd_mok_paths() { GD_MOK_CERT=/var/lib/dkms/mok.pub; }
FAKES

# lib_run FAMILY COMMAND...: COMMAND in a script shaped like the rendered ones (lib.bash, pipefail).
lib_run() {
  local family=$1
  shift
  bash -c 'set -euo pipefail; source "$1"; source "$2"; GD_FAMILY=$3; shift 3; "$@"' \
    _ "$source_dir/fixes/lib.bash" "$work/fakes.bash" "$family" "$@" 2>&1
}

lib_run rhel gd_dnf_repo_enabled epel >"$work/out" ||
  fail "gd_dnf_repo_enabled: epel, the first of 20001 enabled repositories, is not enabled: $(cat "$work/out")"
pass "gd_dnf_repo_enabled finds the first of 20001 repositories, written one line at a time, under pipefail"

lib_run debian gd_mok_import >"$work/out" || fail "gd_mok_import failed: $(cat "$work/out")"
grep -q "is enrolled already" "$work/out" || fail "gd_mok_import did not see the enrolled key: $(cat "$work/out")"
pass "gd_mok_import sees the enrolled key on the first of 20001 lines, under pipefail"
