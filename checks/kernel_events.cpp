// kernel.gpu-lost, kernel.gpu-reset, driver.init-failed: what the kernel log says happened to a GPU, one
// result per GPU (the events of both boots grouped, previous-boot ones as history).
#include "checks/common.hpp"
#include "checks/kernel_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

using Kind = KernelEventKind;

bool is_kind(const KernelEvent& e, std::initializer_list<Kind> kinds) {
  return std::find(kinds.begin(), kinds.end(), e.kind) != kinds.end();
}

// The events `select` keeps, by the subject of the GPU they name (in the order of their first line).
std::vector<std::pair<std::string, std::vector<const KernelEvent*>>>
by_subject(const Facts& f, const std::function<bool(const KernelEvent&)>& select) {
  std::vector<std::pair<std::string, std::vector<const KernelEvent*>>> out;
  for (const auto& e : f.kernel_log.events) {
    if (!select(e)) continue;
    Vendor vendor = is_kind(e, {Kind::ring_timeout, Kind::reset_begin, Kind::reset_succeeded,
                                Kind::reset_failed, Kind::mes_failure, Kind::init_fatal})
                        ? Vendor::amd
                        : Vendor::nvidia;
    std::string subject = event_subject(gpu_of_event(f, e, vendor), e);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == subject; });
    if (it == out.end()) it = out.insert(out.end(), {subject, {}});
    it->second.push_back(&e);
  }
  return out;
}

Status worst(Status a, Status b) {
  return status_rank(a) < status_rank(b) ? a : b;
}

std::vector<std::string> evidence_of(const std::vector<const KernelEvent*>& events) {
  std::vector<std::string> out;
  for (const auto* e : events)
    for (auto& line : event_evidence(*e))
      out.push_back(std::move(line));
  return out;
}

bool fatal_aer(const KernelEvent& e) {
  return e.kind == Kind::pcie_aer && e.detail == "Uncorrected (Fatal)";
}

std::string what_lost(const KernelEvent& e) {
  if (e.kind == Kind::xid) return fmt::format("Xid 79 (GPU has fallen off the bus), {}", event_when(e));
  if (e.kind == Kind::fallen_off_bus) return fmt::format("\"fallen off the bus\", {}", event_when(e));
  return fmt::format("a fatal PCIe error (AER) {}, {}",
                     e.reporter.empty() ? "on the GPU" : fmt::format("reported by its port {}", e.reporter),
                     event_when(e));
}

bool lost(const Facts& f, const KernelEvent& e) {
  if (e.kind == Kind::fallen_off_bus || (e.kind == Kind::xid && e.code == 79)) return true;
  // A fatal AER counts when it names a GPU or a port above one.
  return fatal_aer(e) && gpu_of_event(f, e, Vendor::nvidia) && !e.pci.empty();
}

// Whether `subject` was lost from the bus in a boot where one of `events` happened.
bool lost_in_boot(const Facts& f, const std::string& subject, const std::vector<const KernelEvent*>& events) {
  return std::any_of(f.kernel_log.events.begin(), f.kernel_log.events.end(), [&](const KernelEvent& e) {
    return lost(f, e) && event_subject(gpu_of_event(f, e, Vendor::nvidia), e) == subject &&
           std::any_of(events.begin(), events.end(), [&](const auto* x) { return x->boot == e.boot; });
  });
}

// No event of the kind: a skip where the log was not read or there is no GPU, else a pass naming the log.
void no_event(const Facts& f, Results& out, const char* shows_no) {
  if (kernel_log_unread(f)) return out.skip("", kernel_log_skip_message(f));
  if (f.gpus.empty()) return out.skip("", "no GPU");
  out.pass("", fmt::format("{} shows no {}", kernel_log_name(f), shows_no), {f.kernel_log.source});
}

} // namespace

void kernel_gpu_lost(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  auto groups = by_subject(f, [&](const KernelEvent& e) { return lost(f, e); });
  for (const auto& [subject, events] : groups) {
    Status status = Status::info;
    std::vector<std::string> what;
    for (const auto* e : events) {
      status = worst(status, boot_status(f, *e, Status::error));
      what.push_back(what_lost(*e));
    }
    std::string advice =
        status == Status::error
            ? "The GPU stopped answering on the PCIe bus and no program can use it until the machine is "
              "rebooted (a GPU reset cannot bring it back). Reboot; if it happens again, check the GPU's "
              "power cables, cooling and seating, move it to another slot, and have it serviced if it "
              "follows "
              "the card."
            : "It happened before the last reboot and the GPU is back on the bus; if it happens again, check "
              "the GPU's power cables, cooling and seating, and have it serviced if it follows the card.";
    out.add(status, subject,
            fmt::format("The kernel log shows the GPU lost: {}. {}", text::join(what, "; "), advice),
            evidence_of(events));
  }
  if (groups.empty()) no_event(f, out, "GPU lost from the bus");
}

