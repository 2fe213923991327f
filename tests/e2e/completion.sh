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
