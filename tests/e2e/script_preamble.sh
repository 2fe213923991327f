#!/usr/bin/env bash
# The rendered scripts' preamble (docs/fixes.md, "The scripts"; issue 20 item 2): a script run with a
# caller's hostile environment starts what it starts with a fixed PATH of system folders and none of the
# loader's, the interpreters' or the package manager's hooks, and without the functions the caller exported
# (which bash imports before the first line and which would stand in for commands). The script of a real
# plan (`fix blacklist-nouveau --from` a fixture) is run with its last line, `gd_main "$@"`, replaced by a
# report of what a child would get.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

"$gpudoctor" fix blacklist-nouveau --from "$source_dir/tests/machines/nvidia-nouveau/snapshot" \
  --emit "$work/fix.sh" 2>"$work/emit.err" || fail "fix --emit: $(cat "$work/emit.err")"
head_end=$(grep -n '^set -euo pipefail$' "$work/fix.sh" | cut -d: -f1 || true)
# shellcheck disable=SC2016 # the script's text
path_line=$(grep -n '^export PATH=\$gd_path$' "$work/fix.sh" | cut -d: -f1 || true)
first_code=$(grep -vnE '^(#|$)' "$work/fix.sh" | sed -n 1p | cut -d: -f1)
[[ -n $head_end && -n $path_line && $path_line -lt $head_end ]] ||
  fail "the script sets no fixed PATH before set -euo pipefail (PATH line ${path_line:-none}, set line ${head_end:-none})"
[[ $(sed -n "${first_code}p" "$work/fix.sh") == "IFS=\$' \\t\\n'" ]] ||
  fail "the first line after the comment header is not the preamble's: $(sed -n "${first_code}p" "$work/fix.sh")"
pass "the script's first lines after the header are the preamble, with the fixed PATH before set -euo pipefail"

# What a child of the script sees: its environment and, in bash, the functions it would find.
sed '$d' "$work/fix.sh" >"$work/probe.sh"
cat >>"$work/probe.sh" <<'PROBE'
echo "PATH=$PATH"
env | sed -n 's/^\(LD_[A-Z_]*\|PYTHON[A-Z_]*\|BASH_ENV\|ENV\|APT_CONFIG\|DPKG_[A-Z_]*\|PERL5OPT\|NODE_OPTIONS\|TMPDIR\|OPENSSL_CONF\|GCONV_PATH\)=.*/leaked \1/p'
bash -c 'declare -F' | sed 's/^declare -f[x]* /function /'
type -t dpkg-query
PROBE
# The caller: a PATH with their own folder first, the loader's and the interpreters' hooks, apt's and dpkg's
# configuration, and an exported function named like a tool the script calls.
mkdir -p "$work/evil"
printf '#!/bin/sh\ntouch %s/canary\n' "$work" >"$work/evil/dpkg-query"
chmod 0755 "$work/evil/dpkg-query"
env -i HOME="$work" PATH="$work/evil:/usr/bin:/bin" LD_PRELOAD="$work/evil/x.so" LD_LIBRARY_PATH="$work/evil" \
  PYTHONPATH="$work/evil" PYTHONSTARTUP="$work/evil/s.py" BASH_ENV="$work/evil/env.sh" ENV="$work/evil/env.sh" \
  APT_CONFIG="$work/evil/apt.conf" DPKG_ADMINDIR="$work/evil" PERL5OPT=-Mevil NODE_OPTIONS="--require x" \
  TMPDIR="$work/evil" OPENSSL_CONF="$work/evil/o.cnf" GCONV_PATH="$work/evil" \
  'BASH_FUNC_dpkg-query%%=() { touch '"$work"'/canary; }' \
  bash "$work/probe.sh" >"$work/probe.out" 2>&1 || fail "the script did not run: $(cat "$work/probe.out")"
grep -qx 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' "$work/probe.out" ||
  fail "the script's PATH is not the fixed one: $(grep '^PATH=' "$work/probe.out")"
grep -q '^leaked ' "$work/probe.out" && fail "the caller's hooks reach the script's children: $(grep '^leaked ' "$work/probe.out" | tr '\n' ' ')"
grep -q '^function dpkg-query' "$work/probe.out" && fail "the caller's exported dpkg-query function reaches the script's children"
grep -qx file "$work/probe.out" || fail "dpkg-query is not the system's program in the script: $(tail -1 "$work/probe.out")"
[[ -e $work/canary ]] && fail "the caller's dpkg-query ran"
pass "a caller's PATH, LD_*, PYTHON*, BASH_ENV, ENV, APT_CONFIG, DPKG_*, PERL5OPT, NODE_OPTIONS, TMPDIR, OPENSSL_CONF, GCONV_PATH and exported function do not reach what the script starts"

# As root, a system folder that another user can change (here /usr/local/sbin, replaced in a private mount
# namespace by a folder writable by all, and /usr/local/bin by a link into it) is left out of the PATH, and
# the script says so; the others stay.
if ((EUID == 0)) && command -v unshare >/dev/null && unshare -m true 2>/dev/null; then
  mkdir -p "$work/open"
  chmod 0777 "$work/open"
  printf '#!/bin/sh\ntouch %s/canary\n' "$work" >"$work/open/dpkg-query"
  chmod 0755 "$work/open/dpkg-query"
  ln -s "$work/open" "$work/open-link"
  unshare -m --propagation private bash -c 'mount --bind "$1" /usr/local/sbin && mount --bind "$2" /usr/local/bin 2>/dev/null
    mount --bind "$1" /usr/local/bin && env -i HOME="$3" bash "$3/probe.sh"' _ "$work/open" "$work/open-link" "$work" \
    >"$work/open.out" 2>&1 || fail "the script did not run with an open /usr/local/sbin: $(cat "$work/open.out")"
  grep -qx 'PATH=/usr/sbin:/usr/bin:/sbin:/bin' "$work/open.out" ||
    fail "a folder writable by all stays on the script's PATH: $(grep '^PATH=' "$work/open.out")"
  grep -q '/usr/local/sbin is left out of PATH' "$work/open.out" || fail "the script does not say it left /usr/local/sbin out"
  [[ -e $work/canary ]] && fail "the planted dpkg-query ran"
  pass "as root, a system folder on PATH that others can write is left out, and the script says so"
fi

shellcheck "$work/fix.sh" || fail "the script with its preamble does not pass shellcheck"
pass "the script with its preamble passes shellcheck"
