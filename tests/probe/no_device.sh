#!/usr/bin/env bash
# The probe programs this build made for one runtime (cuda: nvcc, hip: hipcc), run on this machine. Without a
# GPU (CI) they must report "no device" in the runtime's own words, and gpudoctor must turn that into info and
# skips: not a pass, not an error, not a crash. Args: gpudoctor source-dir programs-dir backend. Exits 125
# (skip) when the backend's compiler was not found at build time, or when a GPU is present (gpu_real.sh).
source "$(dirname "$0")/../e2e/common.bash"
programs=${3:?usage: no_device.sh gpudoctor source-dir programs-dir cuda|hip}
backend=${4:?usage: no_device.sh gpudoctor source-dir programs-dir cuda|hip}

# Allowed "no device" answers: CUDA without a driver or without a GPU; Debian's ROCm 5.2 without /dev/kfd.
declare -A allowed=([cuda]="cudaErrorInsufficientDriver cudaErrorNoDevice" [hip]="hipErrorNoDevice")
declare -A compiler=([cuda]=nvcc [hip]=hipcc)
[[ -n ${compiler[$backend]:-} ]] || fail "unknown backend $backend"
[[ -x $programs/gpudoctor-probe-$backend ]] ||
  skip "no $backend probe programs in $programs: ${compiler[$backend]} was not found when gpudoctor was built"
for program in gpudoctor-probe-$backend:devices gpudoctor-probe-$backend-kernels:kernel; do
  out=$work/${program%%:*}.out
  status=0
  "$programs/${program%%:*}" "${program##*:}" >"$out" 2>"$work/${program%%:*}.err" || status=$?
  [[ $status == 0 ]] || fail "${program%%:*} ${program##*:} exited $status: $(cat "$work/${program%%:*}.err")"
  count=$("$py" -c 'import json,sys
for l in open(sys.argv[1]):
    j = json.loads(l)
    if j["event"] == "count": print(j["count"])' "$out")
  [[ -z $count || $count == 0 ]] || skip "a $backend GPU is present ($count devices): gpu_real.sh tests that"
  "$py" - "$out" "$backend" "${program##*:}" "${allowed[$backend]}" <<'PY' || fail "${program%%:*}: $(cat "$out")"
import json, sys
path, backend, probe, allowed = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
lines = [json.loads(l) for l in open(path)]
assert all(l["probe"] == probe for l in lines), "every line names the probe"
assert lines[0]["event"] == "start" and lines[0]["backend"] == backend and lines[0]["format"] == 1, lines[0]
errors = [l for l in lines if l["event"] == "error"]
assert len(errors) == 1 and errors[0]["call"].endswith("GetDeviceCount"), errors
assert errors[0]["error"] in allowed, "%s not in %s" % (errors[0]["error"], allowed)
assert lines[-1]["event"] == "end", lines[-1]
print("PASS: %s %s says %s (%s)" % (backend, probe, errors[0]["error"], errors[0]["message"]))
PY
done

# What gpudoctor makes of it: stdout is one JSON document, stderr stays out of it.
for cmd in "probe" "check --probes"; do
  status=0
  start=$(date +%s%N)
  # shellcheck disable=SC2086 # the subcommand and its flag are two words
  "$gpudoctor" $cmd --format json >"$work/report.json" 2>"$work/stderr" || status=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  [[ $status == 0 || $status == 1 ]] || fail "gpudoctor $cmd exited $status: $(cat "$work/stderr")"
  expect "$work/report.json" "r['format']=='gpudoctor-report'" "gpudoctor $cmd prints one JSON report on stdout (${ms} ms)"
  title=$([[ $backend == cuda ]] && echo CUDA || echo HIP)
  expect "$work/report.json" \
    "[x['status'] for x in r['results'] if x['id']=='probe.runtime-devices' and x['subject']=='$title runtime']==['info']" \
    "$cmd: probe.runtime-devices is info for the $title runtime"
  expect "$work/report.json" \
    "any(w in e for x in r['results'] if x['id']=='probe.runtime-devices' and x['subject']=='$title runtime' for e in x['evidence'] for w in '${allowed[$backend]}'.split())" \
    "$cmd: its evidence is the $title runtime's own words"
  expect "$work/report.json" \
    "[b['how'].startswith('built with gpudoctor') for b in r['facts']['probes']['backends'] if b['backend']=='$backend']==[True]" \
    "$cmd: the $title probes built with gpudoctor were used"
  expect "$work/report.json" \
    "all(x['status'] in ('skip','info') for x in r['results'] if x['id'] in ('probe.runtime-devices','probe.kernel','probe.memory-bandwidth','probe.host-bandwidth','probe.p2p','probe.alloc'))" \
    "$cmd: no probe result passes or fails without a device"
  expect "$work/report.json" "[x['status'] for x in r['results'] if x['id']=='probe.timeout']==['pass']" \
    "$cmd: every probe finished in time"
done
