#!/usr/bin/env bash
# Options a subcommand accepts but does not use are never dropped silently (scripts pass them): an option
# that a subcommand can never use (fix --color, fix --probe-timeout) is deprecated with a warning on stderr
# and left out of --help and the completion; an option that only matters with another one (--max-output-length
# without --format npd) says so, and one that another overrides (migrate --to with --resume, anything with
# check --list) says which wins.
# The options that are used give no such warning.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

snap=$source_dir/tests/machines/amd-to-nvidia-leftovers/snapshot

# warned WHAT PATTERN -- ARGS...: gpudoctor ARGS runs (any status) and its stderr matches PATTERN.
warned() {
  local what=$1 pattern=$2
  shift 3
  "$gpudoctor" "$@" >"$work/out" 2>"$work/err" || true
  grep -qE -- "$pattern" "$work/err" || fail "$what: no warning matching '$pattern' on stderr: $(head -c 600 "$work/err")"
  pass "$what"
}
# quiet WHAT -- ARGS...: gpudoctor ARGS gives no warning about an option.
quiet() {
  local what=$1
  shift 2
  "$gpudoctor" "$@" >"$work/out" 2>"$work/err" || true
  grep -E -- "warning: .*--" "$work/err" && fail "$what: a warning about an option that is used"
  pass "$what"
}

warned "fix --probe-timeout is named as ignored" "warning: fix --probe-timeout .*(ignored|no effect).*deprecated" -- \
  fix --from "$snap" --probe-timeout 5000
warned "fix --color is named as ignored" "warning: fix --color .*deprecated" -- fix --from "$snap" --color never
warned "migrate --probe-timeout is named as ignored" "warning: migrate --probe-timeout .*deprecated" -- \
  migrate --to nvidia --from "$snap" --probe-timeout 5000 --emit "$work/m.sh"
warned "migrate --color is named as ignored" "warning: migrate --color .*deprecated" -- \
  migrate --to nvidia --from "$snap" --color always --emit "$work/m.sh"
warned "bundle --color is named as ignored" "warning: bundle --color .*deprecated" -- \
  bundle --color never --upload http://example.invalid/x
warned "check --max-output-length without --format npd says so" "warning: check --max-output-length .*--format.npd" -- \
  check --from "$snap" --max-output-length 100
warned "bundle --ca-file without --upload says so" "warning: bundle --ca-file .*--upload" -- \
  bundle --ca-file /nonexistent --color never --upload-method POST --obfuscate-key /nonexistent/dir/key
warned "fix --yes without --apply says so" "warning: fix --yes .*--apply" -- fix --from "$snap" --yes
# Options another one overrides: the version choices of a migration that --resume continues as planned, and
# the script file of --emit when --apply keeps its own (the state file lives below --root: nothing to resume).
warned "migrate --to with --resume says it is ignored" "warning: migrate --to is ignored with --resume" -- \
  migrate --resume --to amd --cuda 12.8 --root "$work/no-root"
grep -q "warning: migrate --cuda is ignored with --resume" "$work/err" || fail "migrate --cuda with --resume: no warning"
warned "fix --emit with --apply says it is ignored" "warning: fix --emit is ignored with --apply" -- \
  fix env-cleanup --from "$snap" --apply --emit "$work/f.sh"
warned "check --list names each option it ignores" "warning: check --format is ignored with --list" -- \
  check --list --format json --from "$snap" -v
for option in --from --verbose; do
  grep -q "warning: check $option is ignored with --list" "$work/err" || fail "check --list $option: no warning"
done
[[ $(grep -c warning "$work/err") == 3 ]] || fail "check --list: not one warning per option given: $(cat "$work/err")"
quiet "check --list alone" -- check --list
quiet "check --color and --max-output-length with npd are used" -- \
  check --from "$snap" --color never --format npd --max-output-length 100
quiet "fix with the options it uses" -- fix --from "$snap" --timeout 2000 --python /usr/bin/python3

# The deprecated options still parse (exit status as without them) and are in neither --help nor the completion.
"$gpudoctor" fix --from "$snap" >/dev/null 2>&1 && plain=0 || plain=$?
"$gpudoctor" fix --from "$snap" --color never --probe-timeout 5000 >/dev/null 2>&1 && with=0 || with=$?
[[ $plain == "$with" ]] || fail "fix exits $with with the deprecated options, $plain without"
pass "fix with the deprecated options exits as without them ($plain)"
"$gpudoctor" completion bash >"$work/completion.bash"
for sub in fix migrate bundle; do
  grep -qE -- '--color' <<<"$("$gpudoctor" "$sub" --help)" && fail "$sub --help still lists --color"
  line=$(grep -E "^    $sub\) (mapfile|if )" "$work/completion.bash") || fail "no completion line for $sub"
  grep -qE -- '--color' <<<"$line" && fail "the completion still offers $sub --color"
done
pass "--color of fix, migrate and bundle is in neither --help nor the completion"
