#!/usr/bin/env bash
# The cold build of gpudoctor with its tests, file by file and as a unity build (docs/architecture.md, "Unity
# builds"), side by side on this machine: ccache off, the same compiler, build type and jobs. Prints both wall
# times and their ratio. Minutes: about 30 on 2 cores.
#
#   bench/build_time.sh [JOBS] [BUILD_TYPE]      (defaults: nproc, RelWithDebInfo)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=${1:-$(nproc)}
type=${2:-RelWithDebInfo}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

build() { # NAME UNITY: prints the wall seconds of a cold build
  local dir=$work/$1 start
  cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" -DGPUDOCTOR_BUILD_TESTS=ON \
    -DCMAKE_UNITY_BUILD="$2" -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >/dev/null
  start=$(date +%s%N)
  CCACHE_DISABLE=1 cmake --build "$dir" -j "$jobs" >"$work/$1.log" 2>&1 || {
    tail -n 20 "$work/$1.log" >&2
    exit 1
  }
  echo $((($(date +%s%N) - start) / 1000000))
  rm -rf "$dir"
}

per_file=$(build per-file OFF)
unity=$(build unity ON)
printf 'cold build, %s, -j%s: file by file %d.%03d s, unity %d.%03d s, ratio %s\n' "$type" "$jobs" \
  $((per_file / 1000)) $((per_file % 1000)) $((unity / 1000)) $((unity % 1000)) \
  "$(awk -v a="$per_file" -v b="$unity" 'BEGIN { printf "%.2f", a / b }')"
