// The measured values as gauges (docs/fleet.md, "Prometheus"), each series with its GPU's labels: ECC and
// RAS counts, retired pages and remapped rows and what is pending, Xid lines of this boot by code, the PCIe
// link against its maximum, temperature, power, clocks and what holds them down, MIG mode, BAR1, the NVLinks
// and their error counts, and, where the probes ran, the bandwidths they measured with the floors the probe
// checks judge them against. Units are in the names.
// Counts that reset (a driver reload, a reboot, the kernel's ring buffer) are gauges: rate() would read a
// drop as a counter reset.
#include "checks/probe_common.hpp"
#include "report/prometheus_series.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace gpudoctor::prom {

namespace {

// The samples of one family, written with its header only when there is at least one.
class Family {
public:
  Family(const char* name, const char* help) : m_name(name), m_help(help) {}
  void add(const std::string& labels, double value) { series(m_body, m_name, labels, value); }
  template <class T> void add(const std::string& labels, const std::optional<T>& value) {
    if (value) add(labels, static_cast<double>(*value));
  }
  void write(std::string& out) const {
    if (m_body.empty()) return;
    family(out, m_name, m_help);
    out += m_body;
  }

private:
  const char* m_name;
  const char* m_help;
  std::string m_body;
};

std::string with(const std::string& gpu, const char* name, std::string_view value) {
  return joined(gpu, fmt::format("{}=\"{}\"", name, label(value)));
}

// nvidia-smi's GPU: its PCI GPU's labels, or (a GPU the PCI scan did not see) nvidia-smi's own.
std::string labels_of(const Facts& f, const GpuLabelIndex& gpus, const NvidiaSmiGpu& g) {
  if (const GpuLabels* l = gpus.bdf(g.bdf)) return l->text();
  GpuLabels own;
  own.gpu = std::to_string(&g - f.nvidia.smi_gpus.data());
  own.uuid = g.uuid;
  own.pci_bus_id = g.bus_id;
  own.bdf = g.bdf;
  return own.text();
}

std::optional<double> flag(const std::optional<bool>& b) {
  return b ? std::optional<double>(*b ? 1 : 0) : std::nullopt;
}

void nvidia_health(std::string& out, const Facts& f, const GpuLabelIndex& gpus) {
  Family ecc("gpudoctor_gpu_ecc_errors",
             "ECC errors nvidia-smi counts: volatile since the driver loaded or the GPU was reset, aggregate "
             "over the GPU's life.");
  Family retired("gpudoctor_gpu_retired_pages", "Pages retired for ECC errors (before Ampere), by cause.");
  Family retirement_pending("gpudoctor_gpu_retirement_pending",
                            "1 while a page waits for a GPU reset to be retired.");
  Family remapped("gpudoctor_gpu_remapped_rows",
                  "Memory rows remapped (Ampere and later), by the error that did.");
  Family remap_pending("gpudoctor_gpu_remap_pending", "1 while a row remap waits for a GPU reset.");
  Family remap_failure("gpudoctor_gpu_remap_failure",
                       "1 when a row could not be remapped: the GPU needs service.");
  Family reset_required("gpudoctor_gpu_reset_required", "1 when nvidia-smi says the GPU needs a reset.");
  Family temperature("gpudoctor_gpu_temperature_celsius",
                     "GPU temperature (nvidia-smi; amdgpu's hwmon edge).");
  Family power("gpudoctor_gpu_power_watts", "GPU power draw (nvidia-smi; amdgpu's hwmon average).");
  Family power_limit("gpudoctor_gpu_power_limit_watts", "The power limit the GPU enforces.");
  Family clock(
      "gpudoctor_gpu_clock_hertz",
      "The GPU's clocks when gpudoctor read them (nvidia-smi clocks), by clock (sm, memory); low when "
      "idle.");
  Family mig("gpudoctor_gpu_mig_mode",
             "1 where MIG mode is on, 0 where it is off (nvidia-smi), by state (current, pending: after the "
             "next GPU reset).");
  Family mig_devices("gpudoctor_gpu_mig_devices",
                     "MIG devices (a GPU instance with a compute instance) on a GPU in MIG mode.");
  Family bar1("gpudoctor_gpu_bar1_bytes",
              "The size of BAR1, the window through which the CPU and peers reach the GPU's memory.");
  Family held(
      "gpudoctor_gpu_clocks_event_reason",
      "1 where a hardware or thermal reason holds the GPU's clocks down now (nvidia-smi), by reason.");
  for (const auto& g : f.nvidia.smi_gpus) {
    const std::string l = labels_of(f, gpus, g);
    const auto& h = g.health;
    ecc.add(with(with(l, "severity", "uncorrectable"), "counter", "volatile"), h.volatile_uncorrectable);
    ecc.add(with(with(l, "severity", "uncorrectable"), "counter", "aggregate"), h.aggregate_uncorrectable);
    ecc.add(with(with(l, "severity", "corrected"), "counter", "volatile"), h.volatile_correctable);
    ecc.add(with(with(l, "severity", "corrected"), "counter", "aggregate"), h.aggregate_correctable);
    retired.add(with(l, "cause", "single_bit"), h.retired_sbe);
    retired.add(with(l, "cause", "double_bit"), h.retired_dbe);
    retirement_pending.add(l, flag(h.retirement_pending));
    remapped.add(with(l, "severity", "correctable"), h.remapped_correctable);
    remapped.add(with(l, "severity", "uncorrectable"), h.remapped_uncorrectable);
    remap_pending.add(l, flag(h.remap_pending));
    remap_failure.add(l, flag(h.remap_failure));
    reset_required.add(l, flag(h.reset_required));
    temperature.add(l, g.temperature_celsius);
    power.add(l, g.power_draw_watts);
    power_limit.add(l, g.power_limit_watts);
    constexpr double mega = 1e6;
    if (g.sm_clock_mhz) clock.add(with(l, "clock", "sm"), *g.sm_clock_mhz * mega);
    if (g.memory_clock_mhz) clock.add(with(l, "clock", "memory"), *g.memory_clock_mhz * mega);
    for (auto [state, mode] : {std::pair{"current", &g.mig_current}, std::pair{"pending", &g.mig_pending}})
      if (*mode == "Enabled" || *mode == "Disabled")
        mig.add(with(l, "state", state), *mode == "Enabled" ? 1 : 0);
    if (g.mig_current == "Enabled") mig_devices.add(l, g.mig_devices);
    if (g.bar1_total_mib) bar1.add(l, static_cast<double>(*g.bar1_total_mib) * 1024 * 1024);
    for (const char* reason :
         {"HW Slowdown", "HW Thermal Slowdown", "HW Power Brake Slowdown", "SW Thermal Slowdown"}) {
      bool active =
          std::find(h.clocks_held_by.begin(), h.clocks_held_by.end(), reason) != h.clocks_held_by.end();
      held.add(with(l, "reason", reason), active ? 1 : 0);
    }
  }
  // amdgpu's sensors in the same families.
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const GpuSensors& s = f.gpus[i].sensors;
    const std::string l = gpus.in_order[i].text();
    temperature.add(l, s.temperature_celsius);
    power.add(l, s.power_draw_watts);
    power_limit.add(l, s.power_limit_watts);
  }
  for (const Family* fam :
       {&ecc, &retired, &retirement_pending, &remapped, &remap_pending, &remap_failure, &reset_required,
        &temperature, &power, &power_limit, &clock, &mig, &mig_devices, &bar1, &held})
    fam->write(out);
}

