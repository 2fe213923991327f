#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build gpudoctor with its probes, run `check --probes` and `bundle --probes`,
# and hold the probes' figures against plain references on GPU 0:
#   memory: the probe's best (copy, triad or runtime copy) >= 90 % of PyTorch's best device-to-device copy;
#   host:   the probe's pinned h2d and d2h >= 90 % of a plain pinned cudaMemcpy loop (bench/pinned_copy.cu);
#   time:   `gpudoctor check --probes` under 3 s (median of 3 runs after a warm-up run).
# Prints a table and exits 1 when a target is missed, 125 when there is no GPU or no nvcc.
# Usage: bench/probe_device.sh [build-dir]   (env: PROBE_ARCHS=90 to build the probes for one arch only;
# PYTHON=python3 with PyTorch for the reference copy). It cannot run without a GPU: see docs/probes.md.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build-bench}
out=$build/bench-out
py=${PYTHON:-python3}
mkdir -p "$out"

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[[ -x $nvcc ]] || { echo "SKIP: no nvcc"; exit 125; }
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no NVIDIA GPU (nvidia-smi -L fails)"
  exit 125
fi

echo "== build ($build)"
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUDOCTOR_BUILD_TESTS=OFF \
  -DGPUDOCTOR_PROBE_CUDA_ARCHS="${PROBE_ARCHS:-all}" >"$out/cmake.log"
start=$(date +%s)
cmake --build "$build" -j"$(nproc)" >"$out/build.log"
echo "built in $(($(date +%s) - start)) s"
gpudoctor=$build/gpudoctor
"$nvcc" -O2 -o "$out/pinned_copy" "$src/bench/pinned_copy.cu"

echo "== gpudoctor check --probes"
"$gpudoctor" check --probes --format json >"$out/check-warmup.json" 2>"$out/check-warmup.err" || true
times=()
for _ in 1 2 3; do
  t0=$(date +%s%N)
  "$gpudoctor" check --probes --format json >"$out/check.json" 2>"$out/check.err" || true
  times+=($((($(date +%s%N) - t0) / 1000000)))
done
echo "check --probes: ${times[*]} ms"

echo "== gpudoctor bundle --probes"
"$gpudoctor" bundle --probes -o "$out/bundle.tar.gz" >/dev/null 2>"$out/bundle.err"
"$gpudoctor" check --from "$out/bundle.tar.gz" --format json >"$out/replay.json" 2>/dev/null || true

echo "== references"
"$out/pinned_copy" 128 >"$out/pinned.json"
cat "$out/pinned.json"
if "$py" -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  "$py" "$src/bench/torch_copy.py" >"$out/torch.json"
  cat "$out/torch.json"
else
  echo '{}' >"$out/torch.json"
  echo "no PyTorch with CUDA in $py: the memory ratio is not measured"
fi

"$py" - "$out" "${times[@]}" <<'PY'
import json, os, sys
out, times = sys.argv[1], sorted(int(t) for t in sys.argv[2:])
report = json.load(open(os.path.join(out, "check.json")))
replay = json.load(open(os.path.join(out, "replay.json")))
pinned = json.load(open(os.path.join(out, "pinned.json")))
torch_ref = json.load(open(os.path.join(out, "torch.json")))
cuda = [b for b in report["facts"]["probes"]["backends"] if b["backend"] == "cuda"][0]
mem = max((x["best_gbps"] or 0) for x in cuda["memory_bandwidth"] if x["device"] == 0)
host = {x["test"]: x["best_gbps"] or 0 for x in cuda["host_bandwidth"] if x["device"] == 0}
rows, missed = [], []

def row(what, probe, ref, target):
    ratio = probe / ref if ref else None
    ok = ratio is not None and ratio >= target
    rows.append("%-28s %10.1f %10s %7s  %s" % (what, probe, "%.1f" % ref if ref else "-",
                                              "%.2f" % ratio if ratio else "-", "ok" if ok else "MISSED"))
    if ref and not ok:
        missed.append(what)

row("memory GB/s (vs torch copy)", mem, torch_ref.get("best_gbps"), 0.9)
row("host h2d GB/s (vs pinned)", host.get("h2d", 0), pinned["h2d_gbps"], 0.9)
row("host d2h GB/s (vs pinned)", host.get("d2h", 0), pinned["d2h_gbps"], 0.9)
median = times[len(times) // 2]
print("\n%-28s %10s %10s %7s" % ("", "probe", "reference", "ratio"))
print("\n".join(rows))
print("%-28s %10d ms (runs: %s; target < 3000 ms)  %s" % ("check --probes", median, times,
                                                          "ok" if median < 3000 else "MISSED"))
if median >= 3000:
    missed.append("check --probes time")
live = [(x["id"], x["subject"], x["status"]) for x in report["results"] if x["id"].startswith("probe.")]
again = [(x["id"], x["subject"], x["status"]) for x in replay["results"] if x["id"].startswith("probe.")]
print("bundle replay judges the probes as live: %s" % ("yes" if live == again else "NO"))
if live != again:
    missed.append("bundle replay")
for r in report["results"]:
    if r["id"].startswith("probe.") and r["status"] != "pass":
        print("  %s %s [%s]: %s" % (r["status"], r["id"], r["subject"], r["message"]))
sys.exit(1 if missed else 0)
PY
