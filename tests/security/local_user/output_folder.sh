#!/usr/bin/env bash
# An output root writes into a folder another user can change never goes through that user's links
# (docs/security.md, "Writing as root"): `check -o`, `fix --emit`, `migrate --emit`, `bundle -o`, `fleet -o`
# and `diff -o`, into the account's folder, where the account
#   - made the output's folder a link to a folder of root's (standing for /etc/cron.d): refused, nothing there;
#   - swaps the folder for that link and back while root writes (for at most 60 s): nothing ever lands there;
#   - planted a link, or a hard link to a file of root's, at the output's name: the link is refused, the hard
#     link is replaced as a name, the file of root's keeps its content.
# The modes stay what each format documents: reports, bundles 0600, the Prometheus textfile 0644, scripts 0755.
# shellcheck source=tests/security/local_user/common.bash
source "$(dirname "$0")/common.bash" "$@"

victim=$work/victim # root's folder, where the account would have root write
mkdir -m 0755 "$victim"
snap=$source_dir/tests/machines/nvidia-rtx3090-healthy/snapshot
fixture=$source_dir/tests/machines/amd-to-nvidia-leftovers/snapshot # env-cleanup has a plan for it
"$gpudoctor" check --from "$snap" --format json >"$work/r.json" 2>/dev/null || true
runs=("check --from $snap --format json -o" "check --from $snap --format prometheus -o"
  "fix env-cleanup --from $fixture --emit" "migrate --to amd --from $snap --emit" "bundle -o"
  "fleet $work/r.json -o" "diff $work/r.json $work/r.json -o")
names=(report.json gpudoctor.prom fix.sh migrate.sh bundle.tar.gz fleet.json diff.json)
modes=(600 644 755 755 600 600 600)
nothing_in_victim() {
  [[ -z $(ls -A "$victim") ]] || fail "$1: root wrote through $lu_user's link: $(find "$victim" -mindepth 1 -printf '%P ')"
}

# 1. The output's folder is the account's link to root's folder.
as_user ln -s "$victim" "$lu_home/out"
for i in "${!runs[@]}"; do
  status=0
  # shellcheck disable=SC2086 # the words of the run
  timeout -s KILL 300 "$gpudoctor" ${runs[i]} "$lu_home/out/${names[i]}" >/dev/null 2>"$work/err" </dev/null ||
    status=$?
  nothing_in_victim "${runs[i]} $lu_home/out/${names[i]}"
  if [[ $status != 2 ]] || ! grep -q "is a link that another user can change" "$work/err"; then
    fail "${runs[i]} through $lu_user's link: exit $status, not refused: $(head -c 300 "$work/err")"
  fi
  pass "${runs[i]} through $lu_user's link: refused: $(cut -c1-140 "$work/err" | sed -n 1p)"
done

# 2. The account's real folder, written as asked, with each format's mode whatever the umask.
as_user mkdir "$lu_home/real"
for i in "${!runs[@]}"; do
  status=0
  # shellcheck disable=SC2086
  (umask 077 && timeout -s KILL 300 "$gpudoctor" ${runs[i]} "$lu_home/real/${names[i]}") >/dev/null 2>"$work/err" \
    </dev/null || status=$?
  ((status <= 1)) || fail "${runs[i]} into $lu_user's folder: exit $status: $(head -c 300 "$work/err")"
  mode=$(stat -c %a "$lu_home/real/${names[i]}")
  [[ $mode == "${modes[i]}" ]] || fail "${runs[i]}: ${names[i]} is mode $mode, not ${modes[i]}"
done
pass "written into $lu_user's own folder as asked, modes ${modes[*]}"

# 3. The account swaps its folder for the link and back, as fast as it can, while root writes.
as_user mkdir "$lu_home/flip"
# shellcheck disable=SC2016 # expanded by the account's bash
as_user bash -c '
  end=$((SECONDS + 60))
  while ((SECONDS < end)); do
    mv "$1/flip" "$1/flip.real" 2>/dev/null && ln -s "$2" "$1/flip" && rm -f "$1/flip" && mv "$1/flip.real" "$1/flip"
  done 2>/dev/null' flipper "$lu_home" "$victim" &
flipper=$!
written=0 refused=0
for round in $(seq 1 40); do
  i=$((round % 2 ? 0 : 6)) # check -o and diff -o: fast
  status=0
  # shellcheck disable=SC2086
  timeout -s KILL 60 "$gpudoctor" ${runs[i]} "$lu_home/flip/${names[i]}" >/dev/null 2>"$work/err" </dev/null ||
    status=$?
  nothing_in_victim "round $round: ${runs[i]} while $lu_user swaps the folder"
  if ((status <= 1)); then written=$((written + 1)); else refused=$((refused + 1)); fi
done
kill "$flipper" 2>/dev/null || true
wait "$flipper" 2>/dev/null || true
pass "40 writes while $lu_user swapped the folder for a link: $written written in its folder, $refused refused, none through the link"

# 4. A link and a hard link at the output's name.
echo "root's own" >"$work/roots-file"
chmod 0600 "$work/roots-file"
as_user ln -s "$work/roots-file" "$lu_home/real/linked.json"
ln "$work/roots-file" "$lu_home/real/hard.json" # as root: fs.protected_hardlinks refuses the account
status=0
"$gpudoctor" check --from "$snap" --format json -o "$lu_home/real/linked.json" >/dev/null 2>"$work/err" || status=$?
if [[ $status != 2 ]] || ! grep -q "not a regular file" "$work/err"; then
  fail "a link at the output's name: exit $status: $(head -c 300 "$work/err")"
fi
"$gpudoctor" check --from "$snap" --format json -o "$lu_home/real/hard.json" >/dev/null 2>&1 || true
[[ $(cat "$work/roots-file") == "root's own" && -L $lu_home/real/linked.json ]] ||
  fail "the file of root's behind a link or hard link at the output's name was written"
pass "a link at the output's name is refused, a hard link replaced as a name; root's file keeps its content"
no_canary "outputs"
