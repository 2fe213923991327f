// Knowledge about environment variables the env.* checks judge: NCCL/RCCL variables and their value domains
// (checks/knowledge/nccl.yaml), PyTorch allocator options and ROCm wheel targets (pytorch_env.yaml), and
// device-selection variables (env.yaml). Part of Knowledge (knowledge.hpp) as `Knowledge::env`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

// An NCCL/RCCL variable and how NCCL reads its value.
struct NcclVarRow {
  std::string name;
  // int (strtoll base 0), bool (an int tested for 0/1), enum, level (strcmp or a legacy number), list
  // (comma list, ^ excludes; with `functions` also "<function>:<list>;..."), ifnames, hcas, text.
  std::string kind;
  std::vector<std::string> values;    // enum, level, list; int: the only numbers that make sense
  std::vector<std::string> functions; // list: collective names usable as "<function>:" prefixes
  bool case_sensitive = false;
  std::optional<long long> min, max; // int
  std::string since;                 // first NCCL version, when known
  std::string deprecated;            // NCCL version ("yes" when unknown); still read
  std::string removed;               // NCCL version; no effect any more
  std::string replaced_by;
  bool rccl_only = false;
  bool rccl_current = false; // NCCL deprecated it, RCCL still reads and documents it: not deprecated on AMD
  bool documented = true;    // false: read by the code, not in NCCL's documentation
  std::string note;
  std::string source;
  bool uncertain = false;
};

// A family of names the code reads ("NCCL_GIN_").
struct NcclPrefixRow {
  std::string prefix;
  bool rccl_only = false;
  bool documented = true;
  std::string source;
  bool uncertain = false;
};

// An NCCL_* name that belongs to another program (NCCL_VERSION of NVIDIA's CUDA images).
struct NcclForeignRow {
  std::string name;
  std::string reader;
  std::string replaced_by;
  std::string source;
  bool uncertain = false;
};

// A setting that costs bandwidth or correctness (knowledge.md §6.2).
struct NcclRiskyRow {
  std::string name;
  std::vector<std::string> equals; // risky values (case-insensitive; numbers compare as numbers)
  std::optional<long long> below, above;
  bool any = false;        // any value
  std::string requirement; // YAML `requires`: "", "ib_device" or "multi_gpu"
  std::string vendor;      // "", "nvidia", "amd": only on machines with GPUs of that vendor
  std::string why, better;
  std::string source;
  bool uncertain = false;
};

// An option of PYTORCH_ALLOC_CONF / PYTORCH_CUDA_ALLOC_CONF / PYTORCH_HIP_ALLOC_CONF.
struct AllocOptionRow {
  std::string option;
  // size_mb (integer MB, >= min), fraction (0 < x < 1), divisions (a power of two, or [size:div,...,>:div]),
  // enum (`values`), bool (True / False), power_of_two (<= max), positive_int.
  std::string kind;
  std::vector<std::string> values;
  std::optional<long long> min, max;
  bool rocm_only = false; // accepted by ROCm builds only (hipMallocAsync, *_hip* spellings)
  std::string note;
  std::string source;
  bool uncertain = false;
};

// A device-selection variable and the runtime layer that reads it (knowledge.md §5.2).
struct DeviceSelectionRow {
  std::string name;
  std::string vendor; // "nvidia" or "amd": whose runtimes it is meant for
  std::string layer;  // "CUDA runtime", "ROCr", "HIP", "ROCclr (HIP, OpenCL)"
  std::string note;
  std::string source;
  bool uncertain = false;
};

// A variable that only one vendor's stack reads (env.visible-devices-foreign): a runtime setting (read when a
// program runs) or a build setting (an arch list, read when code is compiled). `prefix`: the name and every
// name it begins (HSA_OVERRIDE_GFX_VERSION_<node>).
struct VendorVariableRow {
  std::string name;
  std::string vendor; // "nvidia" or "amd"
  std::string kind;   // "runtime" or "build"
  std::string reader; // what reads it: "ROCr", "ROCclr (HIP, OpenCL)", "PyTorch's extension builds"
  bool prefix = false;
  std::string source;
};

// A tier of NCCL's own choice of socket interface when NCCL_SOCKET_IFNAME is unset (nccl.yaml): the first
// tier that matches an interface with an address wins.
struct NcclSocketTierRow {
  std::string match; // NCCL_SOCKET_IFNAME syntax: "ib", "^docker,lo,virbr"
  std::string since; // the NCCL version that added the tier; "" for all
  std::string source;
};

// A sysfs marker of a virtual network interface (nccl.yaml): "bridge", "tun", "peer-link", "no-device" or
// "type <n>" (ARPHRD number).
struct NetInterfaceKindRow {
  std::string marker;
  std::string kind; // words for the message: "a Linux bridge (docker0, br-<id>, virbr0, cni0)"
  std::string source;
};

struct EnvKnowledge {
  std::vector<NcclVarRow> nccl_vars;
  std::vector<NcclPrefixRow> nccl_prefixes;
  std::vector<NcclForeignRow> nccl_foreign;
  std::vector<NcclRiskyRow> nccl_risky;
  std::vector<AllocOptionRow> alloc_options;
  std::vector<DeviceSelectionRow> device_selection;
  std::vector<VendorVariableRow> vendor_variables;
  std::vector<NcclSocketTierRow> nccl_socket_tiers;     // in NCCL's order
  std::vector<NetInterfaceKindRow> net_interface_kinds; // the first marker that applies names the kind

  const NcclVarRow* nccl_var(std::string_view name) const;
  const NcclPrefixRow* nccl_prefix(std::string_view name) const; // the family a name belongs to
  const NcclForeignRow* nccl_foreign_name(std::string_view name) const;
  // The known NCCL/RCCL names (not removed ones) nearest to `name`, at most `max_distance` edits away,
  // nearest first.
  std::vector<std::string> nccl_closest(std::string_view name, std::size_t max_distance) const;
  const AllocOptionRow* alloc_option(std::string_view option) const;
  std::vector<std::string> alloc_closest(std::string_view option, std::size_t max_distance) const;
  const DeviceSelectionRow* device_selection_var(std::string_view name) const;
  // The row of a variable only one vendor reads: its own, or the prefix row it begins with.
  const VendorVariableRow* vendor_variable(std::string_view name) const;
};

} // namespace gpudoctor
