// The environment and NCCL's configuration files.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// A NAME=value line of an NCCL configuration file.
struct ConfSetting {
  std::string name, value; // as NCCL reads them: the name is everything before the first '=', untrimmed
  int line = 0;
};

// An NCCL configuration file, in the order NCCL reads them: $NCCL_CONF_FILE (2.23+) or ~/.nccl.conf, then
// /etc/nccl.conf. NCCL never overwrites a variable that is set, so the environment wins, then earlier files.
struct NcclConfFile {
  std::string path;
  std::string role; // "NCCL_CONF_FILE", "user", "system"
  std::vector<ConfSetting> settings;
};

// NCCL_IB_HCA as NCCL reads it (parse::nccl_ib_hca).
struct HcaEntry {
  std::string name;        // a device name or prefix ("mlx5_0", "mlx5")
  std::optional<int> port; // ":1"
};
struct HcaList {
  bool exclude = false, exact = false; // a leading '^', then '='
  std::vector<HcaEntry> entries;
};

// An NCCL_*/RCCL_* setting NCCL sees: a variable of the environment, else the first file that sets it.
struct NcclSetting {
  std::string name; // as set; from a file it may carry blanks ("NCCL_DEBUG " from "NCCL_DEBUG = INFO")
  std::string value;
  std::string file; // the configuration file; empty: the environment
  int line = 0;
};

// HSA_OVERRIDE_GFX_VERSION or HSA_OVERRIDE_GFX_VERSION_<KFD node>, as libhsakmt reads it.
struct HsaOverride {
  std::string name, value;
  // major * 10000 + minor * 100 + stepping, the form of gfx_target_version; empty: malformed.
  std::optional<long long> gfx_target_version;
};

struct EnvFacts {
  std::map<std::string, std::string> gpu_vars; // GPU-related variables that are set
  std::vector<std::string> path_entries;
  std::vector<std::string> ld_library_path_entries;
  std::map<std::string, std::string> all; // the whole environment (redacted in bundles)
  std::vector<NcclConfFile> nccl_conf;    // the NCCL configuration files that exist
  // Derived from the above once collection is done (collect/link_facts), so that no check reads them again:
  std::vector<NcclSetting> nccl;          // in effect, one per name, in name order
  std::optional<HcaList> nccl_ib_hca;     // NCCL_IB_HCA of `nccl`, parsed
  std::vector<HsaOverride> hsa_overrides; // in name order
};

} // namespace gpudoctor
