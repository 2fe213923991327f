#!/usr/bin/env bash
# The bash completion script that `gpudoctor completion bash` generates from the command-line parser (the
# package installs it): bash and shellcheck accept it, and driven the way bash drives it (COMP_WORDS,
# COMP_CWORD), it offers every subcommand and exactly the options that `gpudoctor SUB --help` lists, and the choices
# of --format and --color.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"

script=$work/gpudoctor.bash
"$gpudoctor" completion bash >"$script" || fail "gpudoctor completion bash failed"
bash -n "$script" || fail "bash rejects the completion script"
if command -v shellcheck >/dev/null; then
  shellcheck -s bash "$script" || fail "shellcheck has remarks on the completion script"
fi

# complete WORD... : what the completion offers for the last word (one per line).
complete_words() {
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpudoctor; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$script" gpudoctor "$@"
}

# The judge: what --help says, parsed from CLI11's help text, not from the script.
mapfile -t subs < <("$gpudoctor" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF {print $1}')
((${#subs[@]} >= 7)) || fail "could not read the subcommands from --help: ${subs[*]}"
offered=$(complete_words "")
for sub in "${subs[@]}"; do
  grep -qx "$sub" <<<"$offered" || fail "'gpudoctor <TAB>' does not offer $sub"
  mapfile -t opts < <("$gpudoctor" "$sub" --help | grep -oE '^  (-[a-z],)?--[a-z-]+' | sed -E 's/^  (-[a-z],)?//')
  ((${#opts[@]})) || fail "could not read the options of $sub from its --help"
  offered_sub=$(complete_words "$sub" "--")
  for opt in "${opts[@]}"; do
    grep -qx -- "$opt" <<<"$offered_sub" || fail "'gpudoctor $sub --<TAB>' does not offer $opt"
  done
  # And the other way: nothing is offered that --help does not list (a deprecated option is in neither).
  while read -r word; do
    printf '%s\n' "${opts[@]}" | grep -x -- "$word" >/dev/null || fail "'gpudoctor $sub --<TAB>' offers $word, which $sub --help lacks"
  done <<<"$offered_sub"
  pass "gpudoctor $sub: the completion offers exactly the ${#opts[@]} options of its --help"
done
grep -qx completion <<<"$offered" && fail "the hidden completion subcommand is offered"
[[ $(complete_words check --format "" | sort | paste -sd' ') == "html json junit npd prometheus text" ]] ||
  fail "check --format <TAB> offers: $(complete_words check --format "" | paste -sd' ')"
[[ $(complete_words check --format pr) == prometheus ]] || fail "check --format pr<TAB> is not prometheus"
[[ $(complete_words probe --color "" | sort | paste -sd' ') == "always auto never" ]] || fail "probe --color choices"
touch "$work/snap.tar.gz"
[[ $(cd "$work" && complete_words check --from sn) == snap.tar.gz ]] || fail "check --from does not complete files"
[[ -z $(cd "$work" && complete_words check --timeout "") ]] || fail "check --timeout <TAB> offers file names"
pass "check --format and probe --color offer their choices, --from completes files, --timeout nothing"

# Ids: explain offers every check and fix id, check --only the check ids (after a comma too), fix the fix ids;
# the judge is what `gpudoctor explain` lists.
mapfile -t check_ids < <("$gpudoctor" check --list | awk '{print $1}')
mapfile -t fix_ids < <("$gpudoctor" explain | sed -n '/^Fixes/,$p' | awk 'NR > 1 && NF {print $1}')
((${#check_ids[@]} > 20 && ${#fix_ids[@]} > 5)) || fail "could not read the ids: ${#check_ids[@]} checks, ${#fix_ids[@]} fixes"
sorted() { sort | paste -sd' '; }
[[ $(complete_words explain "" | sorted) == $(printf '%s\n' "${check_ids[@]}" "${fix_ids[@]}" | sorted) ]] ||
  fail "explain <TAB> does not offer exactly the check and fix ids"
[[ $(complete_words check --only "" | sorted) == $(printf '%s\n' "${check_ids[@]}" | sorted) ]] ||
  fail "check --only <TAB> does not offer exactly the check ids"
[[ $(complete_words fix "" | sorted) == $(printf '%s\n' "${fix_ids[@]}" | sorted) ]] ||
  fail "fix <TAB> does not offer exactly the fix ids"
expected=$(printf '%s\n' "${check_ids[@]}" | grep '^python\.' | sed 's/^/gpu.none,/' | sorted)
[[ -n $expected && $(complete_words check --only gpu.none,python. | sorted) == "$expected" ]] ||
  fail "check --only gpu.none,python.<TAB> offers: $(complete_words check --only gpu.none,python. | sorted)"
[[ $(complete_words explain -) == $'-h\n--help' ]] || fail "explain --<TAB> does not offer its options"
pass "explain, check --only (after a comma too) and fix offer the ${#check_ids[@]} check and ${#fix_ids[@]} fix ids"

# Files and folders: fleet's and diff's positionals, check --from, undo --state; a folder ends with /.
mkdir -p "$work/tree/snapdir" "$work/tree/other"
touch "$work/tree/report.json" "$work/tree/snap.tar.gz"
in_tree() { (cd "$work/tree" && complete_words "$@" | sorted); }
for words in "fleet" "fleet report.json" "diff" "diff snap.tar.gz" "check --from" "undo --state" "fix --emit"; do
  # shellcheck disable=SC2086 # the words are split on purpose
  [[ $(in_tree $words "") == "other/ report.json snap.tar.gz snapdir/" ]] ||
    fail "gpudoctor $words <TAB> offers: $(in_tree $words "")"
done
[[ $(in_tree check --from snapd) == snapdir/ ]] || fail "check --from snapd<TAB> is not snapdir/"
[[ $(in_tree check --knowledge "") == "other/ snapdir/" ]] || fail "check --knowledge <TAB> offers files"
for words in "bundle --upload" "fix --mirror" "fix --driver" "undo --script" "check --timeout"; do
  # shellcheck disable=SC2086
  [[ -z $(in_tree $words "") ]] || fail "gpudoctor $words <TAB> offers file names: $(in_tree $words "")"
done
pass "fleet, diff, check --from, undo --state complete files and folders (folder/); --knowledge folders; URLs nothing"

# As a person gets it: an interactive bash in a pty, readline doing the completion. A folder is completed
# with its / and no space after it; a file with a space; an id whole.
"$py" - "$script" "$work/tree" "$(dirname "$gpudoctor")" <<'PY' || fail "interactive completion: see above"
import os, pty, select, sys, time
script, tree, bindir = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    os.chdir(tree)
    env = dict(os.environ, PS1="$ ", PATH=bindir + ":" + os.environ["PATH"], INPUTRC="/dev/null", TERM="dumb")
    os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], env)
def read_for(seconds):
    out, end = b"", time.monotonic() + seconds
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                out += os.read(fd, 4096)
            except OSError:
                break
    return out.decode(errors="replace")
os.write(fd, f"source '{script}'\n".encode())
read_for(1.5)
def typed(line):
    # What the terminal shows of the line typed, TAB, then an X; Ctrl-C drops the line: nothing runs.
    os.write(fd, line.encode())
    shown = read_for(1.0)
    os.write(fd, b"X")
    shown += read_for(0.5)
    os.write(fd, b"\x03")
    read_for(0.5)
    return shown
cases = [("gpudoctor check --from snapd\t", "gpudoctor check --from snapdir/X"),
         ("gpudoctor fleet repo\t", "gpudoctor fleet report.json X"),
         ("gpudoctor explain python.extension-mis\t", "gpudoctor explain python.extension-mismatch X")]
failed = False
for keys, want in cases:
    got = typed(keys)
    if want not in got:
        print(f"typing {keys!r}: expected {want!r} in {got!r}", file=sys.stderr)
        failed = True
os.write(fd, b"exit\n")
read_for(0.5)
os.waitpid(pid, 0)
sys.exit(1 if failed else 0)
PY
pass "at an interactive bash: a folder completes to folder/ with no space, a file and an id with one"
