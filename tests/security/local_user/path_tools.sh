#!/usr/bin/env bash
# As root, a program on PATH that another user can change is not run, and the search goes on
# (docs/security.md, "Executing as root"). Two PATH entries come before the system's folders: one of root's
# that anyone may write (mode 0777) and one of the account's, each holding a fake nvidia-smi, nvcc, dkms,
# dmesg, journalctl, mokutil and modinfo (and python3). `check` and `bundle` run none of them, each is named
# in tool.untrusted with the place that failed the rule, and `check --from` the bundle names them again. The
# account's own python3, first on PATH, is the interpreter in use: it is asked for its sys.path as the
# account, never as root.
# shellcheck source=tests/security/local_user/common.bash
source "$(dirname "$0")/common.bash"
open=$work/open # root's, writable by anyone
own=$lu_home/bin
tools=(nvidia-smi nvcc dkms dmesg journalctl mokutil modinfo)
for tool in "${tools[@]}" python3; do
  plant_tool "$open" "$tool"
  plant_tool "$own" "$tool"
done
chown -R root:root "$open"
chmod 0777 "$open"
system_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Asserts that the report $1 names each planted program of folder $2 that gpudoctor asked for, with $3 in
# the reason, and that it asked at least for the tools every check asks for.
names_skipped() {
  local report=$1 dir=$2 reason=$3 tool
  for tool in nvidia-smi nvcc dkms dmesg mokutil; do
    expect "$report" "any(x['id']=='tool.untrusted' and x['subject']=='$dir/$tool' and x['status'] in ('warn','info') and 'not run as root: $dir/$tool' in x['message'] and '$reason' in x['message'] for x in r['results'])" \
      "$(basename "$report"): tool.untrusted names $dir/$tool ($reason)"
  done
}

# 1. check, with root's open folder first: its python3 (no one account owns that folder) is not asked at all.
status=0
(cd "$lu_home" && PATH="$open:$own:$system_path" "$gpudoctor" check --format json >"$work/check.json") ||
  status=$?
[[ $status == 0 || $status == 1 ]] || fail "check exited $status: $(cat "$work/check.json")"
no_canary "check"
[[ ! -s $work/argv.log ]] || fail "check: a fake tool logged its argv: $(cat "$work/argv.log")"
[[ -z $(ran_log) ]] || fail "check: a planted program ran: $(ran_log)"
pass "check: no planted program ran, as root or as $lu_user"
names_skipped "$work/check.json" "$open" "$open is writable by others"
names_skipped "$work/check.json" "$own" "$lu_home is owned by $lu_user"
expect "$work/check.json" "any(x['id']=='tool.untrusted' and x['subject']=='$open/python3' and 'no one account to run it as' in x['message'] for x in r['results'])" \
  "check: the python3 in a folder anyone may write is not asked, as root or as anyone"
expect "$work/check.json" "any(x['id']=='tool.untrusted' and x['subject']=='$open/dmesg' and x['status']=='info' and '/dmesg, further on the PATH, ran instead' in x['message'] for x in r['results'])" \
  "check: root's own dmesg, further on the PATH, ran instead"

# 2. bundle, with the account's folder first: its python3 is asked as the account, the tools not at all.
rm -f "$lu_ran"
status=0
(cd "$lu_home" && PATH="$own:$open:$system_path" "$gpudoctor" bundle -o "$work/b.tar.gz" >"$work/bundle.out" 2>&1) ||
  status=$?
[[ $status == 0 || $status == 1 ]] || fail "bundle exited $status: $(cat "$work/bundle.out")"
no_canary "bundle"
[[ ! -s $work/argv.log ]] || fail "bundle: a fake tool logged its argv: $(cat "$work/argv.log")"
[[ $(ran_log) == "$lu_uid $own/python3" ]] || fail "bundle: expected only $own/python3, as $lu_uid, to run: $(ran_log)"
pass "bundle: only the account's python3 ran, as the account ($lu_uid)"
status=0
"$gpudoctor" check --from "$work/b.tar.gz" --format json >"$work/replay.json" || status=$?
[[ $status == 0 || $status == 1 ]] || fail "check --from the bundle exited $status"
names_skipped "$work/replay.json" "$own" "$lu_home is owned by $lu_user"
expect "$work/replay.json" "any(x['id']=='tool.untrusted' and x['subject']=='$own/python3' and x['status']=='info' and 'ran it as $lu_user, not as root' in x['message'] for x in r['results'])" \
  "replay: the account's python3 was asked as $lu_user, not as root"
