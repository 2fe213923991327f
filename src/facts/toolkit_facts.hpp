// The CUDA and ROCm installs, and the settings that point at them.
#pragma once

#include "facts/fact.hpp"
#include "facts/gpu_facts.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

struct CudaInstall {
  std::string path;          // /usr/local/cuda-13.0
  Fact<std::string> version; // 13.0.88
};

struct RocmInstall {
  std::string path; // /opt/rocm-6.2.0, or "dpkg:hipcc" for a distribution package
  Fact<std::string> version;
  bool distribution_package = false;
  // Distribution ROCm libraries only (no ROCm tools): the installed packages outside ROCm that need them,
  // such as libucx0 (OpenMPI) needing libamdhip64-5 on Ubuntu 24.04. Empty: installed for themselves.
  std::vector<std::string> required_by;
};

struct ToolkitFacts {
  std::vector<CudaInstall> cuda;
  Fact<std::string> cuda_default_link; // where /usr/local/cuda points
  Fact<std::string> nvcc_path;         // nvcc first on PATH
  Fact<std::string> nvcc_version;      // "13.0" from nvcc --version
  std::vector<RocmInstall> rocm;
  Fact<std::string> rocm_default_link; // where /opt/rocm points
  Fact<std::string> hipcc_path;
  Fact<std::string> cudnn_version;
  Fact<std::string> nccl_version;
  Fact<std::string> rccl_version;
};

// A folder a setting adds to a search path, when it belongs to a GPU stack (CUDA, ROCm, ...).
struct PathSetting {
  std::string variable;         // "PATH", "LD_LIBRARY_PATH", "ld.so.conf", "CUDA_HOME", ...
  std::string entry;            // as written: "$HOME/rocm/bin", "/opt/rocm-5.7.0/lib"
  std::string resolved;         // absolute, $HOME and earlier assignments expanded; empty if unknown
  std::optional<bool> exists;   // a folder is there; empty when not resolved
  Vendor stack = Vendor::other; // whose stack the path names
  std::string origin;           // "env PATH", "/home/ada/.bashrc:12", "/etc/ld.so.conf.d/rocm.conf:1"
};

// Something that names the CUDA or ROCm in use: nvcc on PATH, CUDA_HOME, /usr/local/cuda, ROCM_PATH, ...
struct StackPointer {
  std::string what;     // "nvcc on PATH", "CUDA_HOME", "/usr/local/cuda", "ROCM_PATH", ...
  std::string path;     // as named
  std::string resolved; // links followed
  bool exists = false;
  Fact<std::string> version; // of the toolkit there
};

// An assignment of a variable in a profile gpudoctor read ("export NAME=..." in ~/.bashrc, "NAME=..." in
// /etc/environment): where a finding about a variable says it is set.
struct VariableOrigin {
  std::string name;
  std::string file;
  int line = 0;
};

struct PathFacts {
  std::vector<PathSetting> settings;       // GPU-stack entries of env, ld.so.conf(.d) and shell profiles
  std::vector<std::string> files;          // profiles and ld.so.conf files read
  std::vector<std::string> not_read;       // profiles left out for a bound, each with why (their checks skip)
  std::size_t profiles_read = 0;           // of `files`, the shell profiles (and /etc/environment)
  std::vector<VariableOrigin> assignments; // every assignment of the profiles read, in reading order
  std::vector<StackPointer> cuda, rocm;
};

} // namespace gpudoctor
