#!/usr/bin/env bash
# The command line refuses what it cannot use, with exit status 2 and a message naming the culprit
# (shared/spec/report-v1.md), and never does something else instead: an empty --from is not a live check, a
# FIFO given as --from is never opened, a bad TMPDIR never means unpacking into the current folder, a
# credential in --upload is never echoed, version options take only versions, bundles are private (0600).
source "$(dirname "$0")/../e2e/common.bash"
gpudoctor=$(realpath "$gpudoctor") # the commands run in another folder

# Runs the command in $work/cwd with a time limit; the exit status must be $1, stderr must hold $2.
expect_refusal() {
  local want=$1 pattern=$2 what=$3 status=0
  shift 3
  mkdir -p "$work/cwd"
  (cd "$work/cwd" && timeout -s KILL 60 "$@") >"$work/out" 2>"$work/err" </dev/null || status=$?
  [[ $status != 137 ]] || fail "$what: still running after 60 s (blocked?)"
  [[ $status == "$want" ]] || fail "$what: exit $status, not $want: $(head -c 300 "$work/err")"
  grep -qF -- "$pattern" "$work/err" || fail "$what: the message does not say \"$pattern\": $(head -c 300 "$work/err")"
  pass "$what: exit $want: $(head -n1 "$work/err" | cut -c 1-160)"
}

snap=$work/snap
mkdir -p "$snap"
printf '{"format": "gpudoctor-snapshot", "version": 1, "origin": "fixture"}\n' >"$snap/manifest.json"

# --from "" (an unset variable in a script) is an error, not a live check of the analyst's machine.
for sub in check probe fix migrate; do
  extra=()
  [[ $sub == migrate ]] && extra=(--to amd)
  expect_refusal 2 "--from" "$sub --from \"\"" "$gpudoctor" "$sub" --from "" "${extra[@]}"
done

# --from a FIFO or a device: refused without opening it (opening a FIFO with no writer blocks forever).
mkfifo "$work/fifo"
expect_refusal 2 "$work/fifo" "check --from a FIFO" "$gpudoctor" check --from "$work/fifo"
expect_refusal 2 "/dev/null" "check --from /dev/null" "$gpudoctor" check --from /dev/null
ln -s "$work/fifo" "$work/fifo-link.tar.gz"
expect_refusal 2 "fifo-link" "check --from a symlink to a FIFO" "$gpudoctor" check --from "$work/fifo-link.tar.gz"

# A bad --knowledge folder: exit 2 naming it (not 3, "gpudoctor itself failed").
expect_refusal 2 "$work/no-such-knowledge" "check --knowledge missing" \
  "$gpudoctor" check --from "$snap" --knowledge "$work/no-such-knowledge"
mkdir "$work/badknowledge"
printf 'gpus: [unclosed\n' >"$work/badknowledge/gpus.yaml"
expect_refusal 2 "badknowledge" "check --knowledge with broken YAML" \
  "$gpudoctor" check --from "$snap" --knowledge "$work/badknowledge"

# An --emit that cannot be written: exit 2 naming the path.
amd=$source_dir/tests/machines/amd-user-not-in-render/snapshot
nvidia=$source_dir/tests/machines/nvidia-rtx3090-healthy/snapshot
emit=/proc/version/gpudoctor-fix.sh # below a file: unwritable, even for root
expect_refusal 2 "$emit" "fix --emit to an unwritable path" \
  "$gpudoctor" fix groups-render-video --from "$amd" --emit "$emit"

# An unknown flag is named.
expect_refusal 2 "--no-such-flag" "an unknown flag" "$gpudoctor" check --no-such-flag
expect_refusal 2 "--also-unknown" "an unknown flag of fix" "$gpudoctor" fix --also-unknown

# A credential in a scheme-less --upload value is never echoed.
secret="pw$RANDOM$RANDOM"
for value in "user:$secret@host.example/x" "$secret@host.example" "ftp://user:$secret@host.example/x"; do
  expect_refusal 2 "--upload" "--upload $value" "$gpudoctor" bundle --upload "$value"
  if grep -q -- "$secret" "$work/err" "$work/out"; then fail "--upload $value: the credential is echoed"; fi
done
pass "no --upload credential echoed"

# Version options take a version (digits and dots), nothing else: each with a fix that uses it.
declare -A fix_for=([--driver]="install-nvidia $nvidia" [--cuda]="install-nvidia $nvidia"
  [--rocm]="install-rocm $amd" [--torch]="torch-reinstall $nvidia")
