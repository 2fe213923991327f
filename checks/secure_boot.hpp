// What driver.secure-boot decides and driver.not-bound defers to: one cause, one finding.
#pragma once

#include "engine/check.hpp"

namespace gpudoctor::checks {

// `vendor`'s GPU module is installed and not loaded, and refused for its signature: the kernel log shows a
// refusal this boot, or Secure Boot enforces and the module is built out of tree (outside a container).
// driver.secure-boot reports it, with the remedy; installing the driver again would not help.
bool module_refused(const CheckContext& ctx, Vendor vendor);

} // namespace gpudoctor::checks
