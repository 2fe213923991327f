#!/usr/bin/env bash
# No crash from data: a 1 MB line (first, last, and last without a newline), 100 KB of unclosed nesting
# characters, and every environment value as long as Linux allows (128 KiB), in EVERY file the collectors read
# (tests/security/inflate_snapshot.py). For each snapshot below and each kind of content, `check --from`,
# `fix --from` (the list) and `migrate --from --to nvidia|amd`, and, where the GPUs are still recognised (the
# "deep" content), every fix id with --render-all, and without it those whose steps depend on what the machine's
# profiles set, must end normally: check 0/1, fix and migrate 0/1/2 (2: not applicable here), never a signal
# (a stack overflow in a backtracking regex) or 3 (an internal error), each within a 120 s hang guard.
#
# The snapshots: several machine fixtures, each given the profile, repository, linker and NCCL files the
# collectors and the fix inventory read when a fixture lacks them, and a bundle recorded live on this machine
# (it holds exactly what the collectors read here). HUGE_LINES_SNAPSHOTS (space-separated snapshot folders)
# replaces the fixtures, to point the test at any other files.
source "$(dirname "$0")/../e2e/common.bash"
inflate="$source_dir/tests/security/inflate_snapshot.py"
fixtures=${HUGE_LINES_SNAPSHOTS:-}
if [[ -z $fixtures ]]; then
  for name in amd-to-nvidia-leftovers amd-rx7800xt-rocm7-leftovers ubuntu-noble-rocm-jammy-repo; do
    fixtures+=" $source_dir/tests/machines/$name/snapshot"
  done
fi
ids=$(cd "$source_dir/fixes" && ls ./*.yaml | sed 's|^\./||; s|\.yaml$||' | grep -vx -e catalogue -e migrate -e stacks)
gated=$(cd "$source_dir/fixes" && grep -l when_system_sets ./*.yaml | sed 's|^\./||; s|\.yaml$||')

# Adds the files the collectors and the fix inventory read, where the snapshot lacks them.
seed() {
  local fs=$1/fs home
  home=$("$py" -c 'import json,sys; print(json.load(open(sys.argv[1])).get("home") or "/root")' "$1/identity.json")
  add() { [[ -e $fs$1 ]] || { mkdir -p "$(dirname "$fs$1")" && printf '%s\n' "$2" >"$fs$1"; }; }
  add /etc/profile 'export PATH=/usr/local/cuda/bin:$PATH'
  add /etc/environment 'HSA_OVERRIDE_GFX_VERSION=11.0.0'
  add /etc/bash.bashrc 'export ROCM_PATH=/opt/rocm'
  add /etc/profile.d/gpu.sh 'export LD_LIBRARY_PATH=/opt/rocm/lib:$LD_LIBRARY_PATH'
  add /etc/nccl.conf 'NCCL_P2P_DISABLE=1'
  add /etc/ld.so.conf.d/rocm.conf '/opt/rocm/lib'
  add /etc/apt/sources.list.d/rocm.list \
    'deb [arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg] https://repo.radeon.com/rocm/apt/6.1 jammy main'
  add /etc/apt/sources.list.d/cuda.sources $'Types: deb\nURIs: https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/\nSuites: /\nSigned-By: /usr/share/keyrings/cuda-archive-keyring.gpg'
  add /etc/yum.repos.d/rocm.repo $'[rocm]\nbaseurl=https://repo.radeon.com/rocm/rhel9/6.1/main\ngpgcheck=1'
  add /etc/docker/daemon.json '{"runtimes": {"nvidia": {"path": "nvidia-container-runtime"}}}'
  add /etc/modprobe.d/gpu.conf 'blacklist nouveau'
  add /etc/pip.conf $'[global]\nindex-url = https://download.pytorch.org/whl/cu124'
  add "$home/.bashrc" 'export CUDA_HOME=/usr/local/cuda'
  add "$home/.profile" 'export HIP_VISIBLE_DEVICES=0'
}

# Runs gpudoctor; fails unless it ended with one of the allowed exit codes.
run() {
  local allowed=$1 what=$2 status=0
  shift 2
  timeout -s KILL 120 "$gpudoctor" "$@" >"$work/out" 2>"$work/err" || status=$?
  [[ $status != 137 ]] || fail "$what: still running after 120 s: gpudoctor $*"
  [[ " $allowed " == *" $status "* ]] ||
    fail "$what: exit $status (allowed: $allowed): gpudoctor $*: $(tail -c 600 "$work/err")"
}

snapshots=()
for f in $fixtures; do
  copy="$work/seeded-$(basename "$(dirname "$f")")"
  cp -a "$f" "$copy"
  seed "$copy"
  snapshots+=("$copy")
done
if [[ -z ${HUGE_LINES_SNAPSHOTS:-} ]]; then
  "$gpudoctor" bundle -o "$work/live.tar.gz" >/dev/null 2>&1 || fail "bundle of this machine failed"
  mkdir "$work/live" && tar -xzf "$work/live.tar.gz" -C "$work/live"
  live=$(dirname "$(find "$work/live" -name manifest.json | sed -n 1p)")
  snapshots+=("$live")
fi

for snap in "${snapshots[@]}"; do
  name=$(basename "$snap")
  for variant in prepend nonl nesting deep; do
    inflated="$work/inflated"
    rm -rf "$inflated"
    changed=$("$py" "$inflate" "$snap" "$inflated" "$variant")
    label="$name, $variant ($changed files and values)"
    run "0 1" "$label: check" check --from "$inflated" --format json
    run "0 1 2" "$label: fix (list)" fix --from "$inflated"
    if [[ $variant == deep ]]; then
      for id in $ids; do
        run "0 1 2" "$label: fix $id --render-all" fix "$id" --from "$inflated" --render-all
      done
      for id in $gated; do
        run "0 1 2" "$label: fix $id" fix "$id" --from "$inflated"
      done
    fi
    run "0 1 2" "$label: migrate --to nvidia" migrate --from "$inflated" --to nvidia
    run "0 1 2" "$label: migrate --to amd" migrate --from "$inflated" --to amd
    pass "$label: no crash"
  done
done