for option in --driver --cuda --rocm --torch; do
  read -r fix from <<<"${fix_for[$option]}"
  for bad in '12.8; touch /tmp/x' '$(id)' $'12.8\n' '' 'latest' '1..2' '.1' '1.' '12.8 ' '-1' '1.2.3.4.5' '1234567'; do
    expect_refusal 2 "$option: takes a version" "fix $fix $option '$bad'" \
      "$gpudoctor" fix "$fix" --from "$from" --render-all "$option" "$bad"
  done
  for good in 570 570.124.06 12.8 7.2.1 2.6.0; do
    "$gpudoctor" fix "$fix" --from "$from" --render-all "$option" "$good" >/dev/null 2>"$work/err" || true
    if grep -q "takes a version" "$work/err"; then fail "$option $good is refused as not a version"; fi
  done
done
pass "versions are accepted"

# An invalid TMPDIR never means unpacking into the current folder.
"$gpudoctor" check --from "$snap" >/dev/null 2>&1 || true
tar -czf "$work/snap.tar.gz" -C "$snap" .
for tmpdir in relative-dir "$work/missing" "$work/a-file" "$work/readonly" ""; do
  [[ $tmpdir == "$work/readonly" && $(id -u) == 0 ]] && continue # root writes anywhere
  : >"$work/a-file"
  rm -rf "$work/cwd" && mkdir -p "$work/cwd/relative-dir"
  status=0
  (cd "$work/cwd" && TMPDIR=$tmpdir timeout 60 "$gpudoctor" check --from "$work/snap.tar.gz") \
    >"$work/out" 2>"$work/err" || status=$?
  [[ -z $(ls -A "$work/cwd/relative-dir") && $(ls -A "$work/cwd") == relative-dir ]] ||
    fail "TMPDIR='$tmpdir': something was unpacked into the current folder: $(ls -A "$work/cwd" "$work/cwd/relative-dir")"
  if [[ -n $tmpdir ]]; then
    [[ $status == 2 ]] || fail "TMPDIR='$tmpdir': exit $status, not 2"
    grep -q TMPDIR "$work/err" || fail "TMPDIR='$tmpdir': the message does not name TMPDIR: $(cat "$work/err")"
  fi
  pass "TMPDIR='$tmpdir': exit $status, nothing in the current folder"
done

# Bundles are written 0600, whatever the umask.
status=0
(umask 022 && "$gpudoctor" bundle -o "$work/b.tar.gz" >/dev/null 2>"$work/err") || status=$?
[[ $status == 0 ]] || fail "bundle failed: $(cat "$work/err")"
mode=$(stat -c %a "$work/b.tar.gz")
[[ $mode == 600 ]] || fail "the bundle is mode $mode, not 600"
pass "the bundle is mode 600"
: >"$work/existing.tar.gz"
chmod 0644 "$work/existing.tar.gz"
(umask 022 && "$gpudoctor" bundle -o "$work/existing.tar.gz" >/dev/null 2>&1) || fail "bundle over a file failed"
mode=$(stat -c %a "$work/existing.tar.gz")
[[ $mode == 600 ]] || fail "a bundle written over a 0644 file is mode $mode, not 600"
pass "a bundle written over an existing file is mode 600"

# An output that names something other than a regular file is refused and left as it was: every output is
# written beside its target and renamed over it, which would put a regular file in place of a device node
# (/dev/null, run as root) or of a link (/dev/stdout). The nodes are made here, never the machine's own.
mkfifo "$work/fifo-out"
ln -s "$work/linked-file" "$work/link-out"
echo "the file behind the link" >"$work/linked-file"
targets=("$work/fifo-out" "$work/link-out")
fixture=$source_dir/tests/machines/amd-to-nvidia-leftovers/snapshot # a machine env-cleanup has a plan for
if mknod "$work/null-out" c 1 3 2>/dev/null; then targets+=("$work/null-out"); fi # root: a copy of /dev/null
ls -l "${targets[@]}" >"$work/nodes.before"
(cd "$source_dir" && "$gpudoctor" check --from "$snap" --format json) >"$work/r.json" 2>/dev/null || true
for target in "${targets[@]}"; do
  for command in "check --from $snap -o" "fix env-cleanup --from $fixture --emit" "bundle -o" \
    "fleet $work/r.json -o" "diff $work/r.json $work/r.json -o"; do
    status=0
    # shellcheck disable=SC2086 # the words of the command
    timeout -s KILL 60 "$gpudoctor" $command "$target" >/dev/null 2>"$work/err" </dev/null || status=$?
    [[ $status == 2 ]] || fail "$command ${target##*/}: exit $status, not 2: $(head -c 300 "$work/err")"
    grep -q "not a regular file" "$work/err" || fail "$command ${target##*/}: $(head -c 300 "$work/err")"
  done
