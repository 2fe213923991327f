#!/usr/bin/env bash
# The live probe path end to end, without a GPU: gpudoctor runs the probe programs built over the mock runtime
# (tests/probe_mock) as its own, each a child with a time limit. A healthy card gives passes and figures; a hung
# probe is killed with its process group at --probe-timeout and reported by probe.timeout; a crash is a result;
# bundles record the outputs and `check --from` judges them again, with or without --probes; a knowledge table
# with a floor makes a slow card warn. Args: gpudoctor source-dir programs-dir mock-programs-dir.
source "$(dirname "$0")/../e2e/common.bash"
mock=${4:?usage: mock_live.sh gpudoctor source-dir programs-dir mock-programs-dir}
[[ -x $mock/gpudoctor-probe-cuda ]] || fail "no mock probe programs in $mock"

prefix=$work/prefix
mkdir -p "$prefix/bin" "$prefix/libexec/gpudoctor"
cp "$gpudoctor" "$prefix/bin/gpudoctor"
cp "$mock"/gpudoctor-probe-* "$prefix/libexec/gpudoctor/"
export XDG_CACHE_HOME=$work/cache
scenario() { # name, extra lines
  printf 'driver_version=12080\nruntime_version=12080\nmemory_gbps=4310\nh2d_gbps=55.3\nd2h_gbps=55.8\n%s\n' "$2" >"$work/$1.mock"
  printf 'device=NVIDIA H200|sm_90|9|0|0000:19:00.0|150754820096|132|62914560|6144|3201000\n' >>"$work/$1.mock"
}
run() { # name, gpudoctor args...: runs with the scenario, keeps stdout and stderr apart
  local name=$1
  shift
  local status=0 start
  start=$(date +%s%N)
  GPUDOCTOR_PROBE_MOCK=$work/$name.mock "$prefix/bin/gpudoctor" "$@" >"$work/$name.json" 2>"$work/$name.err" || status=$?
  elapsed_ms=$((($(date +%s%N) - start) / 1000000))
  [[ $status == 0 || $status == 1 ]] || fail "$name: gpudoctor $* exited $status: $(cat "$work/$name.err")"
}
status_of() { jq_py "$1" "' '.join(x['status'] for x in r['results'] if x['id']=='$2' and x['subject']=='$3')"; }

# Healthy: both runtimes (the mock answers for CUDA and HIP alike) see the H200 and pass.
scenario healthy ""
run healthy probe --format json
expect "$work/healthy.json" "r['format']=='gpudoctor-report'" "healthy: stdout is the JSON report (${elapsed_ms} ms)"
for title in CUDA HIP; do
  [[ $(status_of "$work/healthy.json" probe.kernel "$title device 0") == pass ]] || fail "healthy: $title kernel did not pass"
  [[ $(status_of "$work/healthy.json" probe.alloc "$title device 0") == pass ]] || fail "healthy: $title alloc did not pass"
done
pass "healthy: kernel and alloc pass on both runtimes"
expect "$work/healthy.json" \
  "[max(x['best_gbps'] for x in b['memory_bandwidth']) for b in r['facts']['probes']['backends']]==[4353.1, 4353.1]" \
  "healthy: the best memory figure (runtime copy, 1.01 x 4310) reaches the facts"
expect "$work/healthy.json" \
  "[d['name'] for b in r['facts']['probes']['backends'] for d in b['devices']]==['NVIDIA H200', 'NVIDIA H200']" \
  "healthy: the devices probe names the device"

# Hung: the kernel probe never returns. 1 s limit: gpudoctor finishes soon after, reports it, leaves nothing.
scenario hung "hang=kernel"
run hung probe --format json --probe-timeout 1000
((elapsed_ms < 6000)) || fail "hung: gpudoctor took ${elapsed_ms} ms with a 1000 ms probe limit (two runtimes)"
pass "hung: finished in ${elapsed_ms} ms (two hung kernel probes, 1000 ms each)"
for title in CUDA HIP; do
  [[ $(status_of "$work/hung.json" probe.timeout "$title runtime") == error ]] || fail "hung: no probe.timeout error for $title"
done
pass "hung: probe.timeout is an error for both runtimes"
expect "$work/hung.json" \
  "all(x['status']=='skip' and 'timed out' in x['message'] for x in r['results'] if x['id']=='probe.alloc')" \
  "hung: the probes after the hung one were not run"
sleep 0.2
if pgrep -f "$prefix/libexec/gpudoctor/gpudoctor-probe" >/dev/null; then
  fail "hung: a killed probe program is still running"
