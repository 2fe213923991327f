#!/usr/bin/env bash
# `gpudoctor migrate --to nvidia` on the ROCm 6 workstation of tests/root/lib.bash (rocm 6.2.4 with
# rocm-hip-sdk6.1.0 beside it, amdgpu-dkms, AMD's Mesa under a desktop, the distribution's libucx0 needing
# its HIP, a venv with PyTorch for ROCm), through the mirror of the vendors' repositories, across the reboot,
# then `gpudoctor undo`, which puts the old stack back from the script's cache. Asserted by what dpkg, the
# sources and the files say afterwards.
source "$(dirname "$0")/lib.bash"
root_setup

R=$roots/rocm6
new_machine rocm6 "$R"
add_local_mirror "$R"
args=(--to nvidia --mirror file:///srv/mirror --python /home/sam/venv/bin/python3)
amd_packages=$(graph_packages rocm-6.2.4.txt rocm-6.1.0-versioned.txt amdgpu-6.2.4.txt | grep -Fxf <(installed_names "$R"))

# ---- the plan ---------------------------------------------------------------------------------------------------
"$gpudoctor" migrate "${args[@]}" --root "$R" --emit "$R/tmp/gd/migrate.sh" 2>"$work/emit.err" ||
  fail "migrate --root: $(cat "$work/emit.err")"
shellcheck "$R/tmp/gd/migrate.sh" || fail "the migration script does not pass shellcheck"
purge=$(sed -n 's/^  gd_purge_packages \(.*\) --.*/\1/p' "$R/tmp/gd/migrate.sh" | tr ' ' '\n' | sort)
[[ $purge == "$amd_packages" ]] || fail "the purge list is not every installed package of AMD's repositories: $(diff <(echo "$purge") <(echo "$amd_packages") | sed -n 1,10p)"
grep -q '^#   - kept: libamdhip64-5, libhsa-runtime64-1, libhsakmt1, which libucx0 needs' "$R/tmp/gd/migrate.sh" ||
  fail "the plan does not say what it keeps for libucx0"
grep -q 'libgl1-mesa-dri.*mesa-va-drivers' <<<"$(grep -A1 "^#   - the distribution's" "$R/tmp/gd/migrate.sh" | tr '\n' ' ')" ||
  fail "the plan does not say the distribution's Mesa comes in"
pass "the purge list is the graph: all $(wc -l <<<"$purge") packages of AMD's repositories (rocm-hip-sdk6.1.0, half, hipfort-dev, rocwmma-dev, AMD's Mesa), not the distribution's HIP libucx0 needs (the plan says so)"
same_plan_from_snapshot "$R" "${args[@]}"
pass "the plan made --from a bundle of the root is the live one"

# ---- the migration ----------------------------------------------------------------------------------------------
apply() { "$gpudoctor" migrate --root "$R" --yes "$@"; }
GPUDOCTOR_BOOT_ID=boot-one apply "${args[@]}" --apply >"$work/mig1.out" 2>&1 ||
  fail "migrate --apply failed: $(tail -25 "$work/mig1.out")"
grep -q 'gpudoctor migrate --resume' "$work/mig1.out" || fail "the migration did not stop for the reboot: $(tail "$work/mig1.out")"
left=$(installed_names "$R" | grep -Fxf <(echo "$amd_packages") || true)
[[ -z $left ]] || fail "AMD's packages still installed: $left"
for p in libucx0 libamdhip64-5 libhsa-runtime64-1 libhsakmt1 gpu-desktop-canary libdrm-amdgpu1 dkms \
  xserver-xorg-video-amdgpu libgl1-mesa-dri mesa-va-drivers; do
  is_installed "$R" "$p" || fail "$p is not installed after the migration"
done
pass "every package of AMD's repositories is gone in one purge; libucx0 kept its HIP, the desktop got the distribution's Mesa in the same transaction"
for want in 'nvidia-open-580 580.95.05-1' 'cuda-toolkit-13-0 13.0.2-1' 'libcublas-13-0 13.0.2-1'; do
  got=$(installed_version "$R" "${want% *}")
  [[ $got == "ii  ${want#* }" ]] || fail "${want% *} ${want#* } is not installed ($got)"
done
[[ -f $R/etc/apt/sources.list.d/rocm.list || -f $R/etc/apt/sources.list.d/amdgpu.list ]] && fail "AMD's sources are still there"
grep -q '^deb \[signed-by=/etc/apt/keyrings/cuda-archive.asc\] file:///srv/mirror/compute/cuda/repos/debian12/x86_64/ /' \
  "$R/etc/apt/sources.list.d/cuda-gpudoctor.list" || fail "the mirror's source is not there"
pass "NVIDIA's driver 580 and CUDA 13.0 installed from the mirror; AMD's sources gone"
script_id=$(sed -n "s/^GD_SCRIPT_ID='\(.*\)'/\1/p" "$R"/var/lib/gpudoctor/scripts/*.sh | sed -n 1p)
cache=$R/var/cache/gpudoctor/$script_id
[[ -f $cache/ready ]] || fail "no download cache $cache"
for p in rocm-core hip-runtime-amd rocm-hip-sdk6.1.0 amdgpu-dkms libdrm-amdgpu-amdgpu1; do
  compgen -G "$cache/outgoing/${p}_*.deb" >/dev/null || fail "the old stack's $p was not kept for undo"
done
pass "the old stack's .debs are in the script's cache for undo"
bashrc=$R/home/sam/.bashrc
grep -Eq 'ROCM_PATH|HSA_OVERRIDE|/opt/rocm|HIP_VISIBLE_DEVICES|CUDA_VISIBLE_DEVICES' "$bashrc" && fail ".bashrc still selects or names ROCm: $(cat "$bashrc")"
grep -qxF 'export EDITOR=vim' "$bashrc" || fail ".bashrc lost EDITOR"
[[ -e $R/home/sam/.config/miopen || -e $R/home/sam/.cache/miopen ]] && fail "MIOpen's caches are still there"
pass "the profile lost ROCm's variables, the device selection and the source line; MIOpen's caches are gone"
[[ $(in_root "$R" /home/sam/venv/bin/python -c 'import torch; print(torch.__version__)') == 2.9.0+cu130 ]] ||
  fail "the venv's torch is not the cu130 build"
pip_list=$(in_root "$R" /home/sam/venv/bin/pip list 2>/dev/null)
grep -q '^pytorch-triton-rocm ' <<<"$pip_list" && fail "pytorch-triton-rocm is still in the venv"
grep -q '^triton *3.5.0' <<<"$pip_list" || fail "triton 3.5.0 is not in the venv: $pip_list"
[[ $(in_root "$R" /home/sam/venv/bin/python -c 'import triton; print(triton.__version__)') == 3.5.0 ]] ||
  fail "the triton module is not triton 3.5.0's"
pass "the venv has torch 2.9.0+cu130 with triton, pytorch-triton-rocm is gone"

add_gpudoctor_stub "$R" # the check step runs the gpudoctor that wrote the script, by its absolute path
GPUDOCTOR_BOOT_ID=boot-two apply --resume >"$work/mig2.out" 2>&1 || fail "--resume failed: $(tail "$work/mig2.out")"
grep -q ' check --only ' "$R/var/log/gpudoctor-stub.log" || fail "the check step did not run gpudoctor"
grep -q 'rebooted since this script asked' "$work/mig2.out" || fail "--resume did not go on after the reboot: $(tail "$work/mig2.out")"
pass "migrate --resume goes on after the reboot and finishes"

# ---- undo: the old stack back from the cache ---------------------------------------------------------------------
# The vendors' hosts go away first: what undo installs must come from the script's cache.
kill "$proxy_pid" && wait "$proxy_pid" 2>/dev/null || true
proxy_pid=
"$gpudoctor" undo --root "$R" --yes >"$work/undo.out" 2>&1 || fail "undo failed: $(tail -20 "$work/undo.out")"
for p in rocm rocm-core rocm-hip-sdk6.1.0 hipfort-dev6.1.0 amdgpu-dkms libdrm-amdgpu-amdgpu1; do
  is_installed "$R" "$p" || fail "undo did not put $p back: $(tail -20 "$work/undo.out")"
done
[[ $(installed_version "$R" rocm-core) == "ii  6.2.4.60204-139~22.04" ]] || fail "rocm-core is not the old version"
is_installed "$R" nvidia-open-580 && fail "undo left the NVIDIA driver installed"
[[ -f $R/etc/apt/sources.list.d/rocm.list ]] || fail "undo did not restore AMD's source"
grep -q '^Package: hipblas$' "$R/var/lib/apt/extended_states" || fail "undo did not mark hipblas automatic again"
pass "undo put the old stack back from the cache (no repository reachable), apt's automatic marks too, and took the NVIDIA stack out"
