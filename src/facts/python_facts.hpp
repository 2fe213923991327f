// The Python environments, their PyTorch and the distributions beside it.
#pragma once

#include "facts/fact.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

struct TorchBuild {
  std::string version;             // 2.6.0+cu124
  std::optional<std::string> cuda; // "12.4"; empty on CPU and ROCm builds
  std::optional<std::string> hip;  // "6.2.41133"
  std::string location;            // .../site-packages/torch
  std::string source;              // the version.py read
  std::string installer;           // torch-*.dist-info/INSTALLER: "pip", "uv", "conda"; empty when none
  bool cpu_only() const { return !cuda && !hip; }
};

// An installed Python distribution: one *.dist-info / *.egg-info folder of a site folder.
struct PythonDist {
  std::string name;    // normalised: lower case, '_' and '.' as '-' ("nvidia-cublas-cu12")
  std::string version; // "12.6.4.1", "2.8.0.dev20250529+rocm6.4"
  std::string folder;  // the site folder it is in
  std::string entry;   // its *.dist-info / *.egg-info folder name as on disk
};

// A compiled extension beside PyTorch (flash-attn, xformers, bitsandbytes, ...), as its files say it was
// built.
// A version's local label (parse::version_label).
struct VersionLabel {
  std::string label; // after '+', lower case: "cu123torch2.4cxx11abifalse"
  bool cuda = false, rocm = false;
  std::optional<int> cuda_major, rocm_major; // cu123 and cu12 -> 12; rocm6.1 and rocm61 -> 6
  std::string torch_release;                 // "torch2.4" -> "2.4"; empty when none
};

// What a compiled extension was built for, as its files say (collect/extension_build): its version's label
// (+cu123torch2.4, +rocm6.1), its libraries' names (libbitsandbytes_cuda121.so) and their DT_NEEDED
// (libcudart.so.12, libamdhip64.so.6, libc10_cuda.so).
struct ExtensionBuild {
  bool cuda = false, rocm = false;
  std::optional<int> cuda_major, rocm_major;
  std::string torch_release;         // "2.4", from a label
  std::vector<std::string> evidence; // what said so
};

struct CompiledExtension {
  std::string dist, version, folder;       // normalised name, version (with its label), site folder
  std::vector<std::string> requires_torch; // its METADATA's Requires-Dist specs of torch ("==2.5.1")
  struct Library {
    std::string path;
    std::optional<std::vector<std::string>> needed; // DT_NEEDED (snapshot key elf-needed@<path>)
  };
  std::vector<Library> libraries; // the shared libraries in its package folders
  ExtensionBuild built_for;       // derived from the above (collect/link_facts)
};

struct PythonEnv {
  std::string role;        // "PATH", "system", "VIRTUAL_ENV", "CONDA_PREFIX", "--python"
  std::string executable;  // as found
  std::string command_key; // the snapshot key of the command that asked it for sys.path
  std::string via;         // how it was found when not directly, e.g. through a pyenv shim
  Fact<std::string> version;
  std::vector<std::string> sys_path;
  std::string error; // could not run it
  std::optional<TorchBuild> torch;
  std::vector<PythonDist> distributions; // of the site folders on sys_path (site-packages, dist-packages)
  // Issue 12: compiled extensions, torch's own Requires-Dist pins (name -> spec), and the libraries the
  // nvidia-* wheels put in <site>/nvidia/*/lib (folder -> file names).
  std::vector<CompiledExtension> extensions;
  std::map<std::string, std::string> torch_requires;
  std::map<std::string, std::vector<std::string>> wheel_libs;
};

struct PythonFacts {
  std::vector<PythonEnv> envs; // the first is the one in use
};

} // namespace gpudoctor
