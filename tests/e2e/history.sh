#!/usr/bin/env bash
# The node's history (docs/fleet.md, "History"): `check --history-dir` keeps each report (0600, in a 0700
# folder, redacted), `history` lists them newest first with the last good one marked (an older gpudoctor's
# report too), `diff --last-good` names the kept report it compared with and what changed since (a driver
# upgrade, a variable), skipping a newer gpudoctor's report; `--last` takes the newest. The bounds (count and
# bytes) hold after many runs and keep the last good report; `--textfile` writes the metrics only where the
# folder exists; root's history refuses a user with the reason; --from never goes into root's history.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

h200=$source_dir/tests/machines/nvidia-h200-real/snapshot
hist=$work/history

# The same machine, broken: the kernel module upgraded under the user-space driver, and a variable set.
cp -r "$h200" "$work/broken"
sed -i 's/580\.159\.04/590.10.01/' "$work/broken/fs/proc/driver/nvidia/version"
"$py" - "$work/broken/env.json" <<'PY'
import json, sys
env = json.load(open(sys.argv[1]))
env["NCCL_P2P_DISABLE"] = "1"
json.dump(env, open(sys.argv[1], "w"))
PY

keep() { # SNAPSHOT [OPTIONS...]: check --from SNAPSHOT, kept in $hist; exits 0 or 1
  local snap=$1 status=0
  shift
  "$gpudoctor" check --from "$snap" --history-dir "$hist" "$@" >/dev/null 2>"$work/keep.err" || status=$?
  ((status <= 1)) || fail "check --history-dir exited $status: $(cat "$work/keep.err")"
}
keep "$h200"
keep "$work/broken"
keep "$work/broken"
[[ $(stat -c %a "$hist") == 700 ]] || fail "the history folder is $(stat -c %a "$hist"), not 0700"
modes=$(stat -c %a "$hist"/*.json | sort -u)
[[ $modes == 600 ]] || fail "kept reports have modes $modes, not 0600"
kept=$(cd "$hist" && printf '%s\n' *.json)
[[ $(grep -cE '^[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-ok\.json$' <<<"$kept") == 1 ]] || fail "not one report kept as good: $kept"
[[ $(grep -cE '^[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-error\.json$' <<<"$kept") == 2 ]] || fail "not two kept with errors: $kept"
pass "three checks kept three reports (0600, in a 0700 folder), named by time and whether they had an error"

# A report an older gpudoctor wrote (format 1 with only the fields of the spec's example) still lists.
"$py" - "$hist" <<'PY'
import json, sys
old = {"format": "gpudoctor-report", "version": 1, "tool": {"name": "gpudoctor", "version": "0.0.9"},
       "host": {"hostname": "ignored"}, "results": [{"id": "gpu.none", "status": "warn", "subject": ""}]}
json.dump(old, open(sys.argv[1] + "/20200101T000000.000000Z-ok.json", "w"))
PY
chmod 600 "$hist/20200101T000000.000000Z-ok.json"
"$gpudoctor" history --history-dir "$hist" --format json >"$work/list.json" || fail "history --format json failed"
expect "$work/list.json" "r['format'] == 'gpudoctor-history' and len(r['reports']) == 4" "history lists the four reports"
expect "$work/list.json" "[x['good'] for x in r['reports']] == [False, False, True, True] and r['reports'][0]['name'] > r['reports'][1]['name']" \
  "newest first, with whether each had an error"
expect "$work/list.json" "r['reports'][3]['tool_version'] == '0.0.9' and r['reports'][3]['summary']['warn'] == 1" \
  "an older gpudoctor's report is read (its version, its counts)"
expect "$work/list.json" "r['reports'][0]['summary']['error'] >= 1 and r['reports'][2]['summary']['error'] == 0" \
  "each report's errors"
"$gpudoctor" history --history-dir "$hist" >"$work/list.txt" || fail "history failed"
grep -qF -- "$(jq_py "$work/list.json" "r['reports'][2]['name']")  ← last good" "$work/list.txt" ||
  fail "the text does not mark the newest good report: $(cat "$work/list.txt")"
pass "the text marks the last good report"

# diff --last-good: the newest good report (of this or an older gpudoctor) against the broken snapshot.
status=0
"$gpudoctor" diff --last-good --history-dir "$hist" "$work/broken" --format json >"$work/d.json" || status=$?
[[ $status == 1 ]] || fail "diff --last-good exited $status, not 1 (something changed)"
good=$(jq_py "$work/list.json" "r['reports'][2]['name']")
expect "$work/d.json" "r['before']['input'].endswith('/$good') and 'the newest without an error' in r['before']['origin']" \
  "diff --last-good names the report it compared with"
fact() { echo "[f for f in r['facts'] if f['name'] == '$1'][0]"; }
expect "$work/d.json" "$(fact 'NVIDIA kernel module')['before'].startswith('580.159.04') and $(fact 'NVIDIA kernel module')['after'].startswith('590.10.01')" \
  "the driver change is named"
expect "$work/d.json" "$(fact NCCL_P2P_DISABLE)['before'] is None and $(fact NCCL_P2P_DISABLE)['after'] == '1'" \
  "the variable set since is named"
expect "$work/d.json" "any(x['id'] == 'driver.nvidia-mismatch' and x['after'] == 'error' for x in r['results'])" \
  "and the conclusion it changed"
"$gpudoctor" diff --last-good --history-dir "$hist" "$work/broken" --color never >"$work/d.txt" || [[ $? == 1 ]] ||
  fail "diff --last-good as text failed"
grep -qF "$good (kept " "$work/d.txt" || fail "the text does not name the kept report: $(head -n 5 "$work/d.txt")"
pass "the text names the kept report and when it was kept"

# --last: the newest kept report, here the broken one: nothing changed.
status=0
"$gpudoctor" diff --last --history-dir "$hist" "$work/broken" --format json >"$work/last.json" || status=$?
[[ $status == 0 ]] || fail "diff --last against the same snapshot exited $status, not 0"
expect "$work/last.json" "not r['changed'] and r['before']['input'].endswith('-error.json')" "diff --last takes the newest report"

# A newer gpudoctor's good report is passed over, and said so.
"$py" - "$hist/$good" "$hist/20991231T000000.000000Z-ok.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["tool"]["version"] = "99.0.0"
json.dump(r, open(sys.argv[2], "w"))
PY
chmod 600 "$hist/20991231T000000.000000Z-ok.json"
"$gpudoctor" diff --last-good --history-dir "$hist" "$work/broken" --format json >"$work/d2.json" || [[ $? == 1 ]] ||
  fail "diff --last-good with a newer gpudoctor's report failed"
expect "$work/d2.json" "r['before']['input'].endswith('/$good') and any('newer gpudoctor' in n for n in r['notes'])" \
  "a newer gpudoctor's good report is passed over, with a note"
rm "$hist/20991231T000000.000000Z-ok.json"

# Bad uses are refused with the reason (exit 2).
status=0
"$gpudoctor" diff --last-good --last "$work/broken" 2>"$work/err" || status=$?
refused() { # STATUS WORDS WHAT: exit 2 and the reason in $work/err
  [[ $1 == 2 ]] && grep -q -- "$2" "$work/err" && return 0
  fail "$3: exit $1, $(cat "$work/err")"
}
refused "$status" "not both" "--last-good with --last"
status=0
"$gpudoctor" diff --last-good --history-dir "$work/empty-history" 2>"$work/err" || status=$?
refused "$status" "no history in" "a missing history"
status=0
"$gpudoctor" check --from "$h200" --history 2>"$work/err" >/dev/null || status=$?
refused "$status" "history-dir" "--history with --from"
status=0
"$gpudoctor" check --from "$h200" --history-dir "$hist" --only gpu.none 2>"$work/err" >/dev/null || status=$?
refused "$status" "whole reports" "--history with --only"
pass "--last-good with --last, a missing history, --history with --from or --only: refused (exit 2) with the reason"

# The bounds, after many runs: by count, then by bytes; the last good report stays.
for _ in 1 2 3 4 5 6; do keep "$work/broken" --history-max-reports 3; done
"$gpudoctor" history --history-dir "$hist" --format json >"$work/list.json"
expect "$work/list.json" "len(r['reports']) == 4 and [x['good'] for x in r['reports']] == [False, False, False, True] and r['reports'][3]['name'] == '$good'" \
  "--history-max-reports 3 after six runs: the three newest and the last good report"
size=$(stat -c %s "$hist/$good")
for _ in $(seq 1 $((1048576 / size + 3))); do keep "$work/broken" --history-max-mib 1; done
total=$(cat "$hist"/*.json | wc -c)
((total <= 1048576 + size)) || fail "--history-max-mib 1 left $total bytes"
[[ -f $hist/$good ]] || fail "the byte bound removed the last good report"
pass "--history-max-mib 1 after $((1048576 / size + 3)) runs: $total bytes kept, the last good report among them"

# --textfile: written (0644) where its folder exists, a note where it does not.
status=0
"$gpudoctor" check --from "$h200" --textfile "$work/no-exporter/gpudoctor.prom" >/dev/null 2>"$work/err" || status=$?
if ((status > 1)) || [[ -e $work/no-exporter ]] || ! grep -q "no metrics written" "$work/err"; then
  fail "--textfile into a missing folder: exit $status, $(cat "$work/err")"
fi
mkdir "$work/exporter"
"$gpudoctor" check --from "$h200" --format json --textfile "$work/exporter/gpudoctor.prom" >"$work/r.json" || [[ $? == 1 ]] ||
  fail "check --textfile failed"
[[ $(stat -c %a "$work/exporter/gpudoctor.prom") == 644 ]] || fail "--textfile did not write the metrics 0644"
grep -q '^gpudoctor_check_result' "$work/exporter/gpudoctor.prom" || fail "--textfile wrote no metrics"
expect "$work/r.json" "r['format'] == 'gpudoctor-report'" "--textfile leaves the report on stdout as it was"
pass "--textfile: metrics only where the folder exists"

# Root's history is root's: a user is told so (exit 2), whatever the subcommand.
as_user=()
if [[ $(id -u) == 0 ]]; then
  command -v setpriv >/dev/null || skip "setpriv is missing: the user's side is not tested"
  as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
fi
for cmd in "history" "check --history" "diff --last-good"; do
  status=0
  # shellcheck disable=SC2086 # the subcommand's words
  (cd / && "${as_user[@]}" "$gpudoctor" $cmd >/dev/null 2>"$work/user.err") || status=$?
  cp "$work/user.err" "$work/err"
  refused "$status" "needs root: the history is root's" "gpudoctor $cmd as a user"
done
pass "history, check --history and diff --last-good as a user: 'needs root', exit 2"
