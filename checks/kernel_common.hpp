// What the kernel-log checks (kernel.*, driver.init-failed, driver.firmware-missing) share: why the log could
// not be read and how to get it, the GPU an event names, and the words for when and how often it happened.
#pragma once

#include "engine/check.hpp"

#include <string>
#include <vector>

namespace gpudoctor::checks {

// Neither this boot's nor the previous boot's log was read: the skip message, with how to get the log.
bool kernel_log_unread(const Facts& f);
std::string kernel_log_skip_message(const Facts& f);
// "the kernel log (dmesg, 1204 messages)" / "... (journalctl, ...; and the previous boot's)".
std::string kernel_log_name(const Facts& f);

// The GPU an event names: by its PCI address, by a port above the GPU (AER), or, when the line names no
// device, the only GPU of `vendor` (an amdgpu ring timeout on a one-GPU machine). Null when it cannot be
// told.
const Gpu* gpu_of_event(const Facts& f, const KernelEvent& e, Vendor vendor);
// The result's subject: the GPU's ("gpu0 (0000:01:00.0)"), else "PCI 0000:01:00.0", else "".
std::string event_subject(const Gpu* gpu, const KernelEvent& e);

// "3 times this boot, first at 1843.308145 s after boot, last at 1900.1 s after boot" / "once in the previous
// boot, at May 11 13:59:53".
std::string event_when(const KernelEvent& e);
// The first (and last) line, with the command that gave it.
std::vector<std::string> event_evidence(const KernelEvent& e);

// Events of a previous boot are history: the reboot since was the remedy, unless the GPU has not come back.
// `now` is the status the event would have in this boot; the result for the event's boot.
Status boot_status(const Facts& f, const KernelEvent& e, Status now);

} // namespace gpudoctor::checks
