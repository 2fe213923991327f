#!/usr/bin/env bash
# As root, a user's interpreter is inspected as that user, never as root, and the caller's Python start-up
# hooks reach none (docs/security.md, "Executing as root"). The account has a venv ($VIRTUAL_ENV, first on
# PATH as when activated) whose python3 is a wrapper of its own (a venv's files are its owner's to change),
# a conda env ($CONDA_PREFIX) and a third env given as `--python`, each with a PyTorch of its own
# (torch/version.py) and start-up hooks (sitecustomize, usercustomize, a .pth import line); a PYTHONPATH
# folder with a site.py, the same hooks and the module that PYTHONWARNINGS names (Python imports
# it at start-up, -S or not: the one that runs on 3.11, whose site is frozen); and a site.py in the folder
# root works in (the '' of sys.path, before 3.11). `check` and `bundle` run nothing of it as root, nothing
# but the venv's wrapper at all (as the account), and still find each env's PyTorch (asked as the account);
# with a PyTorch on PYTHONPATH too (the bundle), that one comes first in every interpreter, as in Python
# (computed from the recorded variable: the interpreters run isolated, -I).
# shellcheck source=tests/security/local_user/common.bash
source "$(dirname "$0")/common.bash"
system_python=/usr/bin/python3
[[ -x $system_python ]] || skip "no $system_python to make venvs with"
as_user "$system_python" -c 'import venv' 2>/dev/null || skip "no venv module for $system_python (python3-venv)"
pyver=$("$system_python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

# A PyTorch that gpudoctor reads (torch/version.py) without importing it.
plant_torch() { # SITE VERSION
  mkdir -p "$1/torch"
  printf "__version__ = '%s'\ncuda = '12.4'\nhip = None\n" "$2" >"$1/torch/version.py"
}
# Everything Python could execute on start-up in SITE: sitecustomize, usercustomize, a .pth import line.
plant_hooks() { # SITE
  printf '%s\n' "$plant_python_line" >"$1/sitecustomize.py"
  printf '%s\n' "$plant_python_line" >"$1/usercustomize.py"
  printf 'import os; %s\n' "$plant_python_line" >"$1/evil.pth"
}
envs=()
for name in venv conda other; do
  as_user "$system_python" -m venv --without-pip "$lu_home/$name" || fail "python3 -m venv $name failed"
  site=$lu_home/$name/lib/python$pyver/site-packages
  plant_torch "$site" "2.5.1+$name"
  plant_hooks "$site"
  envs+=("$site")
done
# The venv's own python3: what the owner of a venv may put there (it logs who ran it, then is Python).
mv "$lu_home/venv/bin/python3" "$lu_home/venv/bin/python3.link"
cat >"$lu_home/venv/bin/python3" <<SH
#!/bin/bash
echo "\$(id -u) \$0" >>"$lu_ran"
: >"$canary" 2>/dev/null
exec -a "\$0" $system_python "\$@"
SH
chmod 0755 "$lu_home/venv/bin/python3"
pp=$lu_home/pythonpath
mkdir -p "$pp" "$lu_home/project"
printf '%s\n' "$plant_python_line" >"$pp/site.py"
printf '%s\nclass Warning(Warning): pass\n' "$plant_python_line" >"$pp/gdtwarn.py"
plant_hooks "$pp"
plant_torch "$lu_home/pythonpath-torch" "2.4.0+pythonpath"
printf '%s\n' "$plant_python_line" >"$lu_home/project/site.py"
chown -R "$lu_uid" "$lu_home"

run_as_root() { # OUTPUT COMMAND...: root's gpudoctor in the account's project, with the account's variables
  local out=$1 status=0
  shift
  (cd "$lu_home/project" && env PATH="$lu_home/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    VIRTUAL_ENV="$lu_home/venv" CONDA_PREFIX="$lu_home/conda" PYTHONPATH="$pythonpath" \
    PYTHONWARNINGS=ignore::gdtwarn.Warning PYTHONSTARTUP="$pp/site.py" \
    "$gpudoctor" "$@" >"$out" 2>"$out.err") || status=$?
  [[ $status == 0 || $status == 1 ]] || fail "$* exited $status: $(cat "$out.err")"
}
torch_of() { # REPORT ROLE: the PyTorch version the interpreter of that role imports
  jq_py "$1" "[e['torch']['version'] if e['torch'] else e['error'] for e in r['facts']['python']['interpreters'] if e['role']=='$2'][0]"
}
# What each report must say: every env's PyTorch found ($3: PYTHONPATH's, which comes first in every one of
# them, as Python puts it; else each env's own), the account's interpreters asked as the account.
judged() { # REPORT WHAT [PYTHONPATH-TORCH]
  local role want
  # The venv's python3 is first on PATH: reported under PATH (the same interpreter is reported once).
  for role in PATH:venv CONDA_PREFIX:conda --python:other; do
    want=${3:-2.5.1+${role#*:}}
    [[ $(torch_of "$1" "${role%%:*}") == "$want" ]] ||
      fail "$2: the PyTorch of ${role#*:} (${role%%:*}): $(torch_of "$1" "${role%%:*}"), not $want"
  done
  if [[ -n ${3:-} ]]; then
    [[ $(torch_of "$1" system) == "$3" ]] || fail "$2: PYTHONPATH's PyTorch for $system_python: $(torch_of "$1" system)"
    pass "$2: the PyTorch on the recorded PYTHONPATH comes first for $system_python and every env, as in Python"
  else
    pass "$2: the venv's, the conda env's and --python's own PyTorch are found"
  fi
  for name in venv conda other; do
    expect "$1" "any(x['id']=='tool.untrusted' and x['subject']=='$lu_home/$name/bin/python3' and x['status']=='info' and 'ran it as $lu_user, not as root' in x['message'] for x in r['results'])" \
      "$2: $name's python3 was asked as $lu_user"
  done
}

# Only the venv's wrapper, and only as the account: no hook of any interpreter, as root or as the account.
only_wrapper_ran() { # WHAT
  local line
  while read -r line; do
    [[ $line == "$lu_uid $lu_home/venv/bin/python3" ]] || fail "$1: ran: $line"
  done < <(ran_log)
  [[ -n $(ran_log) ]] || fail "$1: the venv's python3 was not asked at all"
  pass "$1: only the venv's python3 ran, as $lu_user; no site.py, sitecustomize, usercustomize, .pth or PYTHONWARNINGS module"
}
pythonpath=$pp
run_as_root "$work/check.json" check --format json --python "$lu_home/other/bin/python3"
no_canary "check"
only_wrapper_ran "check"
judged "$work/check.json" check

rm -f "$lu_ran"
pythonpath=$pp:$lu_home/pythonpath-torch
run_as_root "$work/bundle.out" bundle -o "$work/b.tar.gz" --python "$lu_home/other/bin/python3"
no_canary "bundle"
only_wrapper_ran "bundle"
status=0
"$gpudoctor" check --from "$work/b.tar.gz" --python "$lu_home/other/bin/python3" --format json >"$work/replay.json" ||
  status=$?
[[ $status == 0 || $status == 1 ]] || fail "check --from the bundle exited $status"
judged "$work/replay.json" "check --from the bundle" 2.4.0+pythonpath
