#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: run gpudoctor's probes for real and hold their figures against plain
# references on GPU 0 (the goals of docs/probes.md):
#   memory: the probe's best (copy, triad or runtime copy) >= 90 % of PyTorch's best device-to-device copy;
#   host:   the probe's pinned h2d and d2h >= 90 % of a plain pinned cudaMemcpy loop (bench/pinned_copy.cu);
#   time:   `gpudoctor check --probes` under 3 s (median of 3 runs after a warm-up run).
# It also keeps what tests and docs need: `check` and `check --probes` reports, the probe programs' own JSON
# lines, `bundle --probes` and its replay, a run with a tiny probe time limit, and the run-time compile path
# (probes compiled by this machine's nvcc into an empty cache, then taken from the cache).
#
# Usage: bench/probe_device.sh [--prebuilt DIR] [--out DIR] [BUILD-DIR]
#   --prebuilt DIR  use DIR/gpudoctor with DIR/libexec and DIR/share (a build folder or a carried copy)
#                   instead of building; DIR/pinned_copy is used when present
#   --out DIR       where everything is written (default BUILD-DIR/bench-out)
#   env: PROBE_ARCHS=90 builds the probes for one arch only; PYTHON=python3 with PyTorch for the reference.
# Prints a table; exits 1 when a target is missed, 125 when there is no GPU or no nvcc.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
prebuilt= out= build=
while (($#)); do
  case $1 in
    --prebuilt) prebuilt=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) build=$1; shift ;;
  esac
done
build=${build:-$src/build-bench}
out=${out:-$build/bench-out}
py=${PYTHON:-python3}
mkdir -p "$out"
log() { echo "== $*"; }
# step NAME SECONDS CMD...: runs CMD with a time limit, its stdout to NAME, its stderr to NAME.err, and says
# how long it took; a failing step is noted, never fatal (what it left is still evidence).
step() {
  local name=$1 limit=$2 t0 rc
  shift 2
  t0=$(date +%s%N)
  timeout -k 5 "$limit" "$@" >"$out/$name" 2>"$out/$name.err"
  rc=$?
  echo "$name: exit $rc, $((($(date +%s%N) - t0) / 1000000)) ms"
  return $rc
}

nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "SKIP: no NVIDIA GPU (nvidia-smi -L fails)"
  exit 125
fi

log "machine"
{
  uname -a
  cat /etc/os-release
  nvidia-smi -L
  nvidia-smi --query-gpu=name,pci.bus_id,driver_version,memory.total,pcie.link.gen.max,pcie.link.width.max \
    --format=csv
  echo "nvcc: $nvcc"
  "$nvcc" --version | tail -2
  echo "python: $(command -v "$py")"
  nproc
} >"$out/machine.txt" 2>&1
cat "$out/machine.txt"

if [[ -n $prebuilt ]]; then
  bin=$prebuilt
else
  [[ -x $nvcc ]] || { echo "SKIP: no nvcc"; exit 125; }
  log "build ($build)"
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUDOCTOR_BUILD_TESTS=OFF \
    -DGPUDOCTOR_PROBE_CUDA_ARCHS="${PROBE_ARCHS:-all}" >"$out/cmake.log" || exit 1
  start=$(date +%s)
  cmake --build "$build" -j"$(nproc)" >"$out/build.log" || exit 1
  echo "built in $(($(date +%s) - start)) s"
  bin=$build
fi
gpudoctor=$bin/gpudoctor
"$gpudoctor" --version || { echo "gpudoctor does not start: ldd says"; ldd "$gpudoctor"; exit 1; }
pinned=$bin/pinned_copy
[[ -x $pinned ]] || { "$nvcc" -O2 -o "$out/pinned_copy" "$src/bench/pinned_copy.cu" && pinned=$out/pinned_copy; }

log "gpudoctor check (no probes)"
step check.txt 60 "$gpudoctor" check
step check-noprobes.json 60 "$gpudoctor" check --format json

log "the probe programs alone"
for p in devices kernel memory-bandwidth host-bandwidth alloc; do
  prog=$bin/libexec/gpudoctor/gpudoctor-probe-cuda
  [[ $p == kernel || $p == memory-bandwidth ]] && prog=$prog-kernels
  step "raw-$p.jsonl" 60 "$prog" "$p"
done

log "gpudoctor check --probes"
step check-warmup.json 120 "$gpudoctor" check --probes --format json
times=()
for i in 1 2 3; do
  t0=$(date +%s%N)
  step "check-probes-$i.json" 120 "$gpudoctor" check --probes --format json
  times+=($((($(date +%s%N) - t0) / 1000000)))
done
cp "$out/check-probes-3.json" "$out/check.json"
echo "check --probes: ${times[*]} ms"
step probe.txt 120 "$gpudoctor" probe

