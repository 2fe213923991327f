// kernel.xid: NVIDIA Xid (and NVSwitch SXid) events of the kernel log, one result per code and GPU (its key:
// the code), each explained from NVIDIA's Xid catalogue (knowledge xid.yaml), whose resolution decides the
// status.
#include "checks/common.hpp"
#include "checks/history_common.hpp"
#include "checks/kernel_common.hpp"
#include "checks/registry.hpp"

#include <set>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

Status status_of(const std::string& s) {
  return s == "error" ? Status::error : s == "warn" ? Status::warn : Status::info;
}

// nvidia-smi's view of the GPU's memory repairs: true when it shows nothing left pending.
std::optional<bool> repair_done(const Facts& f, const Gpu* gpu) {
  if (!gpu) return std::nullopt;
  const NvidiaSmiGpu* g = f.smi_of(*gpu);
  if (!g) return std::nullopt;
  const auto& h = g->health;
  if (!h.remap_pending && !h.retirement_pending) return std::nullopt;
  return !h.remap_pending.value_or(false) && !h.retirement_pending.value_or(false);
}

void report_xid(const CheckContext& ctx, const KernelEvent& e, Results& out) {
  const Facts& f = ctx.facts;
  const Gpu* gpu = gpu_of_event(f, e, Vendor::nvidia);
  std::vector<std::string> evidence = event_evidence(e);
  const XidRow* row = ctx.kb.health.xid(*e.code);
  std::string process = e.process.empty() ? "" : fmt::format(" ({})", e.process);
  if (!row) {
    out.add(boot_status(f, e, Status::warn), event_subject(gpu, e),
            fmt::format(
                "Xid {}{}, {}: a code NVIDIA's Xid catalogue (as gpudoctor read it) does not list. "
                "Look it up in the catalogue of this driver's release; if it repeats, report it to NVIDIA "
                "with an nvidia-bug-report.sh log.",
                *e.code, process, event_when(e)),
            evidence, no_fix);
    out.key(std::to_string(*e.code));
    out.act(
        Action::step("Look the code up in the Xid catalogue of this driver's release; if it repeats, send "
                     "NVIDIA an nvidia-bug-report.sh log."));
    return;
  }
  evidence.push_back(fmt::format("knowledge xid_codes {}: {} ({}), resolution {}; {}", row->code,
                                 row->mnemonic, row->category, row->resolution, row->source));
  Status status = status_of(row->status);
  std::string advice = ctx.kb.health.xid_advice(*row);
  // With a previous reading of this boot, a warning is for new lines: the one before warned of the old.
  auto grown = event_growth(f, e);
  if (grown) {
    evidence.push_back(previous_evidence(
        f, fmt::format("{} line{} of this Xid then", grown->before, grown->before == 1 ? "" : "s")));
    if (grown->fresh == 0 && status == Status::warn) status = Status::info;
  }
  if (row->after_repair) {
    if (auto done = repair_done(f, gpu); done && *done) {
      status = Status::info;
      advice = "nvidia-smi shows no remap or retirement pending any more: the repair is active.";
    }
  }
  // The reboot fix only where NVIDIA's catalogue resolves the code with one.
  out.add(boot_status(f, e, status), event_subject(gpu, e),
          fmt::format("Xid {} ({}){}, {}.{} {}", row->code, row->description, process, event_when(e),
                      event_growth_words(f, grown), advice),
          evidence, row->resolution == "RESTART_BM" ? FixChoice() : no_fix);
  out.key(std::to_string(row->code));
  // A reset of this GPU where the catalogue's resolution starts with one, else its advice as the step.
  static const std::set<std::string> resets = {"RESET_GPU", "WORKFLOW_XID_48", "WORKFLOW_NVLINK_ERR",
                                               "WORKFLOW_NVLINK5_ERR", "CHECK_UVM"};
  if (row->resolution == "RESTART_BM") return;
  if (gpu && resets.count(row->resolution))
    out.act(Action::command({{"sudo", "nvidia-smi", "-r", "-i", gpu->bdf}}));
  else
    out.act(Action::step(advice));
}

void report_sxid(const Facts& f, const KernelEvent& e, Results& out) {
  bool fatal = e.detail.starts_with("Fatal");
  std::string subject = e.pci.empty() ? "nvswitch" : fmt::format("nvswitch ({})", e.pci);
  std::string advice =
      fatal ? "A fatal NVSwitch error stops the GPUs' traffic over this switch: drain the GPUs, "
              "restart the Fabric Manager or reboot, and check the Fabric Manager log; repeated, "
              "have the baseboard serviced."
            : "A non-fatal NVSwitch error: the fabric goes on; watch for repeats in the Fabric "
              "Manager log.";
  auto grown = event_growth(f, e);
  std::vector<std::string> evidence = event_evidence(e);
  if (grown) evidence.push_back(previous_evidence(f, fmt::format("{} such lines then", grown->before)));
  out.add(boot_status(f, e, fatal ? Status::error : Status::info), subject,
          fmt::format("SXid {} ({}), {}.{} {}", *e.code, e.detail, event_when(e),
                      event_growth_words(f, grown), advice),
          evidence, no_fix);
  out.key(std::to_string(*e.code));
  out.act(Action::step(advice));
}

} // namespace

void kernel_xid(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  bool any_event = false;
  for (const auto& e : f.kernel_log.events) {
    if (!e.code) continue;
    if (e.kind == KernelEventKind::xid) report_xid(ctx, e, out);
    if (e.kind == KernelEventKind::sxid) report_sxid(f, e, out);
    any_event = any_event || e.kind == KernelEventKind::xid || e.kind == KernelEventKind::sxid;
  }
  if (any_event) return;
  if (kernel_log_unread(f)) return out.skip("", kernel_log_skip_message(f));
  if (f.count(Vendor::nvidia) == 0) return out.skip("", "no NVIDIA GPU");
  out.pass("", fmt::format("{} holds no Xid", kernel_log_name(f)), {f.kernel_log.source});
}

} // namespace gpudoctor::checks
