#!/usr/bin/env bash
# Width and colour at a person's terminal (issue 30 item 3), run in a pseudo-terminal of a set size
# (tests/e2e/pty_run.py): the text outputs wrap to its width with the hanging indent kept, a word longer than
# the width stays whole on its own line, nothing wraps on a pipe, and TERM=dumb or NO_COLOR get no colour.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

pty() { "$py" "$source_dir/tests/e2e/pty_run.py" "$@"; }
snap=$source_dir/tests/machines/amd-rx7900xtx-cuda-extensions/snapshot
other=$source_dir/tests/machines/amd-rx7900xtx-hsa-override-942/snapshot

# fits FILE WIDTH [PIPED]: every line of FILE (escape sequences stripped) is at most WIDTH columns, or is one
# word; with PIPED (the same output on a pipe), FILE holds the same words in the same order.
fits() {
  "$py" - "$@" <<'EOF'
import re, sys
path, width = sys.argv[1], int(sys.argv[2])
strip = lambda t: re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", t)
text = strip(open(path, encoding="utf-8").read())
for n, line in enumerate(text.splitlines(), 1):
    if len(line) > width and len(line.split()) > 1:
        sys.exit(f"{path}:{n}: {len(line)} columns at a terminal of {width}: {line!r}")
if len(sys.argv) > 3:
    piped = strip(open(sys.argv[3], encoding="utf-8").read())
    if text.split() != piped.split():
        a, b = text.split(), piped.split()
        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        sys.exit(f"{path}: the words differ from the pipe's at word {at}: {a[at:at+5]} against {b[at:at+5]}")
EOF
}
longest() { "$py" -c 'import sys; print(max(map(len, open(sys.argv[1], encoding="utf-8").read().splitlines())))' "$1"; }

# check: at 80 columns no line is wider (but a single long path), and the words are those of the pipe.
TERM=xterm pty 80 "$work/check80" "$gpudoctor" check --from "$snap" && status=0 || status=$?
((status == 1)) || fail "check --from in a pty exited $status: $(head -c 400 "$work/check80")"
NO_COLOR=1 "$gpudoctor" check --from "$snap" >"$work/check.pipe" 2>/dev/null && status=0 || status=$?
((status == 1)) || fail "check --from on a pipe exited $status"
(($(longest "$work/check.pipe") > 100)) || fail "the pipe's lines were wrapped (or the fixture has no long line)"
fits "$work/check80" 80 "$work/check.pipe" || fail "check at 80 columns does not fit or lost words"
# The hanging indent: an evidence line ("· library PATH") continues under its text, a result's title line
# under its title, the Python row of the machine table under its value.
grep -qE '^        /home/lena/venvs/sd/lib/python3.10/site-packages/bitsandbytes/libbitsandbytes_cuda' \
  <<<"$(sed 's/\x1b\[[0-9;]*m//g' "$work/check80")" || fail "no evidence continuation under its text at 80 columns"
grep -qE '^           \[python\.extension-mismatch' <<<"$(sed 's/\x1b\[[0-9;]*m//g' "$work/check80")" ||
  fail "a result's title line does not continue under its title"
grep -qE '^              2\.3\.1\+rocm6\.0' <<<"$(sed 's/\x1b\[[0-9;]*m//g' "$work/check80")" ||
  fail "the machine table's Python row does not continue under its value"
grep -q $'\033\\[' "$work/check80" || fail "TERM=xterm in a pty gets no colour"
pass "check --from at 80 columns: every line fits, the indents hang, the words are the pipe's"

# Narrower, and a terminal that says no width: COLUMNS decides; a nonsense COLUMNS is not used.
TERM=xterm pty 50 "$work/check50" "$gpudoctor" check --from "$snap" || true
fits "$work/check50" 50 "$work/check.pipe" || fail "check at 50 columns does not fit"
COLUMNS=60 TERM=xterm pty 0 "$work/check0" "$gpudoctor" check --from "$snap" || true
fits "$work/check0" 60 "$work/check.pipe" || fail "a terminal of no width with COLUMNS=60 does not fit 60"
COLUMNS=banana TERM=xterm pty 0 "$work/check0x" "$gpudoctor" check --from "$snap" || true
(($(longest "$work/check0x") > 100)) || fail "COLUMNS=banana on a terminal of no width wrapped the output"
pass "50 columns fit; a terminal of no width wraps at COLUMNS=60, and not at COLUMNS=banana"

# Colour: TERM=dumb and NO_COLOR get none at a terminal; --color always still gets it.
TERM=dumb pty 80 "$work/dumb" "$gpudoctor" check --from "$snap" || true
grep -q $'\033' "$work/dumb" && fail "TERM=dumb got escape sequences"
NO_COLOR=1 TERM=xterm pty 80 "$work/nocolor" "$gpudoctor" check --from "$snap" || true
grep -q $'\033' "$work/nocolor" && fail "NO_COLOR got escape sequences"
fits "$work/dumb" 80 "$work/check.pipe" || fail "TERM=dumb is not wrapped like any terminal"
TERM=dumb pty 80 "$work/always" "$gpudoctor" check --from "$snap" --color always || true
grep -q $'\033\\[' "$work/always" || fail "--color always on TERM=dumb got no colour"
pass "TERM=dumb and NO_COLOR get no colour at a terminal, --color always does"

# The other text outputs: explain, diff and fleet; and gpudoctor's own messages on stderr.
TERM=xterm pty 80 "$work/explain" "$gpudoctor" explain python.extension-mismatch || fail "explain in a pty failed"
"$gpudoctor" explain python.extension-mismatch >"$work/explain.pipe"
fits "$work/explain" 80 "$work/explain.pipe" || fail "explain at 80 columns"
TERM=xterm pty 80 "$work/diff" "$gpudoctor" diff "$snap" "$other" || true
"$gpudoctor" diff "$snap" "$other" >"$work/diff.pipe" 2>/dev/null || true
[[ -s $work/diff.pipe ]] || fail "diff printed nothing on a pipe"
fits "$work/diff" 80 "$work/diff.pipe" || fail "diff at 80 columns"
TERM=xterm pty 80 "$work/fleet" "$gpudoctor" fleet "$snap" "$other" || true
"$gpudoctor" fleet "$snap" "$other" >"$work/fleet.pipe" 2>/dev/null || true
fits "$work/fleet" 80 "$work/fleet.pipe" || fail "fleet at 80 columns"
TERM=xterm pty 60 "$work/usage" "$gpudoctor" check --formt json && fail "check --formt json succeeded"
fits "$work/usage" 60 || fail "a usage error at 60 columns"
grep -q 'did you mean' "$work/usage" || fail "the usage error lost its suggestion: $(cat "$work/usage")"
pass "explain, diff, fleet and gpudoctor's messages fit 80 (60) columns with the pipe's words"