// Each GPU's NVLinks by state, and each link's error counts since the driver loaded (gpu.nvlink-errors
// judges their growth; a graph shows it).
void nvlinks(std::string& out, const Facts& f, const GpuLabelIndex& gpus) {
  Family links("gpudoctor_gpu_nvlinks",
               "The GPU's NVLinks (nvidia-smi nvlink -s), by state (active, inactive).");
  Family errors("gpudoctor_gpu_nvlink_errors",
                "NVLink errors per link since the driver loaded (nvidia-smi nvlink -e), by counter (replay, "
                "recovery, crc).");
  for (const auto& g : f.nvidia.nvlink) {
    if (g.links.empty()) continue;
    const NvidiaSmiGpu* smi = f.smi_of(g);
    const std::string l = smi ? labels_of(f, gpus, *smi) : fmt::format("nvlink_gpu=\"{}\"", g.index);
    auto active = std::ranges::count_if(g.links, &NvlinkLink::active);
    links.add(with(l, "state", "active"), static_cast<double>(active));
    links.add(with(l, "state", "inactive"),
              static_cast<double>(g.links.size()) - static_cast<double>(active));
    for (const auto& link : g.links) {
      const std::string ll = with(l, "link", std::to_string(link.link));
      errors.add(with(ll, "counter", "replay"), link.replay_errors);
      errors.add(with(ll, "counter", "recovery"), link.recovery_errors);
      errors.add(with(ll, "counter", "crc"), link.crc_errors);
    }
  }
  links.write(out);
  errors.write(out);
}

void amd_ras(std::string& out, const Facts& f, const GpuLabelIndex& gpus) {
  Family ras("gpudoctor_gpu_ras_errors",
             "Errors amdgpu's RAS counts per IP block since the driver loaded (ras/<block>_err_count).");
  for (std::size_t i = 0; i < f.gpus.size(); ++i)
    for (const auto& r : f.gpus[i].ras) {
      std::string l = with(gpus.in_order[i].text(), "block", r.block);
      ras.add(with(l, "severity", "uncorrectable"), static_cast<double>(r.ue));
      ras.add(with(l, "severity", "corrected"), static_cast<double>(r.ce));
    }
  ras.write(out);
}

// "16.0 GT/s PCIe" -> 16e9 transfers a second.
std::optional<double> transfers_per_second(const std::optional<std::string>& speed) {
  auto gts = checks::link_gts(speed);
  return gts ? std::optional<double>(*gts * 1e9) : std::nullopt;
}

