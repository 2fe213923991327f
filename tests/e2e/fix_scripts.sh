#!/usr/bin/env bash
# Every script gpudoctor writes passes shellcheck: every recipe and both migrations, for a Debian-family and
# a RHEL-family machine, with every step rendered (--render-all), and the golden scripts. The scripts refuse
# to run on another machine; `fix` lists what the checks point to; impossible versions are refused.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/common.bash"
command -v shellcheck >/dev/null || skip "shellcheck is not installed"

debian=$source_dir/tests/machines/amd-to-nvidia-leftovers/snapshot
declare -A snapshots=([debian]=$debian [rhel]=$source_dir/tests/fixes/machines/rocky9-mi210-rocm/snapshot)
recipes=()
for f in "$source_dir"/fixes/*.yaml; do
  name=$(basename "$f" .yaml)
  case $name in catalogue | stacks | migrate) ;; *) recipes+=("$name") ;; esac
done
((${#recipes[@]} >= 17)) || fail "found only ${#recipes[@]} recipes"

scripts=()
for family in debian rhel; do
  snap=${snapshots[$family]}
  for id in "${recipes[@]}"; do
    out=$work/$family-$id.sh
    if ! "$gpudoctor" fix "$id" --from "$snap" --render-all --emit "$out" 2>"$work/err"; then
      if [[ $family == rhel && $id == repo-fix-codename ]] && grep -q 'no steps for the rhel family' "$work/err"; then
        continue
      fi
      fail "fix $id for $family: $(cat "$work/err")"
    fi
    scripts+=("$out")
  done
  for to in nvidia amd; do
    out=$work/$family-migrate-$to.sh
    "$gpudoctor" migrate --to "$to" --from "$snap" --render-all --emit "$out" 2>"$work/err" ||
      fail "migrate --to $to for $family: $(cat "$work/err")"
    scripts+=("$out")
  done
done
# The goldens hold a marker where the library goes (tests/unit/test_fix_golden.cpp): paste it back.
golden=()
for g in "$source_dir"/tests/fixes/golden/*.sh; do
  out=$work/golden-$(basename "$g")
  python3 - "$g" "$source_dir/fixes/lib.bash" "$out" <<'PY' || fail "$g has no library marker"
import sys
marker = "# @gpudoctor-golden: fixes/lib.bash is pasted here\n"
text = open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read()
if text.count(marker) != 1:
    sys.exit(1)
library = open(sys.argv[2], encoding="utf-8", errors="surrogateescape").read()
open(sys.argv[3], "w", encoding="utf-8", errors="surrogateescape").write(text.replace(marker, library))
PY
  golden+=("$out")
done
((${#golden[@]} >= 10)) || fail "only ${#golden[@]} golden scripts"
# Checking ~1000-line scripts takes a while: all cores, a few files per shellcheck. The scripts are the same
# whatever the build, so the sanitizer run renders them (above) but leaves shellcheck to the plain run.
if sanitizer_build; then
  echo "a sanitizer build: shellcheck of the same scripts is the plain build's run"
else
  printf '%s\0' "${scripts[@]}" "${golden[@]}" "$source_dir/fixes/lib.bash" |
    xargs -0 -n 4 -P "$(nproc 2>/dev/null || echo 2)" shellcheck || fail "a script does not pass shellcheck (above)"
  pass "${#scripts[@]} rendered scripts (${#recipes[@]} recipes and 2 migrations, Debian and RHEL families, every" \
    "step), the ${#golden[@]} golden scripts and the library pass shellcheck"
fi

"$gpudoctor" fix purge-rocm --from "$debian" --emit "$work/purge.sh" 2>/dev/null || fail "fix purge-rocm failed"
bash "$work/purge.sh" --list >"$work/list.out" || fail "--list failed"
grep -q 'purge-rocm.packages' "$work/list.out" || fail "--list does not list the steps"
status=0
bash "$work/purge.sh" --dry-run >"$work/dry.out" 2>&1 || status=$?
if [[ $status != 1 ]] || ! grep -q 'gpudoctor script: made for' "$work/dry.out"; then
  fail "a script made for another machine did not refuse to run here (status $status): $(cat "$work/dry.out")"
fi
pass "a script made for another machine refuses to run here, even with --dry-run"

"$gpudoctor" fix --from "$debian" >"$work/fixes.out" || fail "fix (the list) failed"
for id in purge-rocm torch-reinstall; do
  grep -q "^  $id " "$work/fixes.out" || fail "fix does not list $id: $(cat "$work/fixes.out")"
done
pass "fix lists the fixes the checks point to"

volta=$source_dir/tests/fixes/machines/rhel9-v100-cuda/snapshot
status=0
"$gpudoctor" migrate --to nvidia --cuda 13.0 --from "$volta" >"$work/refused.out" 2>&1 || status=$?
if [[ $status != 2 ]] || ! grep -q 'CUDA 13 no longer builds for compute capability below sm_75' "$work/refused.out"; then
  fail "CUDA 13 for a Volta GPU was not refused with the reason (status $status): $(cat "$work/refused.out")"
fi
# enroll-mok is a recipe (it was "by hand"): its steps under Secure Boot, nothing to do without it.
"$gpudoctor" fix enroll-mok --from "$source_dir/tests/machines/nvidia-secure-boot-dkms/snapshot" >"$work/mok.sh" 2>&1 ||
  fail "fix enroll-mok under Secure Boot: $(tail -3 "$work/mok.sh")"
for id in enroll-mok.key enroll-mok.import enroll-mok.reboot enroll-mok.loaded; do
  grep -q "^#   [0-9]\. $id " "$work/mok.sh" || fail "fix enroll-mok under Secure Boot has no step $id"
done
"$gpudoctor" fix enroll-mok --from "$volta" >"$work/nomok.out" 2>&1 || fail "fix enroll-mok without Secure Boot failed"
grep -q 'has nothing to do' "$work/nomok.out" || fail "fix enroll-mok without Secure Boot did not say it has nothing to do"
pass "impossible versions are refused with the reason; enroll-mok is a recipe (its four steps under Secure Boot only)"
