#include "checks/kernel_common.hpp"

#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

bool kernel_log_unread(const Facts& f) {
  return !f.kernel_log.read && !f.kernel_log.previous_read;
}

std::string kernel_log_skip_message(const Facts& f) {
  std::string why = f.kernel_log.why_not.empty() ? "it was not recorded" : f.kernel_log.why_not;
  return fmt::format(
      "the kernel log could not be read ({}). Run gpudoctor as root (sudo gpudoctor check), or "
      "add the user to the adm or systemd-journal group (sudo usermod -aG adm {}) so that "
      "journalctl -k can read it",
      why, f.permissions.identity.user.empty() ? "$USER" : f.permissions.identity.user);
}

std::string kernel_log_name(const Facts& f) {
  const auto& log = f.kernel_log;
  std::string reader = log.reader.empty() ? "journalctl" : log.reader;
  std::string what =
      log.read ? fmt::format("{}, {} messages", reader, log.records) : "the previous boot only";
  if (log.read && log.previous_read) what += ", and the previous boot's";
  if (log.truncated) what += ", the newest 4 MiB";
  return fmt::format("the kernel log ({})", what);
}

const Gpu* gpu_of_event(const Facts& f, const KernelEvent& e, Vendor vendor) {
  for (const auto& gpu : f.gpus) {
    if (!e.pci.empty() && gpu.bdf == e.pci) return &gpu;
    const auto& ports = gpu.upstream_ports;
    if (!e.pci.empty() && std::find(ports.begin(), ports.end(), e.pci) != ports.end()) return &gpu;
  }
  if (!e.pci.empty()) return nullptr;
  const Gpu* only = nullptr;
  for (const auto& gpu : f.gpus)
    if (gpu.vendor == vendor) {
      if (only) return nullptr;
      only = &gpu;
    }
  return only;
}

std::string event_subject(const Gpu* gpu, const KernelEvent& e) {
  if (gpu) return gpu->subject();
  return e.pci.empty() ? "" : fmt::format("PCI {}", e.pci);
}

namespace {

std::string at(const std::string& time, bool boot_relative) {
  if (time.empty()) return "(no time given)";
  return boot_relative ? fmt::format("{} s after boot", time) : time;
}

} // namespace

std::string event_when(const KernelEvent& e) {
  std::string boot = e.boot == 0 ? "this boot" : "in the previous boot";
  if (e.first_time.empty()) // a line pasted without its time
    return e.count == 1 ? fmt::format("once {}", boot) : fmt::format("{} times {}", e.count, boot);
  if (e.count == 1) return fmt::format("once {}, at {}", boot, at(e.first_time, e.boot_relative));
  return fmt::format("{} times {}, first at {}, last at {}", e.count, boot, at(e.first_time, e.boot_relative),
                     at(e.last_time, e.boot_relative));
}

std::vector<std::string> event_evidence(const KernelEvent& e) {
  std::string key = e.boot == 0 ? "cmd dmesg" : "cmd journal-kernel-previous";
  auto line = [&](const std::string& time, const std::string& text) {
    return time.empty() ? fmt::format("{}: {}", key, text) : fmt::format("{}: [{}] {}", key, time, text);
  };
  std::vector<std::string> out = {line(e.first_time, e.first_line)};
  if (e.count > 1) out.push_back(line(e.last_time, e.last_line));
  return out;
}

Status boot_status(const Facts& f, const KernelEvent& e, Status now) {
  if (e.boot == 0 || now != Status::error) return now;
  bool back = e.pci.empty() || std::any_of(f.gpus.begin(), f.gpus.end(), [&](const Gpu& g) {
                return g.bdf == e.pci || std::find(g.upstream_ports.begin(), g.upstream_ports.end(), e.pci) !=
                                             g.upstream_ports.end();
              });
  return back ? Status::warn : Status::error;
}

} // namespace gpudoctor::checks