void kernel_gpu_reset(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  auto groups = by_subject(f, [](const KernelEvent& e) {
    return is_kind(e, {Kind::ring_timeout, Kind::reset_begin, Kind::reset_succeeded, Kind::reset_failed,
                       Kind::mes_failure, Kind::gsp_error, Kind::reset_required});
  });
  for (const auto& [subject, events] : groups) {
    std::map<Kind, std::size_t> n;
    Status status = Status::warn;
    std::vector<std::string> what;
    for (const auto* e : events) {
      n[e->kind] += e->count;
      Status now = Status::warn;
      if (e->kind == Kind::reset_failed || e->kind == Kind::gsp_error || e->kind == Kind::reset_required ||
          e->count > 1)
        now = Status::error;
      status = worst(status, boot_status(f, *e, now));
      std::string name = e->kind == Kind::ring_timeout      ? fmt::format("ring {} timeout", e->detail)
                         : e->kind == Kind::reset_begin     ? "GPU reset begin"
                         : e->kind == Kind::reset_succeeded ? "GPU reset succeeded"
                         : e->kind == Kind::reset_failed    ? "GPU reset failed"
                         : e->kind == Kind::mes_failure     ? "MES (the firmware scheduler) failure"
                         : e->kind == Kind::gsp_error       ? "GSP (the GPU's firmware processor) error"
                                                            : "GPU reset required";
      what.push_back(fmt::format("{} {}", name, event_when(*e)));
    }
    if (n[Kind::reset_begin] > 1) status = worst(status, Status::error);
    std::string advice;
    if (n[Kind::gsp_error] || n[Kind::reset_required])
      advice =
          "The NVIDIA GPU's firmware stopped answering: reset the GPU (nvidia-smi -r) or reboot; repeated, "
          "update the driver and report it to NVIDIA with an nvidia-bug-report.sh log.";
    else if (status == Status::error)
      advice =
          "The GPU hangs again and again (or could not be reset): programs on it are killed each time. Look "
          "for the workload that triggers it, update the kernel, amdgpu firmware and ROCm, check cooling and "
          "power; a GPU that keeps hanging under any load needs service.";
    else
      advice =
          "One hang the driver recovered from by resetting the GPU: programs on it were killed. Watch for "
          "repeats.";
    out.add(status, subject,
            fmt::format("The kernel log shows GPU hangs: {}. {}", text::join(what, "; "), advice),
            evidence_of(events));
  }
  if (groups.empty()) no_event(f, out, "GPU hang or reset");
}

void driver_init_failed(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  auto groups = by_subject(f, [](const KernelEvent& e) {
    return is_kind(e, {Kind::init_failed, Kind::init_fatal, Kind::probe_failed});
  });
  for (const auto& [subject, events] : groups) {
    Status status = Status::info;
    std::vector<std::string> what;
    bool amd = false;
    for (const auto* e : events) {
      status = worst(status, boot_status(f, *e, Status::error));
      amd = amd || e->kind == Kind::init_fatal || e->first_line.starts_with("amdgpu");
      std::string name = e->kind == Kind::init_failed  ? "NVRM: RmInitAdapter failed"
                         : e->kind == Kind::init_fatal ? "amdgpu: Fatal error during GPU init"
                                                       : "the driver's probe failed";
      what.push_back(fmt::format("{} {}", name, event_when(*e)));
    }
    std::string advice =
        amd ? "amdgpu gave up on the GPU, so it has no driver: the lines before it in dmesg say why (most "
              "often firmware it could not load, see driver.firmware-missing, or a kernel too old for the "
              "GPU)."
            : "The NVIDIA driver could not bring the GPU up, so no program can use it: the lines before it "
              "in dmesg say why (the open kernel modules required, GSP firmware missing, a driver too old "
              "for "
              "the GPU, PCIe BAR space; see driver.module-flavour and driver.firmware-missing).";
    if (!amd && lost_in_boot(f, subject, events))
      advice = "The GPU fell off the bus in the same boot (see kernel.gpu-lost): the driver failed to bring "
               "back a GPU that no longer answered, the bus is the cause, not the driver. Reboot, and follow "
               "kernel.gpu-lost if it happens again.";
    if (status != Status::error)
      advice = "It happened before the last reboot; this boot's log shows no failure.";
    out.add(
        status, subject,
        fmt::format("The GPU driver failed to initialise the GPU: {}. {}", text::join(what, "; "), advice),
        evidence_of(events));
  }
  if (groups.empty()) no_event(f, out, "failed GPU initialisation");
}

} // namespace gpudoctor::checks
