#!/usr/bin/env bash
# The first minute at the prompt (issue 30): bare `gpudoctor` does a doctor's job (it runs check, with check's
# output and exit status, and one note on stderr pointing at --help), and `explain` without an id lists
# every id it explains. The "did you mean" lines are rows of tests/e2e/error_paths.sh.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

# Bare: the same report and status as `gpudoctor check` (this machine, no GPU in CI: either status).
"$gpudoctor" >"$work/bare.out" 2>"$work/bare.err" && bare=0 || bare=$?
"$gpudoctor" check >"$work/check.out" 2>"$work/check.err" && checked=0 || checked=$?
((bare == checked)) || fail "bare gpudoctor exited $bare, gpudoctor check $checked"
((bare == 0 || bare == 1)) || fail "bare gpudoctor exited $bare: $(head -c 400 "$work/bare.err")"
# The report names the time it took; the rest is the same.
diff <(sed -E 's/[0-9]+ ms/N ms/g' "$work/bare.out") <(sed -E 's/[0-9]+ ms/N ms/g' "$work/check.out") >"$work/bare.diff" ||
  fail "bare gpudoctor's report is not check's: $(head -c 400 "$work/bare.diff")"
# shellcheck disable=SC2016 # the backquotes are gpudoctor's, not the shell's
grep -qxF 'gpudoctor: note: no subcommand given: running `gpudoctor check` (`gpudoctor --help` lists the others)' \
  "$work/bare.err" || fail "bare gpudoctor does not say it runs check: $(head -c 400 "$work/bare.err")"
grep -q 'no subcommand given' "$work/check.err" && fail "gpudoctor check says it was run bare"
pass "bare gpudoctor runs check (exit $bare) and says so on stderr"

# --help still lists the subcommands and exits 0; so does --version.
"$gpudoctor" --help >"$work/help" || fail "gpudoctor --help exited $?"
for sub in check bundle probe explain fix migrate undo fleet diff; do
  grep -qE "^  $sub( |$)" "$work/help" || fail "gpudoctor --help does not list $sub"
done
pass "gpudoctor --help lists the subcommands"

# explain without an id: every check id and every fix id of the catalogues, with its title.
"$gpudoctor" explain >"$work/ids" || fail "gpudoctor explain exited $?"
while read -r id _; do
  grep -qE "^$id +[^ ]" "$work/ids" || fail "gpudoctor explain does not list the check $id"
done < <("$gpudoctor" check --list)
while read -r id; do
  grep -qE "^$id +[^ ]" "$work/ids" || fail "gpudoctor explain does not list the fix $id"
done < <(sed -n 's/^  - id: \([a-z0-9-]*\).*/\1/p' "$source_dir/fixes/catalogue.yaml")
pass "gpudoctor explain lists every check id and fix id"
