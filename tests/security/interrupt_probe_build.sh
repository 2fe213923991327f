#!/usr/bin/env bash
# SIGINT while gpudoctor compiles its GPU probes (an install without prebuilt probes, a compiler that takes its
# time): exit 130, the compiler killed, and the build folder it was filling in the cache removed (a folder made
# by this run; the cache itself stays).
source "$(dirname "$0")/../e2e/common.bash"
set -m
marker=$((RANDOM + 40000))
trap 'pkill -f "sleep $marker\$" 2>/dev/null || true; rm -rf "$work"' EXIT
prefix=$work/prefix
mkdir -p "$prefix/bin" "$prefix/share/gpudoctor/probes" "$work/fakebin" "$work/cache"
cp "$gpudoctor" "$prefix/bin/gpudoctor"
cp "$source_dir"/probes/*.h "$source_dir"/probes/*.cpp "$source_dir"/probes/*.cu "$source_dir"/probes/sources.txt \
  "$prefix/share/gpudoctor/probes/"
cat >"$work/fakebin/nvcc" <<SCRIPT
#!/bin/sh
if [ "\$1" = --version ]; then echo "Cuda compilation tools, release 12.4, V12.4.131"; exit 0; fi
sleep $marker
SCRIPT
chmod +x "$work/fakebin/nvcc"
XDG_CACHE_HOME=$work/cache PATH="$work/fakebin:$PATH" "$prefix/bin/gpudoctor" probe --backend cuda >/dev/null 2>"$work/err" &
pid=$!
for _ in $(seq 300); do
  pgrep -f "sleep $marker\$" >/dev/null && break
  sleep 0.1
done
pgrep -f "sleep $marker\$" >/dev/null || skip "gpudoctor probe did not start the compiler here: $(cat "$work/err")"
build_dirs=$(find "$work/cache" -mindepth 3 -maxdepth 3 -type d -path '*/probes/*')
[[ -n $build_dirs ]] || fail "no build folder while the compiler runs"
kill -INT "$pid"
status=0
timeout 30 tail --pid="$pid" -f /dev/null || fail "gpudoctor did not exit within 30 s of SIGINT"
wait "$pid" || status=$?
[[ $status == 130 ]] || fail "exit $status, not 130: $(cat "$work/err")"
for _ in $(seq 50); do
  pgrep -f "sleep $marker\$" >/dev/null || break
  sleep 0.1
done
! pgrep -f "sleep $marker\$" >/dev/null || fail "the compiler survived"
for d in $build_dirs; do
  [[ ! -e $d ]] || fail "the build folder $d is still there: $(ls -la "$(dirname "$d")" "$d"; cat "$work/err")"
done
[[ -d $work/cache/gpudoctor/probes ]] || fail "the cache itself was removed"
pass "SIGINT during the probe build: exit 130, compiler killed, its build folder removed"
