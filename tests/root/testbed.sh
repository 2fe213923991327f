#!/usr/bin/env bash
# The root tests' machines are what their graphs say (tests/root/graphs, tests/root/lib.bash): a ROCm 6.2.4
# workstation and a CUDA 12.6 server, installed by apt from the local signed repositories through the
# vendors' hosts, as the vendors' guides do it. Later tests build on these machines, so their shape is
# asserted here: what dpkg says is installed, what apt marked automatic, the sources and the venvs.
source "$(dirname "$0")/lib.bash"
root_setup

R=$roots/rocm6
new_machine rocm6 "$R"
for p in rocm rocm-hip-sdk rocm-core hsa-rocr half hipfort-dev rocwmma-dev rocalution rocm-hip-sdk6.1.0 \
  hipblas-dev6.1.0 half6.1.0 amdgpu-dkms amdgpu-install libdrm-amdgpu-amdgpu1 mesa-amdgpu-va-drivers \
  libgl1-amdgpu-mesa-dri libucx0 libamdhip64-5 libdrm-amdgpu1 gpu-desktop-canary dkms; do
  is_installed "$R" "$p" || fail "the ROCm machine lacks $p"
done
for p in libgl1-mesa-dri mesa-va-drivers; do
  is_installed "$R" "$p" && fail "the ROCm machine has the distribution's $p (its desktop must use AMD's)"
done
grep -q '^Package: hipblas$' "$R/var/lib/apt/extended_states" || fail "apt did not mark hipblas automatic"
[[ $(installed_names "$R" | wc -l) -ge 200 ]] || fail "the ROCm machine has only $(installed_names "$R" | wc -l) packages"
pass "ROCm machine: rocm 6.2.4 (with half, hipfort-dev, rocwmma-dev), rocm-hip-sdk6.1.0, amdgpu-dkms, AMD's Mesa for the desktop, libucx0 with the distribution's HIP; apt's automatic marks"
[[ $(in_root "$R" /home/sam/venv/bin/python -c 'import torch; print(torch.__version__)') == 2.4.1+rocm6.1 ]] ||
  fail "sam's venv has no torch for ROCm 6.1"
pass "ROCm machine: sam's venv has torch 2.4.1+rocm6.1 with pytorch-triton-rocm"
# The drivers' modules as a real machine has them: DKMS built them in the package's postinst (the fake dkms of
# tests/root/tools), depmod indexed them, modinfo finds them by name; the kernel's own (in-tree) amdgpu too.
[[ $(in_root "$R" modinfo -k "$kernel" -F filename amdgpu) == "/lib/modules/$kernel/updates/dkms/amdgpu.ko" ]] ||
  fail "modinfo -k $kernel amdgpu does not find amdgpu-dkms's module: $(in_root "$R" modinfo -k "$kernel" amdgpu 2>&1)"
[[ $(in_root "$R" modinfo -k "$kernel" -F version amdgpu) == 6.8.5-2044426.22.04 ]] || fail "the amdgpu module is not amdgpu-dkms's"
[[ -f $R/lib/modules/$kernel/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko ]] || fail "the kernel has no in-tree amdgpu"
[[ $(in_root "$R" dkms status) == "amdgpu/6.8.5-2044426.22.04, $kernel, x86_64: installed" ]] || fail "dkms status: $(in_root "$R" dkms status)"
pass "ROCm machine: amdgpu-dkms's module built by DKMS for $kernel (dkms status, modinfo -k), the kernel's in-tree amdgpu beside it"

C=$roots/cuda12
new_machine cuda12 "$C"
for p in cuda-keyring cuda-toolkit-12-6 libcublas-12-6 nsight-compute-2024.3.2 cuda-drivers-560 nvidia-driver-560 \
  nvidia-dkms-560 libnvidia-compute-560 nvidia-fabricmanager-560 libcudnn9-cuda-12 libnccl2 nvidia-container-toolkit; do
  is_installed "$C" "$p" || fail "the CUDA machine lacks $p"
done
grep -q 'developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/ /' \
  "$C/etc/apt/sources.list.d/cuda-debian12-x86_64.list" || fail "cuda-keyring did not bring NVIDIA's source"
[[ $(in_root "$C" dpkg-query -S /etc/apt/sources.list.d/cuda-debian12-x86_64.list) == cuda-keyring:* ]] ||
  fail "NVIDIA's source is not cuda-keyring's file"
[[ -s $C/etc/apt/preferences.d/cuda-repository-pin-600 ]] || fail "cuda-keyring did not bring the pin"
pass "CUDA machine: cuda-keyring's source, key and pin; CUDA 12.6, driver 560 (cuda-drivers-560), Fabric Manager, cuDNN, NCCL, container toolkit"
[[ $(in_root "$C" modinfo -k "$kernel" -F version nvidia) == 560.35.03 ]] ||
  fail "modinfo -k $kernel nvidia does not find the 560 module: $(in_root "$C" modinfo -k "$kernel" nvidia 2>&1)"
pass "CUDA machine: the nvidia 560 module built by DKMS for $kernel"
