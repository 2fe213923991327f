# Shared by the local-user scenarios (tests/security/local_user/*.sh, docs/security.md "A local user"): root
# runs gpudoctor while a second, unprivileged account of the same machine plants what it can write (a PATH
# entry, a venv, a conda env, a PYTHONPATH site.py, a TMPDIR, an output folder, a key file, a hard link).
# Each scenario asserts that nothing of that account ran as root (no canary file, no fake tool's argv log),
# nothing was written through its folders and nothing of root's reached it.
# The account is made with useradd and removed (with its home) when the test ends, whatever happens.
# shellcheck shell=bash
# shellcheck source=tests/e2e/common.bash
source "$2/tests/e2e/common.bash"
[[ $(id -u) == 0 ]] || skip "needs root (root's gpudoctor against another account's files)"
for tool in useradd userdel setpriv; do
  command -v "$tool" >/dev/null || skip "$tool is missing (passwd, util-linux)"
done
chmod 755 "$work"

# A new account for this test alone: gdt-<test>-<pid>, with its home below the work folder (so a crash
# leaves nothing in /home). $lu_user, $lu_uid, $lu_home.
lu_user="gdt-$(basename "$0" .sh | tr -c 'a-z0-9\n' '-' | cut -c1-12)-$$"
lu_user=${lu_user:0:31}
lu_home=$work/home/$lu_user
mkdir -p "$work/home"
useradd --no-user-group --gid nogroup --home-dir "$lu_home" --create-home --shell /bin/sh "$lu_user" ||
  fail "useradd $lu_user failed"
lu_uid=$(id -u "$lu_user")
lu_cleanup() {
  pkill -KILL -u "$lu_uid" 2>/dev/null || true
  userdel "$lu_user" 2>/dev/null || true
  rm -rf "$work"
}
trap lu_cleanup EXIT

# Runs a command as the account (its uid, its groups, no capabilities), as a hostile user would.
as_user() { setpriv --reuid "$lu_uid" --regid "$(id -g "$lu_user")" --init-groups --inh-caps=-all -- "$@"; }

# The canary every planted program and file touches when it runs: a file that must never exist.
canary=$work/CANARY
# Every planted program and hook also appends "<uid> <what>" to $lu_ran, a log anyone may write: the account
# cannot write $work, so the canary stays absent when root runs one of its programs as the account; this log
# tells "run as the account" from "not run at all".
mkdir -m 1777 "$work/ran"
lu_ran=$work/ran/log
# plant_tool DIR NAME: a program NAME in DIR, owned by the account, that records its argv and touches the
# canary (the evidence that root ran it).
plant_tool() {
  local dir=$1 name=$2
  mkdir -p "$dir"
  cat >"$dir/$name" <<SH
#!/bin/sh
echo "\$(id -u) \$0" >>"$lu_ran"
echo "\$0 \$*" >>"$work/argv.log"
: >"$canary"
SH
  chmod 0755 "$dir/$name"
  chown -R "$lu_uid" "$dir"
}
# A line of Python that does what a planted program does (for site.py, sitecustomize.py, a .pth).
# shellcheck disable=SC2034 # used by the scenarios that source this file
plant_python_line="import os; open('$lu_ran', 'a').write('%d %s\\n' % (os.getuid(), __file__ if '__file__' in dir() else 'a .pth line')); open('$canary', 'w')"
# no_canary WHAT: asserts that nothing planted ran as root.
no_canary() {
  [[ ! -e $canary ]] || fail "$1: a program or file of $lu_user ran as root: $(cat "$work/argv.log" "$lu_ran" 2>/dev/null)"
  if [[ -e $lu_ran ]] && grep -q '^0 ' "$lu_ran"; then fail "$1: ran as root: $(grep '^0 ' "$lu_ran")"; fi
  pass "$1: nothing of $lu_user ran as root"
}
# The lines of $lu_ran: what of the account's ran, and as whom; nothing when nothing ran.
ran_log() { cat "$lu_ran" 2>/dev/null || true; }
