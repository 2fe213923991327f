#!/usr/bin/env bash
# A gpudoctor installed without prebuilt probes (built without a GPU compiler) compiles them from its installed
# sources with the toolkit it finds, caches them under $XDG_CACHE_HOME/gpudoctor/probes per source hash,
# compiler and targets, says so on stderr, and reuses the cache the next time. Args: gpudoctor source-dir.
# Exits 125 when this machine has neither nvcc nor hipcc.
source "$(dirname "$0")/../e2e/common.bash"
have=()
{ command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; } && have+=(cuda)
{ command -v hipcc >/dev/null || [[ -x /opt/rocm/bin/hipcc ]]; } && have+=(hip)
((${#have[@]} > 0)) || skip "neither nvcc nor hipcc on this machine: nothing to compile the probes with"

# The layout of an install: bin/gpudoctor and share/gpudoctor/probes, no libexec/gpudoctor.
prefix=$work/prefix
mkdir -p "$prefix/bin" "$prefix/share/gpudoctor/probes"
cp "$gpudoctor" "$prefix/bin/gpudoctor"
cp "$source_dir"/probes/*.h "$source_dir"/probes/*.cpp "$source_dir"/probes/*.cu "$source_dir"/probes/sources.txt \
  "$prefix/share/gpudoctor/probes/"
export XDG_CACHE_HOME=$work/cache PATH=$PATH:/usr/local/cuda/bin

# Where a vendor has no GPU and no driver, its probes are not compiled (tens of seconds to learn that there is
# no device) unless --backend asks for them.
status=0
"$prefix/bin/gpudoctor" probe --format json >"$work/auto.json" 2>"$work/auto.err" || status=$?
[[ $status == 0 || $status == 1 ]] || fail "the run without --backend exited $status: $(cat "$work/auto.err")"
for backend in "${have[@]}"; do
  title=$([[ $backend == cuda ]] && echo CUDA || echo HIP)
  vendor_here=$("$py" - "$work/auto.json" "$backend" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = r["facts"]
vendor = "nvidia" if sys.argv[2] == "cuda" else "amd"
gpus = any(g.get("vendor", "").lower() == vendor for g in f.get("gpus", []))
drivers = f["drivers"]
modules = drivers["gpu_modules_loaded"]
driver = ("nvidia" in modules) if vendor == "nvidia" else ("amdgpu" in modules or drivers["amd"]["kfd_device"])
print("yes" if gpus or driver else "no")
PY
)
  if [[ $vendor_here == no ]]; then
    if grep -q "compiling the $title probes" "$work/auto.err"; then
      fail "the $title probes were compiled without a GPU or driver of their vendor"
    fi
    expect "$work/auto.json"       "[('not compiled' in b['unavailable']) for b in r['facts']['probes']['backends'] if b['backend']=='$backend']==[True]"       "no $title GPU or driver here: its probes are not compiled, and the report says why"
  fi
done

for round in first second; do
  status=0
  start=$(date +%s%N)
  backend_args=()
  for backend in "${have[@]}"; do backend_args+=(--backend "$backend"); done
  "$prefix/bin/gpudoctor" probe --format json "${backend_args[@]}" >"$work/$round.json" 2>"$work/$round.err" || status=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  [[ $status == 0 || $status == 1 ]] || fail "$round run exited $status: $(cat "$work/$round.err")"
  expect "$work/$round.json" "r['format']=='gpudoctor-report'" "$round run: stdout is the JSON report (${ms} ms)"
  for backend in "${have[@]}"; do
    title=$([[ $backend == cuda ]] && echo CUDA || echo HIP)
    if [[ $round == first ]]; then
      grep -q "compiling the $title probes with" "$work/first.err" || fail "the first run did not say it compiled the $title probes"
      pass "the first run says it compiles the $title probes: $(grep "compiling the $title" "$work/first.err")"
      expect "$work/first.json" \
        "[b['how'].startswith('compiled now with') for b in r['facts']['probes']['backends'] if b['backend']=='$backend']==[True]" \
        "the $title probes were compiled now"
      compgen -G "$XDG_CACHE_HOME/gpudoctor/probes/$backend-*/gpudoctor-probe-$backend-kernels" >/dev/null ||
        fail "no cached $title programs under $XDG_CACHE_HOME/gpudoctor/probes"
      pass "the $title programs are cached: $(ls -d "$XDG_CACHE_HOME/gpudoctor/probes/$backend-"*)"
    else
      grep -q "compiling the $title probes" "$work/second.err" && fail "the second run compiled the $title probes again"
      expect "$work/second.json" \
        "[b['how'].startswith('cached in') for b in r['facts']['probes']['backends'] if b['backend']=='$backend']==[True]" \
        "the second run reuses the cached $title probes"
    fi
    expect "$work/$round.json" \
      "[b['device_count'] is not None or b['count_error'] is not None for b in r['facts']['probes']['backends'] if b['backend']=='$backend']==[True]" \
      "$round run: the compiled $title devices probe ran and answered"
  done
done
