#!/usr/bin/env bash
# The man page (cmake/man_page.cmake, docs/man/sections.h2m) has the sections people look for: every
# subcommand's options, EXIT STATUS per subcommand, ENVIRONMENT, FILES and EXAMPLES; man renders it.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

command -v help2man >/dev/null || skip "no help2man"
cmake -DGPUDOCTOR="$gpudoctor" -DHELP2MAN="$(command -v help2man)" -DOUT="$work/man/gpudoctor.1.gz" \
  -P "$source_dir/cmake/man_page.cmake" >"$work/cmake.out" 2>&1 || fail "the man page build failed: $(tail -5 "$work/cmake.out")"
zcat "$work/man/gpudoctor.1.gz" >"$work/gpudoctor.1" || fail "the man page is not gzip"
for section in NAME SYNOPSIS COMMANDS '"EXIT STATUS"' ENVIRONMENT FILES EXAMPLES '"SEE ALSO"'; do
  grep -q "^\.SH $section\$" "$work/gpudoctor.1" || fail "the man page has no section $section"
done
for sub in check bundle probe explain fix migrate undo fleet diff; do
  grep -q "^\.SS \"gpudoctor $sub\"" "$work/gpudoctor.1" || fail "the man page has no subsection for $sub"
done
pass "the man page has its sections and one subsection per subcommand"

command -v man >/dev/null || skip "no man to render the page"
MANWIDTH=100 man -l "$work/gpudoctor.1" 2>"$work/man.err" | col -b >"$work/man.txt" || fail "man -l failed: $(head -3 "$work/man.err")"
# Each subcommand's exit statuses, and bundle's 4 for a failed upload.
awk '/^EXIT STATUS/,/^ENVIRONMENT/' "$work/man.txt" >"$work/exit.txt"
for sub in check bundle explain fix undo fleet diff; do
  grep -qE "^ +$sub\b" "$work/exit.txt" || fail "EXIT STATUS says nothing of $sub"
done
# man justifies the text: its phrases are read with the spaces squeezed.
flat=$(tr '\n\t' '  ' <"$work/exit.txt" | tr -s ' ')
[[ $flat == *"4: written, but the upload failed"* ]] || fail "EXIT STATUS lacks bundle's 4"
[[ $flat == *"130 on SIGINT and 143 on SIGTERM"* ]] || fail "EXIT STATUS lacks the signals"
grep -q 'NO_COLOR' "$work/man.txt" || fail "ENVIRONMENT lacks NO_COLOR"
grep -q '/var/log/gpudoctor/ID.journal' "$work/man.txt" || fail "FILES lacks the journal"
grep -q 'gpudoctor check --format json' "$work/man.txt" || fail "EXAMPLES lack check --format json"
[[ -s $work/man.err ]] && fail "man warned: $(head -3 "$work/man.err")"
pass "man renders the page: exit statuses per subcommand, environment, files, examples"
