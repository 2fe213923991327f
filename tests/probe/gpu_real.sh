#!/usr/bin/env bash
# On a machine with a GPU: the probe programs of this build see it, run a kernel on it, and measure figures
# that are sane for a GPU (memory above a third of the peak the runtime reports, host link above 2 GB/s, most
# of the free memory allocatable), and check --probes stays quick. Exits 125 without a GPU.
# Args: gpudoctor source-dir programs-dir.
source "$(dirname "$0")/../e2e/common.bash"
programs=${3:?usage: gpu_real.sh gpudoctor source-dir programs-dir}
gpus=0
for backend in cuda hip; do
  [[ -x $programs/gpudoctor-probe-$backend ]] || continue
  n=$("$programs/gpudoctor-probe-$backend" devices 2>/dev/null | "$py" -c 'import json,sys
print(sum(json.loads(l).get("count", 0) for l in sys.stdin if "\"count\"" in l))') || n=0
  gpus=$((gpus + n))
done
((gpus > 0)) || skip "no GPU that the probes of this build can see"

start=$(date +%s%N)
status=0
"$gpudoctor" check --probes --format json >"$work/report.json" 2>"$work/stderr" || status=$?
ms=$((($(date +%s%N) - start) / 1000000))
[[ $status == 0 || $status == 1 ]] || fail "check --probes exited $status: $(cat "$work/stderr")"
pass "check --probes took ${ms} ms"
((ms < 10000)) || fail "check --probes took ${ms} ms (over 10 s)"
"$py" - "$work/report.json" <<'PY' || fail "the probes' figures are not sane (above)"
import json, sys
r = json.load(open(sys.argv[1]))
bad = []
for b in r["facts"]["probes"]["backends"]:
    for d in b["devices"]:
        i = d["index"]
        k = [x for x in b["kernels"] if x["device"] == i]
        if not (k and k[0]["ok"]): bad.append("%s device %d: kernel %s" % (b["backend"], i, k))
        mem = [x["best_gbps"] or 0 for x in b["memory_bandwidth"] if x["device"] == i]
        peak = d.get("peak_gbps")
        if not mem or (peak and max(mem) < peak / 3): bad.append("%s %d: memory %s of peak %s" % (b["backend"], i, mem, peak))
        host = [x["best_gbps"] or 0 for x in b["host_bandwidth"] if x["device"] == i]
        if not host or min(host) < 2: bad.append("%s %d: host %s" % (b["backend"], i, host))
        a = [x for x in b["alloc"] if x["device"] == i]
        if a and a[0]["largest_single_bytes"] < a[0]["free_bytes"] / 2: bad.append("%s %d: alloc %s" % (b["backend"], i, a))
        print("%s device %d %s: memory %s GB/s (peak %s), host %s GB/s" % (b["backend"], i, d["name"], mem, peak, host))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
pass "every device runs a kernel and gives sane figures"
