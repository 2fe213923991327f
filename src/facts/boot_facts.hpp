// What loads the driver at boot: the loaded modules, DKMS, Secure Boot.
#pragma once

#include "facts/fact.hpp"

#include <map>
#include <string>
#include <vector>

namespace gpudoctor {

struct KernelModules {
  std::map<std::string, std::string> loaded; // name -> version ("" when unknown); from /proc/modules
  std::string source;
  bool readable = false;
  bool has(const std::string& name) const { return loaded.count(name) > 0; }
};

struct DkmsModule {
  std::string module, version, kernel, arch;
  std::string state;  // "added", "built", "installed", ...
  std::string detail; // "(Original modules exist)"
};

struct BootFacts {
  bool dkms_ran = false; // `dkms status` was found and answered
  std::vector<DkmsModule> dkms;
  std::vector<std::string> dkms_messages; // "Error! ..." lines
  Fact<std::string> secure_boot; // "enabled", "disabled", "unsupported", "no-efi" (mokutil --sb-state)
  std::string secure_boot_line;  // the line that said it
  bool shim_validation_disabled = false;
};

} // namespace gpudoctor