fi
pass "hung: no probe process is left"

# Crash: the alloc probe dies by SIGSEGV; that is a result, not a crash of gpudoctor.
scenario crash "crash=alloc"
run crash probe --format json
[[ $(status_of "$work/crash.json" probe.alloc "CUDA runtime") == warn ]] || fail "crash: probe.alloc is not a warn"
expect "$work/crash.json" "any('crashed' in x['message'] for x in r['results'] if x['id']=='probe.alloc')" \
  "crash: probe.alloc says the probe crashed"

# Bundles record the probe outputs; check --from judges them again, with or without --probes.
scenario slow "memory_gbps=1200
h2d_gbps=4.1
d2h_gbps=4.3
max_single_bytes=21474836480"
run slow check --probes --format json
GPUDOCTOR_PROBE_MOCK=$work/slow.mock "$prefix/bin/gpudoctor" bundle --probes -o "$work/slow.tar.gz" >/dev/null 2>"$work/bundle.err" ||
  fail "bundle --probes failed: $(cat "$work/bundle.err")"
for args in "" "--probes"; do
  # shellcheck disable=SC2086 # empty or one flag
  "$prefix/bin/gpudoctor" check --from "$work/slow.tar.gz" $args --format json >"$work/replay.json" 2>/dev/null || true
  "$py" - "$work/slow.json" "$work/replay.json" <<'PY' || fail "check --from ${args:-(no flag)} judges the probes differently"
import json, sys
ids = lambda p: [(x["id"], x["subject"], x["status"]) for x in json.load(open(p))["results"]
                 if x["id"].startswith("probe.")]
live, replay = ids(sys.argv[1]), ids(sys.argv[2])
assert live == replay and live, (live, replay)
PY
  pass "check --from the bundle ${args:-(without --probes)} gives the live probe results"
done
expect "$work/replay.json" "any(x['id']=='probe.alloc' and x['status']=='warn' for x in r['results'])" \
  "the bundle's replay still warns about the 20 GiB allocation limit"

# A knowledge table with a floor: the slow fixture warns, the healthy one passes.
mkdir -p "$work/kb"
cp "$source_dir"/checks/knowledge/*.yaml "$work/kb/"
# The GPU table is compiled in (src/knowledge/gpu_table_data.cpp); a `gpus` row in a knowledge file overrides it.
cat >"$work/kb/gpus-floor.yaml" <<'YAML'
sources:
  TEST-FLOOR: "tests/probe/mock_live.sh: a bandwidth floor for this test only"
gpus:
  - {vendor: 0x10de, device: 0x2204, name: "NVIDIA GeForce RTX 3090", arch: sm_86, family: Ampere, memory_bandwidth_floor_gbps: 700, source: TEST-FLOOR}
YAML
for fixture in slow:warn healthy:pass; do
  "$gpudoctor" check --from "$source_dir/tests/machines/probe-nvidia-rtx3090-${fixture%%:*}/snapshot" \
    --knowledge "$work/kb" --format json >"$work/kb-${fixture%%:*}.json" 2>/dev/null || true
  [[ $(status_of "$work/kb-${fixture%%:*}.json" probe.memory-bandwidth "gpu0 (0000:00:10.0)") == "${fixture##*:}" ]] ||
    fail "with a 700 GB/s floor, probe-nvidia-rtx3090-${fixture%%:*} is not ${fixture##*:}"
  pass "with a 700 GB/s floor, probe-nvidia-rtx3090-${fixture%%:*} gives ${fixture##*:}"
done

# At a terminal (a pty): each probe is a progress line that the next one erases, and nothing of it stays; on
# a pipe (every run above) no progress line is written.
GPUDOCTOR_PROBE_MOCK=$work/healthy.mock TERM=xterm "$py" "$source_dir/tests/e2e/pty_run.py" 100 "$work/pty.out" \
  "$prefix/bin/gpudoctor" probe >/dev/null || true
"$py" - "$work/pty.out" <<'PY' || fail "probe at a terminal shows no progress lines, or leaves them"
import re, sys
text = open(sys.argv[1], encoding="utf-8", newline="").read()
shown = re.findall(r"gpudoctor: ([^\n\r]*) \.\.\.\r\x1b\[K", text)
assert len(shown) >= 2 and any("kernel" in s for s in shown), shown
assert not re.search(r"\.\.\.\n", text), "a progress line was left on the screen"
PY
grep -l $'\r' "$work"/*.err && fail "a run on a pipe wrote a progress line"
pass "probe at a terminal: a progress line per probe, each erased; none on a pipe"
