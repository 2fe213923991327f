#!/usr/bin/env bash
# Long runs say what they do (issue 30 item 5): `bundle` at a terminal shows one progress line per stage that
# erases itself, and ends with the archive's size, its SHA-256 and what to do with it; on a pipe it says only
# the line it always said. Run in a pseudo-terminal (tests/e2e/pty_run.py).
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

pty() { "$py" "$source_dir/tests/e2e/pty_run.py" "$@"; }

gpudoctor=$(realpath "$gpudoctor") # the archives are named relative to $work
cd "$work"
TERM=xterm pty 80 "$work/tty" "$gpudoctor" bundle -o tty.tar.gz || fail "bundle in a pty failed: $(head -c 600 "$work/tty")"
[[ -s tty.tar.gz ]] || fail "bundle in a pty wrote no archive"
"$py" - "$work/tty" "$(sha256sum tty.tar.gz | cut -d' ' -f1)" "$(stat -c %s tty.tar.gz)" <<'EOF' || fail "the terminal's bundle output: see above"
import re, sys
text = open(sys.argv[1], encoding="utf-8", newline="").read()
digest, size = sys.argv[2], int(sys.argv[3])
# Each stage is a line left open and erased (CR, erase to the end of the line) by what follows.
stages = re.findall(r"gpudoctor: ([^\n\r]*) \.\.\.\r\x1b\[K", text)
want = ["recording this machine", "redacting the snapshot", "judging the redacted snapshot", "packing tty.tar.gz"]
if stages != want:
    sys.exit(f"progress lines {stages}, expected {want}")
shown = re.sub(r"[^\n\r]*\r\x1b\[K", "", text)  # what stays on the screen
lines = shown.splitlines()
if not any(l.startswith("gpudoctor: wrote tty.tar.gz (") for l in lines):
    sys.exit(f"no 'wrote' line: {lines}")
if f"    SHA-256 {digest}" not in lines:
    sys.exit(f"the SHA-256 shown is not sha256sum's {digest}: {lines}")
kib = f"{size / 1024:.1f} KiB" if size < 1 << 20 else f"{size / (1 << 20):.1f} MiB"
if f"    size {kib}" not in lines:
    sys.exit(f"the size shown is not {kib}: {lines}")
if "send this file to whoever asked for it" not in shown or "tar -tzf tty.tar.gz" not in shown:
    sys.exit(f"no sentence on what to send: {lines}")
if lines[-1] != "tty.tar.gz":
    sys.exit(f"the path is not the last line (stdout): {lines[-1]!r}")
EOF
pass "bundle at a terminal: four stages erased in turn, then size, SHA-256 and what to send"

# On a pipe: stderr is the one line it always was, stdout the path.
"$gpudoctor" bundle -o pipe.tar.gz >"$work/pipe.out" 2>"$work/pipe.err" || fail "bundle on a pipe failed: $(cat "$work/pipe.err")"
[[ $(cat "$work/pipe.out") == pipe.tar.gz ]] || fail "bundle on a pipe printed $(cat "$work/pipe.out") on stdout"
grep -q $'\r' "$work/pipe.err" && fail "bundle on a pipe wrote a progress line"
grep -v '^gpudoctor: note: ' "$work/pipe.err" >"$work/pipe.said" || true
if [[ $(wc -l <"$work/pipe.said") != 1 ]] || ! grep -q '^gpudoctor: wrote pipe.tar.gz (' "$work/pipe.said"; then
  fail "bundle on a pipe said more than its line: $(cat "$work/pipe.err")"
fi
pass "bundle on a pipe: no progress, no digest, only the 'wrote' line and the path"

# A narrow terminal: each progress line is cut to stay one line (a wrapped one could not be erased).
TERM=xterm pty 30 "$work/narrow" "$gpudoctor" bundle -o a-bundle-with-a-long-name.tar.gz ||
  fail "bundle at 30 columns failed"
"$py" - "$work/narrow" <<'EOF' || fail "a progress line at 30 columns is longer than the terminal"
import re, sys
text = open(sys.argv[1], encoding="utf-8", newline="").read()
for line in re.findall(r"([^\n\r]*)\r\x1b\[K", text):
    if len(line) > 29:
        sys.exit(f"{len(line)} columns: {line!r}")
EOF
pass "at 30 columns each progress line stays within 29 columns"