void pcie_links(std::string& out, const Facts& f, const GpuLabelIndex& gpus) {
  Family width("gpudoctor_gpu_pcie_link_width",
               "PCIe link width in lanes: now, and the most the link can train to.");
  Family speed("gpudoctor_gpu_pcie_link_speed_transfers_per_second",
               "PCIe link speed per lane: now (an idle GPU lowers it), and the most the link can train to.");
  for (std::size_t i = 0; i < f.gpus.size(); ++i) {
    const Gpu& g = f.gpus[i];
    const std::string& l = gpus.in_order[i].text();
    width.add(with(l, "state", "current"), g.link_width_current);
    width.add(with(l, "state", "max"), g.link_width_max);
    speed.add(with(l, "state", "current"), transfers_per_second(g.link_speed_current));
    speed.add(with(l, "state", "max"), transfers_per_second(g.link_speed_max));
  }
  width.write(out);
  speed.write(out);
}

void xid_counts(std::string& out, const Facts& f, const GpuLabelIndex& gpus) {
  Family xids("gpudoctor_gpu_xid_events",
              "NVIDIA Xid lines in this boot's kernel log, per GPU and code (resets with the boot).");
  std::map<std::string, std::size_t> counts; // labels -> lines (two groups of one code and GPU add up)
  for (const auto& e : f.kernel_log.events) {
    if (e.kind != KernelEventKind::xid || !e.code || e.boot != 0) continue;
    std::string l;
    if (const GpuLabels* g = gpus.bdf(e.pci))
      l = g->text();
    else if (!e.pci.empty())
      l = fmt::format("bdf=\"{}\"", label(e.pci));
    counts[with(l, "code", std::to_string(*e.code))] += e.count;
  }
  for (const auto& [l, n] : counts)
    xids.add(l, static_cast<double>(n));
  xids.write(out);
}

} // namespace

void probe_figures(std::string& out, const Facts& f, const GpuLabelIndex& gpus) {
  Family memory("gpudoctor_probe_memory_bandwidth_bytes_per_second",
                "Device memory bandwidth the probe measured, best of its runs, per test.");
  Family memory_floor_f("gpudoctor_probe_memory_bandwidth_floor_bytes_per_second",
                        "The least device memory bandwidth probe.memory-bandwidth accepts for this GPU.");
  Family host("gpudoctor_probe_host_bandwidth_bytes_per_second",
              "Pinned host copies the probe measured, best of its runs, per direction (h2d, d2h).");
  Family host_floor_f("gpudoctor_probe_host_bandwidth_floor_bytes_per_second",
                      "The least pinned host copy bandwidth probe.host-bandwidth accepts for this GPU.");
  Family p2p("gpudoctor_probe_p2p_bandwidth_bytes_per_second",
             "Peer-to-peer copies the probe measured from this GPU to its peer, best of its runs.");
  Family p2p_floor_f("gpudoctor_probe_p2p_bandwidth_floor_bytes_per_second",
                     "The least peer-to-peer bandwidth probe.p2p accepts from this GPU to its peer.");
  constexpr double giga = 1e9;
  for (const auto& b : f.probes.backends) {
    auto gpu_of = [&](int device) -> std::pair<const Gpu*, std::string> {
      const ProbeDevice* d = b.device(device);
      const Gpu* g = d ? checks::pci_gpu_of(f, d->pci_bus_id) : nullptr;
      const GpuLabels* l = g ? gpus.bdf(g->bdf) : nullptr;
      return {g, l ? l->text() : fmt::format("backend=\"{}\",device=\"{}\"", label(b.backend), device)};
    };
    for (const auto& m : b.memory)
      memory.add(with(gpu_of(m.device).second, "test", m.test),
                 m.best_gbps ? *m.best_gbps * giga : std::optional<double>());
    for (const auto& d : b.devices) {
      auto [g, l] = gpu_of(d.index);
      if (auto floor = checks::memory_floor(g, d)) memory_floor_f.add(l, floor->gbps * giga);
      if (auto floor = checks::host_floor(g)) host_floor_f.add(l, floor->gbps * giga);
    }
    for (const auto& h : b.host)
      host.add(with(gpu_of(h.device).second, "direction", h.test),
               h.best_gbps ? *h.best_gbps * giga : std::optional<double>());
    for (const auto& x : b.p2p) {
      auto [peer, peer_labels] = gpu_of(x.peer);
      std::string l = with(gpu_of(x.device).second, "peer_bdf", peer ? peer->bdf : std::to_string(x.peer));
      p2p.add(l, x.best_gbps ? *x.best_gbps * giga : std::optional<double>());
      if (auto floor = checks::p2p_floor(f, b, x.device, x.peer)) p2p_floor_f.add(l, *floor * giga);
    }
  }
  for (const Family* fam : {&memory, &memory_floor_f, &host, &host_floor_f, &p2p, &p2p_floor_f})
    fam->write(out);
}

void measurements(std::string& out, const Facts& f, const GpuLabelIndex& gpus) {
  nvidia_health(out, f, gpus);
  nvlinks(out, f, gpus);
  amd_ras(out, f, gpus);
  pcie_links(out, f, gpus);
  xid_counts(out, f, gpus);
}

} // namespace gpudoctor::prom
