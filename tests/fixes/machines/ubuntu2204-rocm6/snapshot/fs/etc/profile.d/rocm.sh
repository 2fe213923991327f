# ROCm
export PATH=$PATH:/opt/rocm/bin
