#!/usr/bin/env bash
# Every output is safe for its reader (docs/security.md, "Outputs"): from hostile snapshots
# (tests/security/hostile_snapshot.py), what gpudoctor prints holds no escape sequence or control character
# but its own colours and the line feed. `check` in text (colour never and always, -v) and JSON (valid, the
# hostile values still there, escaped), `probe --from`, the `fix` listing, the errors of `fix` and
# `migrate`, and `fleet` and `diff` of the hostile snapshot beside its base (text, JSON, HTML), stdout and
# stderr alike.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/../e2e/common.bash"

here=$source_dir/tests/security
declare -A bases=([debian]=$source_dir/tests/machines/amd-to-nvidia-leftovers/snapshot
  [rhel]=$source_dir/tests/fixes/machines/rocky9-mi210-rocm/snapshot
  [nccl]=$source_dir/tests/machines/nvidia-8gpu-nccl-misconfigured/snapshot)
mapfile -t classes < <("$py" "$here/hostile_snapshot.py" --list-classes)
mix=$(printf '%s\n' "${classes[@]}" | grep -vx osid | paste -sd,)

problems=()
problem() { problems+=("$*"); }
inert() { # file [inert_check options]: no control character but the line feed
  local offence
  offence=$("$py" "$here/inert_check.py" "${@:2}" "$1") || problem "${offence:0:600}"
}

# The report's own colours (report_text.cpp) are the only escape sequences allowed; what remains once they
# are taken out must be the colourless report, byte for byte.
strip_own_colours() { sed -E $'s/\x1b\\[(0|1|2|32|36|1;31|1;32|1;33)m//g' "$1"; }

runs=0
for base in "${!bases[@]}"; do
  for variant in mix all "${classes[@]}"; do
    [[ $base == debian || $variant == mix || $variant == all ]] || continue
    which=$variant
    [[ $variant == mix ]] && which=$mix
    snap=$work/$base-$variant
    "$py" "$here/hostile_snapshot.py" --classes "$which" "${bases[$base]}" "$snap" ||
      fail "could not make the hostile snapshot $base/$variant"
    out=$work/out-$base-$variant
    status=0
    "$gpudoctor" check --from "$snap" -v --color never >"$out.never" 2>"$out.never.err" || status=$?
    ((status <= 2)) || problem "$base/$variant: check exited $status: $(head -c 300 "$out.never.err")"
    "$gpudoctor" check --from "$snap" -v --color always >"$out.always" 2>"$out.always.err" || true
    "$gpudoctor" check --from "$snap" --color always >"$out.short" 2>/dev/null || true
    "$gpudoctor" check --from "$snap" --format json >"$out.json" 2>"$out.json.err" || true
    "$gpudoctor" probe --from "$snap" --color always >"$out.probe" 2>"$out.probe.err" || true
    "$gpudoctor" fix --from "$snap" >"$out.fixes" 2>"$out.fixes.err" || true
    "$gpudoctor" fix purge-rocm --from "$snap" --emit "$work/x.sh" >"$out.fix" 2>"$out.fix.err" || true
    "$gpudoctor" migrate --to amd --from "$snap" --emit "$work/x.sh" >"$out.mig" 2>"$out.mig.err" || true
    # fleet and diff: the hostile snapshot beside its base (judged now), so its values drift and change.
    "$gpudoctor" fleet "$snap" "${bases[$base]}" -v --color always >"$out.fleet" 2>"$out.fleet.err" || true
    "$gpudoctor" fleet "$snap" "${bases[$base]}" --format json >"$out.fleet.json" 2>/dev/null || true
    "$gpudoctor" fleet "$snap" "${bases[$base]}" --format html >"$out.fleet.html" 2>/dev/null || true
    "$gpudoctor" diff "${bases[$base]}" "$snap" --force --color always >"$out.diff" 2>"$out.diff.err" || true
    "$gpudoctor" diff "${bases[$base]}" "$snap" --force --format json >"$out.diff.json" 2>/dev/null || true
    "$gpudoctor" diff "${bases[$base]}" "$snap" --force --format html >"$out.diff.html" 2>/dev/null || true
    runs=$((runs + 1))

    [[ -s $out.never ]] || problem "$base/$variant: check printed nothing: $(head -c 300 "$out.never.err")"
    [[ -s $out.fleet && -s $out.diff ]] ||
      problem "$base/$variant: fleet or diff printed nothing: $(head -c 300 "$out.fleet.err" "$out.diff.err")"
    for f in "$out".never* "$out".always.err "$out".json* "$out".probe.err "$out".fixes* "$out".fix* \
      "$out".mig* "$out".fleet.* "$out".diff.*; do
      inert "$f"
    done
    for f in "$out.always" "$out.short" "$out.probe" "$out.fleet" "$out.diff"; do
      inert "$f" --allow-sgr
    done
    strip_own_colours "$out.always" >"$out.always.plain"
    cmp -s "$out.always.plain" "$out.never" ||
      problem "$base/$variant: with its own colours taken out, the coloured report is not the plain one: $(
        diff "$out.never" "$out.always.plain" | sed -n 1,12p)"
    "$py" -c 'import json,sys; json.load(open(sys.argv[1]))' "$out.json" 2>"$out.json.bad" ||
      problem "$base/$variant: the JSON report does not parse: $(head -c 300 "$out.json.bad")"
    for f in "$out.fleet.json" "$out.diff.json"; do
      "$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["format"] in ("gpudoctor-fleet", "gpudoctor-diff")' \
        "$f" 2>"$f.bad" || problem "$base/$variant: $(basename "$f") is no fleet or diff JSON: $(tail -c 300 "$f.bad")"
    done
  done
done

# The values are escaped, not lost: the JSON report still holds the hostile host name, exactly.
expected=$("$py" "$here/hostile_snapshot.py" --payload | "$py" -c 'import sys; print(repr(sys.stdin.read()))')
held=$("$py" -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["host"]["hostname"][len("sd-vm"):]))' \
  "$work/out-debian-identity.json")
[[ $held == "$expected" ]] || problem "the JSON report does not hold the hostile host name as it was: $held"
# shellcheck disable=SC2016 # the text as printed
grep -qF 'sd-vm'"'"'"$(touch CANARY)`touch CANARY`;touch CANARY;|touch CANARY&&touch CANARY\\ntouch CANARY\r\n' \
  "$work/out-debian-identity.never" || problem "the text report does not show the host name escaped"

if ((${#problems[@]})); then
  printf '%s\n' "${problems[@]:0:20}" >&2
  fail "${#problems[@]} problems in the outputs of $runs hostile snapshots (the first 20 above)"
fi
pass "the outputs of $runs hostile snapshots (check text and JSON, probe, fix list, fix and migrate errors, fleet, diff)" \
  "hold no control character or escape sequence but gpudoctor's own colours"
