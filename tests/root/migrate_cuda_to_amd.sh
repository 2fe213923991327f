#!/usr/bin/env bash
# `gpudoctor migrate --to amd` on the CUDA 12 server of tests/root/lib.bash (cuda-keyring's source, key and
# pin, CUDA 12.6, driver 560, the Fabric Manager, cuDNN, NCCL, the container toolkit wired into Docker,
# containerd and CDI, a venv with PyTorch for CUDA 12.6), through the mirror of the vendors' repositories.
# Asserted by what dpkg, the sources and the files say afterwards; the plan --from a bundle of the root is
# the live one.
source "$(dirname "$0")/lib.bash"
root_setup

C=$roots/cuda12
new_machine cuda12 "$C"
add_local_mirror "$C"
add_fake_systemctl "$C" nvidia-persistenced nvidia-fabricmanager docker containerd
args=(--to amd --mirror file:///srv/mirror --python /home/sam/venv/bin/python3)
nvidia_packages=$(graph_packages cuda-debian12.txt nvidia-container.txt | grep -Fxf <(installed_names "$C"))

"$gpudoctor" migrate "${args[@]}" --root "$C" --emit "$C/tmp/gd/migrate.sh" 2>"$work/emit.err" ||
  fail "migrate --root: $(cat "$work/emit.err")"
shellcheck "$C/tmp/gd/migrate.sh" || fail "the migration script does not pass shellcheck"
purge=$(sed -n 's/^  gd_purge_packages \(.*\) --.*/\1/p' "$C/tmp/gd/migrate.sh" | tr ' ' '\n' | sort)
[[ $purge == "$nvidia_packages" ]] || fail "the purge list is not every installed package of NVIDIA's repositories: $(diff <(echo "$purge") <(echo "$nvidia_packages") | sed -n 1,10p)"
grep -q "NVIDIA's runtime leaves Docker's and containerd's configuration" "$C/tmp/gd/migrate.sh" || fail "the plan does not say what happens to the container runtimes"
pass "the purge list is the graph: all $(wc -l <<<"$purge") NVIDIA packages (cuda-keyring, driver 560, Fabric Manager, cuDNN, NCCL, container toolkit)"
same_plan_from_snapshot "$C" "${args[@]}"
pass "the plan made --from a bundle of the root is the live one"

GPUDOCTOR_BOOT_ID=boot-one "$gpudoctor" migrate --root "$C" --yes "${args[@]}" --apply >"$work/mig.out" 2>&1 ||
  fail "migrate --apply failed: $(tail -25 "$work/mig.out")"
grep -q 'gpudoctor migrate --resume' "$work/mig.out" || fail "the migration did not stop for the reboot: $(tail "$work/mig.out")"
left=$(installed_names "$C" | grep -Fxf <(echo "$nvidia_packages") || true)
[[ -z $left ]] || fail "NVIDIA's packages still installed: $left"
is_installed "$C" dkms || fail "dkms went with the NVIDIA driver"
for p in rocm rocm-core hip-runtime-amd amdgpu-dkms libdrm-amdgpu-amdgpu1; do
  is_installed "$C" "$p" || fail "$p is not installed"
done
[[ $(installed_version "$C" rocm-core) == "ii  7.2.0.70200-43~22.04" ]] || fail "rocm-core is not 7.2"
pass "every NVIDIA package is gone (dkms stays), ROCm 7.2 with amdgpu-dkms 30.30 and AMD's libdrm from the graphics repository installed"
for f in /etc/apt/sources.list.d/cuda-debian12-x86_64.list /etc/apt/preferences.d/cuda-repository-pin-600 \
  /usr/share/keyrings/cuda-archive-keyring.gpg /etc/apt/sources.list.d/nvidia-container-toolkit.list \
  /etc/cdi/nvidia.yaml /run/cdi/nvidia-container-toolkit.json /etc/modprobe.d/nvidia.conf; do
  [[ -e $C$f ]] && fail "$f is still there"
done
[[ $(head -c 4 "$C/etc/apt/keyrings/rocm.gpg" | od -An -tx1 | tr -d ' ') != 2d2d2d2d ]] || fail "rocm.gpg is armoured, not binary as AMD's guide has it"
grep -q '^Pin: release o=repo.radeon.com' "$C/etc/apt/preferences.d/rocm-pin-600" || fail "no pin for repo.radeon.com"
grep -q '^deb \[arch=amd64 signed-by=/etc/apt/keyrings/rocm.gpg\] file:///srv/mirror/rocm/apt/7.2 jammy main' \
  "$C/etc/apt/sources.list.d/rocm.list" || fail "the mirror's ROCm source is not there"
pass "cuda-keyring's source, key and pin and the container toolkit's source are gone; AMD's key in /etc/apt/keyrings/rocm.gpg (binary), the pin, the mirror's sources"
grep -q nvidia "$C/etc/docker/daemon.json" && fail "daemon.json still names nvidia: $(cat "$C/etc/docker/daemon.json")"
grep -q '"log-driver": "json-file"' "$C/etc/docker/daemon.json" || fail "daemon.json lost its other settings"
grep -q 'runtimes.nvidia' "$C/etc/containerd/config.toml" && fail "containerd still has the nvidia runtime"
grep -q 'default_runtime_name = "runc"' "$C/etc/containerd/config.toml" || fail "containerd's default runtime is not runc"
grep -q 'runtimes.runc' "$C/etc/containerd/config.toml" || fail "containerd lost the runc runtime"
pass "Docker's default-runtime nvidia and runtime entry, containerd's nvidia runtime and the CDI specs are gone, the rest kept"
for unit in nvidia-persistenced nvidia-fabricmanager; do
  grep -qx "stop $unit" "$C/var/log/fake-systemctl.log" || fail "$unit was not stopped: $(cat "$C/var/log/fake-systemctl.log")"
done
pass "nvidia-persistenced and the Fabric Manager were stopped before the purge"
[[ $(in_root "$C" /home/sam/venv/bin/python -c 'import torch; print(torch.__version__)') == 2.9.0+rocm7.2 ]] ||
  fail "the venv's torch is not the rocm7.2 build"
pip_list=$(in_root "$C" /home/sam/venv/bin/pip list 2>/dev/null)
grep -Eq '^(triton|nvidia-cublas-cu12) ' <<<"$pip_list" && fail "CUDA's companion wheels stayed: $pip_list"
grep -q '^pytorch-triton-rocm *3.5.0' <<<"$pip_list" || fail "pytorch-triton-rocm is not there: $pip_list"
grep -Eq 'CUDA_VISIBLE_DEVICES|CUDA_HOME|/usr/local/cuda' "$C/home/sam/.bashrc" && fail ".bashrc still names CUDA"
pass "the venv has torch 2.9.0+rocm7.2 with pytorch-triton-rocm; triton and nvidia-cublas-cu12 are gone; the profile lost CUDA and its device selection"
