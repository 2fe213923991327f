// One source for CUDA and HIP: the runtime API under gpu* names. nvcc compiles the probes as CUDA, hipcc as
// HIP (it defines __HIPCC__); nothing else in probes/ names either runtime. C++17: the oldest toolkits the
// probes are compiled with at run time (CUDA 11, ROCm 5) accept no newer.
#pragma once

#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__)
#if defined(__HIP__)
#include <hip/hip_runtime.h>
#else
#include <hip/hip_runtime_api.h>
#endif

#define GPU_HIP 1
#define GPU_BACKEND "hip"
#define GPU_API(name) "hip" name
typedef hipError_t gpuError_t;
typedef hipDeviceProp_t gpuDeviceProp;
typedef hipEvent_t gpuEvent_t;
typedef hipStream_t gpuStream_t;
#define gpuSuccess hipSuccess
#define gpuErrorMemoryAllocation hipErrorOutOfMemory
#define gpuGetDeviceCount hipGetDeviceCount
#define gpuGetDeviceProperties hipGetDeviceProperties
#define gpuDeviceGetAttribute hipDeviceGetAttribute
#define gpuDevAttrMemoryClockRate hipDeviceAttributeMemoryClockRate
#define gpuDevAttrMaxThreadsPerMultiProcessor hipDeviceAttributeMaxThreadsPerMultiProcessor
#define gpuDeviceGetPCIBusId hipDeviceGetPCIBusId
#define gpuDriverGetVersion hipDriverGetVersion
#define gpuRuntimeGetVersion hipRuntimeGetVersion
#define gpuSetDevice hipSetDevice
#define gpuDeviceSynchronize hipDeviceSynchronize
#define gpuDeviceCanAccessPeer hipDeviceCanAccessPeer
#define gpuDeviceEnablePeerAccess hipDeviceEnablePeerAccess
#define gpuErrorPeerAccessAlreadyEnabled hipErrorPeerAccessAlreadyEnabled
#define gpuMalloc hipMalloc
#define gpuFree hipFree
#define gpuHostAlloc(ptr, size) hipHostMalloc(ptr, size, hipHostMallocDefault)
#define gpuFreeHost hipHostFree
#define gpuMemGetInfo hipMemGetInfo
#define gpuMemcpy hipMemcpy
#define gpuMemcpyAsync hipMemcpyAsync
#define gpuMemcpyPeerAsync hipMemcpyPeerAsync
#define gpuMemset hipMemset
#define gpuMemcpyHostToDevice hipMemcpyHostToDevice
#define gpuMemcpyDeviceToHost hipMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define gpuStreamCreate hipStreamCreate
#define gpuStreamDestroy hipStreamDestroy
#define gpuStreamSynchronize hipStreamSynchronize
#define gpuEventCreate hipEventCreate
#define gpuEventDestroy hipEventDestroy
#define gpuEventRecord hipEventRecord
#define gpuEventSynchronize hipEventSynchronize
#define gpuEventElapsedTime hipEventElapsedTime
#define gpuGetLastError hipGetLastError
#define gpuGetErrorName hipGetErrorName
#define gpuGetErrorString hipGetErrorString
#define gpuFuncGetAttributes hipFuncGetAttributes
typedef hipFuncAttributes gpuFuncAttributes;

#else
#include <cuda_runtime.h>

#define GPU_CUDA 1
#define GPU_BACKEND "cuda"
#define GPU_API(name) "cuda" name
typedef cudaError_t gpuError_t;
typedef cudaDeviceProp gpuDeviceProp;
typedef cudaEvent_t gpuEvent_t;
typedef cudaStream_t gpuStream_t;
#define gpuSuccess cudaSuccess
#define gpuErrorMemoryAllocation cudaErrorMemoryAllocation
#define gpuGetDeviceCount cudaGetDeviceCount
#define gpuGetDeviceProperties cudaGetDeviceProperties
#define gpuDeviceGetAttribute cudaDeviceGetAttribute
#define gpuDevAttrMemoryClockRate cudaDevAttrMemoryClockRate
#define gpuDevAttrMaxThreadsPerMultiProcessor cudaDevAttrMaxThreadsPerMultiProcessor
#define gpuDeviceGetPCIBusId cudaDeviceGetPCIBusId
#define gpuDriverGetVersion cudaDriverGetVersion
#define gpuRuntimeGetVersion cudaRuntimeGetVersion
#define gpuSetDevice cudaSetDevice
#define gpuDeviceSynchronize cudaDeviceSynchronize
#define gpuDeviceCanAccessPeer cudaDeviceCanAccessPeer
#define gpuDeviceEnablePeerAccess cudaDeviceEnablePeerAccess
#define gpuErrorPeerAccessAlreadyEnabled cudaErrorPeerAccessAlreadyEnabled
#define gpuMalloc cudaMalloc
#define gpuFree cudaFree
#define gpuHostAlloc(ptr, size) cudaHostAlloc(ptr, size, cudaHostAllocDefault)
#define gpuFreeHost cudaFreeHost
#define gpuMemGetInfo cudaMemGetInfo
#define gpuMemcpy cudaMemcpy
#define gpuMemcpyAsync cudaMemcpyAsync
#define gpuMemcpyPeerAsync cudaMemcpyPeerAsync
#define gpuMemset cudaMemset
#define gpuMemcpyHostToDevice cudaMemcpyHostToDevice
#define gpuMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define gpuMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define gpuStreamCreate cudaStreamCreate
#define gpuStreamDestroy cudaStreamDestroy
#define gpuStreamSynchronize cudaStreamSynchronize
#define gpuEventCreate cudaEventCreate
#define gpuEventDestroy cudaEventDestroy
#define gpuEventRecord cudaEventRecord
#define gpuEventSynchronize cudaEventSynchronize
#define gpuEventElapsedTime cudaEventElapsedTime
#define gpuGetLastError cudaGetLastError
#define gpuGetErrorName cudaGetErrorName
#define gpuGetErrorString cudaGetErrorString
#define gpuFuncGetAttributes cudaFuncGetAttributes
typedef cudaFuncAttributes gpuFuncAttributes;
#endif

// The targets this binary carries device code for ("sm_80 sm_90 compute_90", "gfx90a"): the build writes them
// into gpudoctor_probe_targets.h, found on the include path.
#if defined(__has_include)
#if __has_include("gpudoctor_probe_targets.h")
#include "gpudoctor_probe_targets.h"
#endif
#endif
#ifndef GPUDOCTOR_PROBE_TARGETS
#define GPUDOCTOR_PROBE_TARGETS ""
#endif