log "gpudoctor bundle --probes, then its replay"
step bundle.log 180 "$gpudoctor" bundle --probes -o "$out/bundle.tar.gz"
step replay.json 60 "$gpudoctor" check --from "$out/bundle.tar.gz" --format json

log "a probe time limit of 1 s (what a hung GPU looks like to gpudoctor)"
step probe-timeout.json 60 "$gpudoctor" probe --probe-timeout 1000 --format json

log "run-time compile: no prebuilt programs, an empty cache, this machine's nvcc"
rm -rf "$out/rt" && mkdir -p "$out/rt/bin" "$out/rt/cache"
cp -r "$gpudoctor" "$bin/share" "$out/rt/bin/"
[[ -d $bin/devlib ]] && cp -r "$bin/devlib" "$out/rt/bin/"
XDG_CACHE_HOME=$out/rt/cache step probe-compiled.json 300 "$out/rt/bin/gpudoctor" probe --format json
XDG_CACHE_HOME=$out/rt/cache step probe-cached.json 120 "$out/rt/bin/gpudoctor" probe --format json
rm -rf "$out/rt/bin"

log "references"
step pinned.json 120 "$pinned" 128 && cat "$out/pinned.json"
if step torch.json 180 "$py" "$src/bench/torch_copy.py"; then
  cat "$out/torch.json"
else
  echo '{}' >"$out/torch.json"
  echo "no PyTorch with CUDA in $py: the memory ratio is not measured"
fi
step torch-import.txt 120 "$py" -c 'import time; t=time.time(); import torch; print("import torch: %.2f s" % (time.time()-t))'

log "where the time of check --probes goes"
# The framework probe alone (import torch, CUDA init, one op), and what import torch spends its time on.
step framework-alone.jsonl 120 "$py" "$src/probes/framework_probe.py"
step torch-importtime.txt 120 "$py" -X importtime -c 'import torch'
sort -t'|' -k2 -n -r "$out/torch-importtime.txt.err" | sed -n 1,25p >"$out/torch-importtime-top.txt" || true
# gpudoctor's own part: the same check with a PATH whose python3 has no PyTorch (no framework probe).
bare_path=$(dirname "$nvcc"):/usr/sbin:/usr/bin:/sbin:/bin
for i in 1 2 3; do
  PATH=$bare_path step "check-probes-notorch-$i.json" 120 "$gpudoctor" check --probes --format json
done

"$py" - "$out" "${times[@]}" <<'PY'
import json, os, sys
out, times = sys.argv[1], sorted(int(t) for t in sys.argv[2:])
def load(name):
    try:
        return json.load(open(os.path.join(out, name)))
    except Exception as e:
        print("cannot read %s: %s" % (name, e))
        return {}
report, replay = load("check.json"), load("replay.json")
pinned, torch_ref = load("pinned.json"), load("torch.json")
backends = report.get("facts", {}).get("probes", {}).get("backends", [])
cuda = ([b for b in backends if b["backend"] == "cuda"] or [{}])[0]
mem = max([(x["best_gbps"] or 0) for x in cuda.get("memory_bandwidth") or [] if x["device"] == 0] or [0])
host = {x["test"]: x["best_gbps"] or 0 for x in cuda.get("host_bandwidth") or [] if x["device"] == 0}
rows, missed = [], []

def row(what, probe, ref, target):
    ratio = probe / ref if ref else None
    ok = ratio is not None and ratio >= target
    rows.append("%-28s %10.1f %10s %7s  %s" % (what, probe, "%.1f" % ref if ref else "-",
                                              "%.3f" % ratio if ratio else "-", "ok" if ok else "MISSED"))
    if not ok:
        missed.append(what)

row("memory GB/s (vs torch copy)", mem, torch_ref.get("best_gbps"), 0.9)
row("host h2d GB/s (vs pinned)", host.get("h2d", 0), pinned.get("h2d_gbps"), 0.9)
row("host d2h GB/s (vs pinned)", host.get("d2h", 0), pinned.get("d2h_gbps"), 0.9)
median = times[len(times) // 2] if times else 10**9
print("\n%-28s %10s %10s %7s" % ("", "probe", "reference", "ratio"))
print("\n".join(rows))
print("%-28s %10d ms (runs: %s; target < 3000 ms)  %s" % ("check --probes", median, times,
                                                          "ok" if median < 3000 else "MISSED"))
if median >= 3000:
    missed.append("check --probes time")
pick = lambda r: [(x["id"], x["subject"], x["status"]) for x in r.get("results", [])
                  if x["id"].startswith(("probe.", "torch."))]
same = pick(report) == pick(replay) and pick(report)
print("bundle replay judges the probes as live: %s" % ("yes" if same else "NO"))
if not same:
    missed.append("bundle replay")
for r in report.get("results", []):
    if r["status"] in ("warn", "error") or r["id"].startswith("probe."):
        print("  %s %s [%s]: %s" % (r["status"], r["id"], r["subject"], r["message"]))
sys.exit(1 if missed else 0)
PY
