#!/usr/bin/env bash
# The fix inventory is part of the facts (issue 14): a bundle's report.json carries it, and `fix --from` the
# bundle plans with the inventory the live machine gave; `check` does not take it (it stays fast). The
# machine: tests/machines/amd-to-nvidia-leftovers (ROCm left behind after a move to NVIDIA), its files used
# as a root (bundle --root, fix --root).
source "$(dirname "$0")/common.bash"
cp -a "$source_dir/tests/machines/amd-to-nvidia-leftovers/snapshot/fs" "$work/root"
"$gpudoctor" bundle --root "$work/root" -o "$work/b.tar.gz" >/dev/null 2>"$work/bundle.err" ||
  fail "bundle --root failed: $(tail -3 "$work/bundle.err")"
mkdir "$work/b"
tar -xzf "$work/b.tar.gz" -C "$work/b"
report=$work/b/report.json
expect "$report" "'inventory' in r['facts']" "the bundle's report.json holds facts.inventory"
expect "$report" "r['facts']['inventory']['amd']['packages'] == ['hip-runtime-amd', 'rocm-core', 'rocminfo']" \
  "facts.inventory.amd.packages lists the ROCm packages left (dpkg status of the machine)"
expect "$report" "r['facts']['inventory']['amd']['config_packages'] == ['amdgpu-dkms']" \
  "facts.inventory.amd.config_packages lists the package removed with its configuration left"
expect "$report" "r['facts']['inventory']['amd']['alternatives'] == ['rocm']" "facts.inventory names the rocm alternative"
expect "$report" "r['facts']['inventory']['nvidia']['packages'] == ['libnvidia-compute-525', 'nvidia-dkms-525', 'nvidia-driver-525', 'nvidia-utils-525']" \
  "facts.inventory.nvidia.packages lists the NVIDIA driver the machine moved to"

"$gpudoctor" check --from "$work/b.tar.gz" --format json >"$work/check.json" || true
expect "$work/check.json" "'inventory' not in r['facts'] and 'os' in r['facts']" "check's facts do not carry the inventory"

# The plan --from the bundle is the plan on the root (but for the lines naming where it came from).
"$gpudoctor" fix purge-rocm --root "$work/root" >"$work/live.sh" 2>"$work/live.err" ||
  fail "fix --root: $(cat "$work/live.err")"
"$gpudoctor" fix purge-rocm --from "$work/b.tar.gz" >"$work/offline.sh" 2>"$work/offline.err" ||
  fail "fix --from: $(cat "$work/offline.err")"
strip='/^# From: /d; /^GD_SCRIPT_ID=/d; /^GD_FOR_HOST=/d; /^# For:  host /d'
diff <(sed "$strip" "$work/live.sh") <(sed "$strip" "$work/offline.sh") >"$work/plan.diff" ||
  fail "fix purge-rocm --from the bundle differs from --root: $(head -20 "$work/plan.diff")"
grep -q "rocm-core" "$work/offline.sh" || fail "the plan --from the bundle does not purge rocm-core"
pass "fix purge-rocm --from the bundle is the plan made on the machine, and purges what the inventory lists"
