// Parsers: pure functions from the text of one file or command output to facts. They never throw, never
// do I/O, and survive any input (each is fuzzed); what they cannot read is left empty.
#pragma once

#include "facts/amd_facts.hpp"
#include "facts/nvidia_facts.hpp"

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::parse {

// /etc/os-release (or /usr/lib/os-release).
struct OsRelease {
  std::string id, version_id, codename, pretty_name, name;
  std::vector<std::string> id_like;
};
OsRelease os_release(std::string_view text);

// /proc/modules: loaded module names (value: empty; versions come from /sys/module/X/version).
std::map<std::string, std::string> proc_modules(std::string_view text);

// /proc/driver/nvidia/version: proprietary "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07 <date>"
// or open "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  525.60.11  Release Build  (...)".
struct NvidiaProcVersion {
  std::string version; // 550.90.07 (Jetson: the L4T version, e.g. 35.3.1)
  bool open = false;
  std::string arch; // x86_64, aarch64
  std::string gcc;  // the GCC line, when present
};
std::optional<NvidiaProcVersion> nvidia_proc_version(std::string_view text);

// nvidia-smi failures the facts keep: no driver, Driver/library version mismatch (with the NVML version), no
// devices. The lines tool.failed quotes are knowledge tool_errors.yaml's (lines_containing).
struct NvidiaSmiFailure {
  enum class Kind { none, no_driver, version_mismatch, no_devices } kind = Kind::none;
  std::string nvml_library_version; // "550.144" from "NVML library version: 550.144"
  std::string message;              // the line that says it
};
NvidiaSmiFailure nvidia_smi_failure(std::string_view output);

// nvidia-smi -q -x (DTD v10..v13 and the old format without DOCTYPE).
struct NvidiaSmiReport {
  std::string driver_version; // <driver_version>
  std::string cuda_version;   // <cuda_version>
  std::vector<NvidiaSmiGpu> gpus;
};
std::optional<NvidiaSmiReport> nvidia_smi_xml(std::string_view xml);
// The default nvidia-smi table: banner versions ("Driver Version: 550.144.03  CUDA Version: 12.4"; also the
// 610 "CUDA UMD Version" label) and the GPU names.
std::optional<NvidiaSmiReport> nvidia_smi_table(std::string_view text);
// `nvidia-smi -q` (text): the same facts; with driver 610 also the "KMD Version" / "CUDA UMD Version" keys.
std::optional<NvidiaSmiReport> nvidia_smi_query(std::string_view text);
// `nvidia-smi -L`: each GPU with its UUID, and the MIG devices of a GPU in MIG mode with theirs (the UUIDs
// CUDA_VISIBLE_DEVICES takes). Lines that are neither are skipped; at most 1024 GPUs, 64 MIG devices each.
struct NvidiaSmiListed {
  int index = -1;   // nvidia-smi's index
  std::string name; // NVIDIA A100-SXM4-40GB
  std::string uuid; // GPU-2927d07e-3fe9-7904-9e08-b08b82d9a37d
  struct Mig {
    std::string profile; // 1g.10gb
    int device = -1;     // its index among the GPU's MIG devices
    std::string uuid;    // MIG-6e95ef19-5145-571b-b040-7e731f1c1af3 (before R470: MIG-GPU-<uuid>/<gi>/<ci>)
  };
  std::vector<Mig> migs;
};
std::vector<NvidiaSmiListed> nvidia_smi_list(std::string_view text);
// `nvidia-smi nvlink -s`: the "GPU N: name (UUID: ...)" lines of -L, each followed by "Link K: 25.781 GB/s"
// or "Link K: <inactive>". GPUs without links are kept (an empty list); at most 1024 GPUs, 64 links each.
std::vector<NvlinkGpu> nvidia_smi_nvlink_status(std::string_view text);
// `nvidia-smi nvlink -e`: the same GPU lines, each followed by "Link K: Replay Errors: N", "Link K: Recovery
// Errors: N" and "Link K: CRC Errors: N" (older drivers: "CRC Flit Errors" and "CRC Data Errors", added up).
// Each link once, with the counters it printed ("N/A" leaves one unset); the links are not marked active.
std::vector<NvlinkGpu> nvidia_smi_nvlink_errors(std::string_view text);
// Whether `s` has only the characters of an NVIDIA GPU or MIG UUID (letters, digits, '-', '/'), at most 96:
// such a word may go into a probe's CUDA_VISIBLE_DEVICES.
bool nvidia_uuid_text(std::string_view s);
// nvidia-smi's bus id "00000000:81:00.0" as a sysfs BDF "0000:81:00.0" (lower case); empty if not a bus id.
std::string bdf_from_nvidia_bus_id(std::string_view bus_id);

// rocminfo: its agents. Its failure lines are knowledge tool_errors.yaml's (tool_error_lines).
struct Rocminfo {
  bool ok = false; // printed agents
  std::string runtime_version;
  std::optional<bool> rock_module_loaded;
  std::string rock_module_version; // "ROCk module version 6.16.6 is loaded"
  std::vector<RocmAgent> agents;
};
Rocminfo rocminfo(std::string_view text);

// The lines of a tool's output (trimmed, at most 512 bytes each) that contain one of `parts`, with the index
// of the first part each contains, in output order; at most `max` lines.
struct PartLine {
  std::size_t part = 0;
  std::string line;
};
std::vector<PartLine> lines_containing(std::string_view text, std::span<const std::string_view> parts,
                                       std::size_t max);

// /sys/class/kfd/kfd/topology/nodes/N/properties ("name value" lines).
KfdNode kfd_node_properties(std::string_view text, int node_id);

// /var/lib/dpkg/status: installed packages (Status: install ok installed) -> version.
std::map<std::string, std::string> dpkg_status(std::string_view text);
// The same file: installed package -> the package names its Depends and Pre-Depends name (alternatives
// included; versions and :arch qualifiers dropped). Tells which package pulled in another.
std::map<std::string, std::vector<std::string>> dpkg_depends(std::string_view text);

// CUDA toolkit version from version.json ("cuda": {"version": ...}), version.txt ("CUDA Version 10.2.89"),
// or `nvcc --version` ("release 12.1, V12.1.105" -> "12.1.105").
std::optional<std::string> cuda_version_json(std::string_view text);
std::optional<std::string> cuda_version_txt(std::string_view text);
std::optional<std::string> nvcc_version(std::string_view text);

// ROCm .info/version ("7.0.1" or "6.2.0-115") -> "7.0.1" / "6.2.0".
std::optional<std::string> rocm_info_version(std::string_view text);

// torch/version.py: __version__, cuda, hip (None -> empty).
struct TorchVersionPy {
  std::string version;
  std::optional<std::string> cuda, hip;
};
std::optional<TorchVersionPy> torch_version_py(std::string_view text);

// pci.ids: the device name for vendor:device (and subsystem, when listed). Empty when not listed.
std::optional<std::string> pci_ids_name(std::string_view pci_ids, unsigned vendor, unsigned device,
                                        std::optional<unsigned> subsystem_vendor = {},
                                        std::optional<unsigned> subsystem_device = {});

// C header version macros: cudnn_version.h (CUDNN_MAJOR/MINOR/PATCHLEVEL), nccl.h / rccl.h (NCCL_MAJOR/...).
std::optional<std::string> cudnn_header_version(std::string_view text);
std::optional<std::string> nccl_header_version(std::string_view text);

} // namespace gpudoctor::parse
