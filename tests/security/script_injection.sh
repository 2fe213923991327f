#!/usr/bin/env bash
# No value from a snapshot becomes a command in a rendered script (docs/security.md, "Scripts"). Every recipe
# and both migrations are rendered (--render-all) from hostile copies of a Debian-family and a RHEL-family
# fixture (tests/security/hostile_snapshot.py: each class of field alone, all but the OS identity together,
# and everything), and bash itself judges each script: `bash -n` parses it; the header (everything before
# the preamble's constant code) holds only comment lines and, run alone, creates no canary; the whole script with
# --list (and --dry-run, which refuses this machine) creates no canary; the script and what it prints hold
# no control character but the line feed, so they are also safe to read in a terminal. A plan that cannot be made from a
# hostile snapshot must be refused (exit 2), never crash.
# shellcheck source=tests/e2e/common.bash
source "$(dirname "$0")/../e2e/common.bash"

here=$source_dir/tests/security
declare -A bases=([debian]=$source_dir/tests/machines/amd-to-nvidia-leftovers/snapshot
  [rhel]=$source_dir/tests/fixes/machines/rocky9-mi210-rocm/snapshot)
recipes=()
for f in "$source_dir"/fixes/*.yaml; do
  name=$(basename "$f" .yaml)
  case $name in catalogue | stacks | migrate) ;; *) recipes+=("$name") ;; esac
done
((${#recipes[@]} >= 17)) || fail "found only ${#recipes[@]} recipes"
mapfile -t classes < <("$py" "$here/hostile_snapshot.py" --list-classes)
mix=$(printf '%s\n' "${classes[@]}" | grep -vx osid | paste -sd,)
# Each class alone on the Debian-family machine; on the RHEL-family one (other step bodies), its own package
# class, then every class together (what the RHEL bodies are given) and everything.
declare -A variants=([debian]="${classes[*]} mix all" [rhel]="rpm mix all")

# The dry run is safe only where the scripts' OS check refuses this machine (the fixtures are Ubuntu 22.04
# and Rocky 9).
# shellcheck disable=SC2016 # expanded by that bash
this_os=$(bash -c '. /etc/os-release && printf "%s %s" "${ID:-}" "${VERSION_ID:-}"' 2>/dev/null || true)
dry_run=1
case $this_os in "ubuntu 22.04" | "rocky 9"*) dry_run=0 ;; esac

mkdir -p "$work/out" "$work/home"
render() { # base variant target: one plan, its script, stderr and exit status under $work/out
  local snap=$work/snap-$1-$2 out=$work/out/$1-$2-$3 rc=0
  if [[ $3 == migrate-* ]]; then
    "$gpudoctor" migrate --to "${3#migrate-}" --from "$snap" --render-all --emit "$out.sh" 2>"$out.err" || rc=$?
  else
    "$gpudoctor" fix "$3" --from "$snap" --render-all --emit "$out.sh" 2>"$out.err" || rc=$?
  fi
  echo "$rc" >"$out.rc"
}

jobs_max=$(nproc 2>/dev/null || echo 2)
for base in "${!bases[@]}"; do
  for variant in ${variants[$base]}; do
    which=$variant
    [[ $variant == mix ]] && which=$mix
    "$py" "$here/hostile_snapshot.py" --classes "$which" "${bases[$base]}" "$work/snap-$base-$variant" ||
      fail "could not make the hostile snapshot $base/$variant"
    for target in "${recipes[@]}" migrate-nvidia migrate-amd; do
      while (($(jobs -rp | wc -l) >= jobs_max)); do wait -n || true; done
      render "$base" "$variant" "$target" &
    done
  done
done
wait

# judge NAME: bash's verdict on one rendered script, its problems one a line in $work/run-NAME/problems (the
# scripts are judged in parallel, as they were rendered).
judge() {
  local name=$1 out=$work/out/$1 run=$work/run-$1 script status bad preamble
  script=$out.sh
  mkdir -p "$run"
  problem() { printf '%s\n' "$*" >>"$run/problems"; }
  if ! bash -n "$script" 2>"$run/parse.err"; then
    problem "$name: bash -n rejects the script: $(head -c 400 "$run/parse.err")"
    return
  fi
  if ! grep -qx 'set -euo pipefail' "$script"; then
    problem "$name: no 'set -euo pipefail' line"
    return
  fi
  # The header (where a snapshot's values stand, as comments) ends where the preamble's constant code
  # begins (render.cpp), which comes before set -euo pipefail.
  preamble='^# ---- a fixed PATH and an environment without the caller.s hooks'
  if ! grep -q "$preamble" "$script"; then
    problem "$name: no preamble line"
    return
  fi
  sed "/$preamble/,\$d" "$script" >"$run/header.sh"
  if bad=$(grep -nv -e '^#' -e '^$' "$run/header.sh"); then
    problem "$name: the header holds lines that are not comments: ${bad:0:400}"
    return
  fi
  (cd "$run" && bash header.sh >/dev/null 2>&1) || true
  if [[ -e $run/CANARY ]]; then
    problem "$name: running the header alone created the canary"
    return
  fi

  status=0
  (cd "$run" && HOME=$work/home bash "$script" --list >"$run/list.out" 2>&1) || status=$?
  ((status == 0)) || problem "$name: --list failed ($status): $(head -c 400 "$run/list.out")"
  if ((dry_run)); then
    status=0
    (cd "$run" && HOME=$work/home bash "$script" --dry-run >"$run/dry.out" 2>&1) || status=$?
    if [[ $status != 1 ]] || ! grep -q 'gpudoctor script: made for' "$run/dry.out"; then
      problem "$name: --dry-run did not refuse this machine ($status): $(head -c 400 "$run/dry.out")"
    fi
  fi
  [[ ! -e $run/CANARY ]] || problem "$name: running the script created the canary"
}

declare -A rendered_in=()
problems=()
problem() { problems+=("$*"); }
rendered=0 refused=0
for rc_file in "$work"/out/*.rc; do
  out=${rc_file%.rc}
  name=$(basename "$out")
  rc=$(<"$rc_file")
  if [[ $rc != 0 ]]; then
    [[ $rc == 2 ]] || problem "$name: exit status $rc (a hostile snapshot must be refused with 2): $(cat "$out.err")"
    refused=$((refused + 1))
    continue
  fi
  rendered=$((rendered + 1))
  variant=${name#*-}
  rendered_in[${variant%%-*}]=1
  while (($(jobs -rp | wc -l) >= jobs_max)); do wait -n || true; done
  judge "$name" &
done
wait
for found in "$work"/run-*/problems; do
  [[ -e $found ]] || continue
  mapfile -t -O "${#problems[@]}" problems <"$found"