done
ls -l "${targets[@]}" | cmp -s - "$work/nodes.before" || fail "a node was replaced: $(ls -l "${targets[@]}")"
[[ $(cat "$work/linked-file") == "the file behind the link" ]] || fail "the file behind the link was written"
pass "check -o, fix --emit, bundle -o, fleet -o and diff -o refuse a FIFO, a link$( ((${#targets[@]} > 2)) && echo " and a device node") and leave them as they were"

# Every path and value from the command line that gpudoctor prints is escaped (docs/security.md, "Outputs"):
# each subcommand given a path holding ESC[2J, a line feed and U+202E prints no control character, on stdout
# or stderr, whether it works (bundle -o, fix --emit say where they wrote) or refuses.
hostile=$work/$'esc\e[2J-lf\n-bidi\u202e'
mkdir -p "$hostile"
: >"$hostile/not-a-folder"
(cd "$source_dir" && "$gpudoctor" check --from "$snap" --format json) >"$hostile/r.json" 2>/dev/null || true
tar -czf "$hostile/snap.tar.gz" -C "$snap" .
escaping_runs=(
  "check --from $hostile/missing"
  "check --from $snap -o $hostile/not-a-folder/r.json"
  "check --from $snap --knowledge $hostile/missing"
  "check --only $hostile"
  "probe --from $hostile/missing"
  "fix --from $hostile/missing"
  "fix env-cleanup --from $fixture --emit $hostile/fix.sh"
  "fix env-cleanup --from $fixture --emit $hostile/not-a-folder/fix.sh"
  "fix $hostile --from $fixture"
  "migrate --to amd --from $nvidia --emit $hostile/migrate.sh"
  "migrate --to $hostile --from $nvidia"
  "undo --root $work/no-root --state $hostile/missing.json"
  "fleet $hostile/missing.json $hostile/r.json --color never"
  "fleet $hostile/r.json -o $hostile/not-a-folder/fleet.json"
  "diff $hostile/missing.json $hostile/r.json"
  "diff $hostile/r.json $hostile/r.json -o $hostile/not-a-folder/diff.txt"
  "bundle --obfuscate-key $hostile/not-a-folder/key -o $work/unused.tar.gz"
  "bundle -o $hostile/not-a-folder/b.tar.gz"
  "bundle -o $hostile/b.tar.gz"
  "check $hostile"
  "check --format $hostile"
)
escaped=0
for run in "${escaping_runs[@]}"; do
  # The words of the run, split on blanks only: the hostile path holds none (but a line feed).
  words=()
  rest=$run
  while [[ -n $rest ]]; do
    word=${rest%% *}
    words+=("$word")
    [[ $rest == *" "* ]] && rest=${rest#* } || rest=
  done
  status=0
  (cd "$work" && TMPDIR=$work timeout -s KILL 120 "$gpudoctor" "${words[@]}") \
    >"$work/esc.out" 2>"$work/esc.err" </dev/null || status=$?
  [[ $status != 137 ]] || fail "gpudoctor ${run//$hostile/HOSTILE}: still running after 120 s"
  for stream in out err; do
    offence=$("$py" "$source_dir/tests/security/inert_check.py" "$work/esc.$stream") ||
      fail "gpudoctor ${run//$hostile/HOSTILE} (exit $status): std$stream holds ${offence:0:300}"
  done
  grep -qF 'esc\x1b[2J-lf\n-bidi\u202e' "$work/esc.out" "$work/esc.err" ||
    grep -qF -- '--format' "$work/esc.err" ||
    fail "gpudoctor ${run//$hostile/HOSTILE} (exit $status) does not name the path escaped: $(head -c 300 "$work/esc.err")"
  escaped=$((escaped + 1))
done
[[ -s $hostile/b.tar.gz && -s $hostile/fix.sh ]] || fail "bundle -o and fix --emit did not write to the hostile path"
pass "$escaped runs with a path holding ESC[2J, a line feed and U+202E print it escaped, nothing raw"
