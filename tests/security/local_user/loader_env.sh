#!/usr/bin/env bash
# As root, the caller's environment executes nothing in the programs gpudoctor starts (docs/security.md,
# "Executing as root"): the account's LD_PRELOAD library and an LD_LIBRARY_PATH folder with a libexpat.so.1
# of its own (python3 loads libexpat), both built here with cc, and a BASH_ENV and ENV file. The tools that
# run are root's: a nvidia-smi in a folder of root's alone, a bash script that writes down its environment,
# and the system's python3. `check` and `bundle` run nothing of the account's, the tools get none of those
# variables, and the report still shows the caller's LD_PRELOAD and LD_LIBRARY_PATH as recorded.
# shellcheck source=tests/security/local_user/common.bash
source "$(dirname "$0")/common.bash"
command -v cc >/dev/null || skip "no C compiler to build the libraries with"
expat=$(ldconfig -p | sed -n 's|.*libexpat\.so\.1 (libc6,x86-64) => ||p' | sed -n 1p)
[[ -n $expat && -x /usr/bin/python3 ]] || skip "no libexpat.so.1 or /usr/bin/python3 (the LD_LIBRARY_PATH case)"

lib=$lu_home/lib
mkdir -p "$lib/stub"
# A constructor that does what a planted program does, in every program that loads it but gpudoctor itself
# (the loader puts LD_PRELOAD into gpudoctor too: only what gpudoctor starts is its business).
cat >"$lib/hook.c" <<C
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
extern char *program_invocation_short_name;
__attribute__((constructor)) static void planted(void) {
  if (strcmp(program_invocation_short_name, "gpudoctor") == 0) return;
  FILE *log = fopen("$lu_ran", "a");
  if (log) { fprintf(log, "%d %s loaded by %s\\n", (int)getuid(), LIBRARY, program_invocation_short_name); fclose(log); }
  close(open("$canary", O_WRONLY | O_CREAT, 0644));
}
C
cc -shared -fPIC -DLIBRARY='"LD_PRELOAD"' -o "$lib/preload.so" "$lib/hook.c" || fail "cc preload.so"
# libexpat.so.1 of the account's: the hook, then the real library (under another file name, found through a
# stub of that name at link time), so python3 starts as usual.
cc -shared -fPIC -o "$lib/stub/libexpat-real.so.1" -Wl,-soname,libexpat-real.so.1 -x c /dev/null ||
  fail "cc stub"
cc -shared -fPIC -DLIBRARY='"LD_LIBRARY_PATH"' -o "$lib/libexpat.so.1" "$lib/hook.c" -Wl,-soname,libexpat.so.1 \
  -Wl,--no-as-needed -L"$lib/stub" -l:libexpat-real.so.1 || fail "cc libexpat.so.1"
cp "$expat" "$lib/libexpat-real.so.1"
# shellcheck disable=SC2016 # $(id -u) is the hook's, run by whoever sources it
printf ': >"%s"; echo "$(id -u) BASH_ENV" >>"%s"\n' "$canary" "$lu_ran" >"$lu_home/hook.sh"
chown -R "$lu_uid" "$lu_home"
# The shim works: python3 started with it runs the hook (as the account here, so no canary).
as_user env LD_LIBRARY_PATH="$lib" /usr/bin/python3 -S -c 'import pyexpat' ||
  fail "python3 does not start with the LD_LIBRARY_PATH libexpat"
[[ $(ran_log) == "$lu_uid LD_LIBRARY_PATH loaded by python3" ]] || fail "the libexpat hook did not run: $(ran_log)"
rm -f "$lu_ran"

# Root's tools: a nvidia-smi (a bash script) that writes down the environment it got.
rootbin=$work/rootbin
mkdir -p "$rootbin"
cat >"$rootbin/nvidia-smi" <<SH
#!/bin/bash
env >"$work/tool-env.\$\$"
exit 9
SH
chmod 0755 "$rootbin/nvidia-smi"

run_as_root() { # OUTPUT COMMAND...
  local out=$1 status=0
  shift
  # verify_asan_link_order=0: an AddressSanitizer build of gpudoctor would otherwise refuse to start with a
  # preloaded library that is not ASan's, and run nothing (the sanitizer pass of .ci/run).
  env PATH="$rootbin:/usr/sbin:/usr/bin:/sbin:/bin" LD_PRELOAD="$lib/preload.so" LD_LIBRARY_PATH="$lib" \
    BASH_ENV="$lu_home/hook.sh" ENV="$lu_home/hook.sh" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    "$gpudoctor" "$@" >"$out" 2>"$out.err" || status=$?
  [[ $status == 0 || $status == 1 ]] || fail "$* exited $status: $(cat "$out.err")"
}
tools_got_nothing() { # WHAT
  local envs=("$work"/tool-env.*)
  [[ -e ${envs[0]} ]] || fail "$1: root's nvidia-smi did not run"
  if grep -l -E '^(LD_[A-Z_]*|BASH_ENV|ENV|PYTHONPATH)=' "${envs[@]}"; then fail "$1: a tool got a hook variable"; fi
  pass "$1: root's tool got none of LD_*, BASH_ENV, ENV"
  rm -f "${envs[@]}"
}

run_as_root "$work/check.json" check --format json
no_canary "check"
[[ -z $(ran_log) ]] || fail "check: a hook ran: $(ran_log)"
tools_got_nothing "check"
expect "$work/check.json" "r['facts']['environment']['gpu_variables'].get('LD_PRELOAD')=='$lib/preload.so' and r['facts']['environment']['gpu_variables'].get('LD_LIBRARY_PATH')=='$lib'" \
  "check: the report still shows the caller's LD_PRELOAD and LD_LIBRARY_PATH"
expect "$work/check.json" "any(e['executable']=='/usr/bin/python3' and e['error'] is None for e in r['facts']['python']['interpreters'])" \
  "check: root's python3 was still asked for its sys.path"

run_as_root "$work/bundle.out" bundle -o "$work/b.tar.gz"
no_canary "bundle"
[[ -z $(ran_log) ]] || fail "bundle: a hook ran: $(ran_log)"
tools_got_nothing "bundle"
status=0
"$gpudoctor" check --from "$work/b.tar.gz" --format json >"$work/replay.json" || status=$?
[[ $status == 0 || $status == 1 ]] || fail "check --from the bundle exited $status"
expect "$work/replay.json" "r['facts']['environment']['gpu_variables'].get('LD_LIBRARY_PATH')=='$lib'" \
  "replay: the recorded LD_LIBRARY_PATH is the caller's"