done

# The scripts are also safe to read in a terminal, and so is what they print (--list, the refusal of the
# dry run): no control character but the line feed (one check for all).
outputs=("$work"/out/*.sh)
for out in "$work"/run-*/*.out; do [[ -e $out ]] && outputs+=("$out"); done
if offence=$("$py" "$here/inert_check.py" "${outputs[@]}"); then :; else
  problem "scripts or their output hold control characters: ${offence:0:2000}"
fi

if ((${#problems[@]})); then
  printf '%s\n' "${problems[@]:0:15}" >&2
  [[ -z ${GD_SECURITY_ALL:-} ]] || printf '%s\n' "${problems[@]}" >"$GD_SECURITY_ALL"
  fail "${#problems[@]} problems in $rendered rendered scripts (the first 15 above)"
fi

# Each class of field must reach at least one script, or the test proves nothing about it (osid and all
# poison the OS identity: gpudoctor plans nothing for an unknown OS, and says so with exit 2).
for variant in "${classes[@]}" mix; do
  [[ $variant == osid ]] && continue
  [[ -n ${rendered_in[$variant]:-} ]] || fail "no script was rendered from the '$variant' hostile snapshots"
done
((rendered >= 250)) || fail "only $rendered scripts rendered ($refused refused)"
pass "$rendered scripts rendered from hostile snapshots ($refused plans refused with exit 2): each parses," \
  "has a header of comments only, and none ran the canary (header alone, --list$( ((dry_run)) && echo ", --dry-run"))"
