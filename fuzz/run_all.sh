#!/usr/bin/env bash
# Builds the libFuzzer targets (the parsers, the snapshot reader and the unpacker) with clang and runs each for
# a bounded time; fails on any crash, sanitizer report, timeout or leak.
#
#   fuzz/run_all.sh [SECONDS]     seconds per target (default 20)
#
# Options: --build-dir DIR (default build-fuzz), --jobs N (targets run side by side; default: CPUs),
# --only "NAME ..." (some targets), --install-deps (apt-get clang and its fuzzer runtime when missing).
# Seeds: tests/data/realdata, tests/data/parse and fuzz/seeds, read at run time, and for the snapshot targets
# BUILD/seeds/NAME, written by fuzz/make_snapshot_seeds.py; what the fuzzer finds goes
# to BUILD/corpus/NAME (kept between runs), crashes to BUILD/artifacts/. docs/fuzzing.md explains the rest.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=20
build_dir=$here/build-fuzz
jobs=$(nproc 2>/dev/null || echo 2)
only=
install_deps=0

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }
while (($#)); do
  case $1 in
    --build-dir) build_dir=${2:?--build-dir needs a folder}; shift ;;
    --jobs) jobs=${2:?--jobs needs a number}; shift ;;
    --only) only=${2:?--only needs target names}; shift ;;
    --install-deps) install_deps=1 ;;
    -h|--help) usage; exit 0 ;;
    [0-9]*) seconds=$1 ;;
    *) echo "run_all.sh: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

cxx=${FUZZ_CXX:-clang++}
fuzzer_works() {
  local probe
  probe=$(mktemp -d)
  printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$probe/p.cpp"
  "$cxx" -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" >/dev/null 2>&1
  local status=$?
  rm -rf "$probe"
  return $status
}
if ! command -v "$cxx" >/dev/null || ! fuzzer_works; then
  if ((install_deps)) && command -v apt-get >/dev/null; then
    sudo_cmd=()
    (($(id -u) != 0)) && sudo_cmd=(sudo)
    say "Installing clang and its fuzzer runtime with apt-get"
    "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
    # Debian 12 and Ubuntu 24.04 ship libFuzzer in libclang-rt-dev; Ubuntu 22.04 in clang's own packages.
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends clang
    if apt-cache show libclang-rt-dev >/dev/null 2>&1; then
      DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends libclang-rt-dev
    fi
  fi
  if ! command -v "$cxx" >/dev/null || ! fuzzer_works; then
    echo "run_all.sh: $cxx cannot build libFuzzer targets; install clang and libclang-rt-dev" \
      "(or pass --install-deps), or set FUZZ_CXX" >&2
    exit 2
  fi
fi

say "Building the fuzz targets in $build_dir"
cmake -S "$here" -B "$build_dir" -G Ninja -DGPUDOCTOR_BUILD_FUZZERS=ON -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >/dev/null
cmake --build "$build_dir" -j "$jobs"

targets=()
if [[ -n $only ]]; then
  read -r -a targets <<<"$only"
else
  mapfile -t targets <"$build_dir/fuzz-targets.txt"
fi

# The snapshot targets' seeds (test machines' JSON, hostile JSON and archives) are generated, not kept.
seeds=$build_dir/seeds
rm -rf "$seeds"
if command -v python3 >/dev/null; then
  python3 "$here/fuzz/make_snapshot_seeds.py" "$seeds"
else
  echo "run_all.sh: no python3: the snapshot targets start without their generated seeds" >&2
fi

results=$build_dir/results
mkdir -p "$results" "$build_dir/artifacts"
rm -f "$results"/*.txt
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

# One target: its log in results/NAME.log, one summary line in results/NAME.txt.
run_one() {
  local name=$1 corpus=$build_dir/corpus/$1 log=$results/$1.log status=0
  mkdir -p "$corpus"
  local extra=()
  [[ -d $seeds/$name ]] && extra=("$seeds/$name")
  timeout $((seconds + 120)) "$build_dir/fuzz/fuzz_$name" -max_total_time="$seconds" -max_len=65536 \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -dict="$here/fuzz/parsers.dict" \
    -artifact_prefix="$build_dir/artifacts/$name-" "$corpus" "${extra[@]}" \
    "$here/tests/data/realdata" "$here/tests/data/parse" "$here/fuzz/seeds" >"$log" 2>&1 || status=$?
  local runs cov corp secs
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  local verdict=ok
  ((status == 0)) || verdict="FAILED (exit $status; see $log)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "${secs:-?}" "${runs:-?}" "${cov:-?}" "${corp:-?}" "$verdict" \
    >"$results/$name.txt"
  printf '  %-24s %s\n' "$name" "$verdict"
}

say "Fuzzing ${#targets[@]} targets, ${seconds}s each, $jobs at a time"
running=0
for t in "${targets[@]}"; do
  [[ -x $build_dir/fuzz/fuzz_$t ]] || { echo "run_all.sh: no fuzz target $t" >&2; exit 2; }
  run_one "$t" &
  running=$((running + 1))
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

summary=$build_dir/fuzz-summary.tsv
printf 'target\tseconds\texecutions\tcoverage\tcorpus\tresult\n' >"$summary"
cat "$results"/*.txt >>"$summary"
column -t -s $'\t' "$summary" 2>/dev/null || cat "$summary"
if grep -q FAILED "$summary"; then
  say "Crashes: reproduce with $build_dir/fuzz/fuzz_NAME $build_dir/artifacts/NAME-crash-..."
  exit 1
fi
say "No crash in ${#targets[@]} targets"
