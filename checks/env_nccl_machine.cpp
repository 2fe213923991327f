// env.nccl-p2p-disabled, env.nccl-ifname-missing, env.nccl-risky: NCCL settings judged against this machine
// (its GPUs, network interfaces and RDMA devices) and knowledge.md §6.2.
#include "checks/common.hpp"
#include "checks/nccl_common.hpp"
#include "checks/registry.hpp"
#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::checks {

namespace {

std::string gpus_text(const CheckContext& ctx) {
  std::size_t n = gpu_count(ctx);
  return fmt::format("{} GPU{}", n, n == 1 ? "" : "s");
}

// The peer links NCCL would use between this machine's GPUs.
std::string peer_links(const Facts& f) {
  bool nvidia = f.count(Vendor::nvidia) > 0, amd = f.count(Vendor::amd) > 0;
  if (nvidia && !amd) return "NVLink/PCIe peer-to-peer";
  if (amd && !nvidia) return "XGMI/PCIe peer-to-peer";
  return "peer-to-peer (NVLink, XGMI, PCIe)";
}

bool risky_value(const NcclRiskyRow& row, const std::string& value) {
  std::string v = text::trim(value);
  if (row.any) return !v.empty();
  NcclNumber n = nccl_number(v);
  if (row.below) return n.complete && n.value < *row.below;
  if (row.above) return n.complete && n.value > *row.above;
  for (const auto& e : row.equals) {
    NcclNumber m = nccl_number(e);
    if (m.complete && n.complete ? m.value == n.value : text::lower(e) == text::lower(v)) return true;
  }
  return false;
}

} // namespace

void env_nccl_p2p_disabled(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  auto disable = nccl_setting(f, "NCCL_P2P_DISABLE");
  auto level = nccl_setting(f, "NCCL_P2P_LEVEL");
  // paths.cc ncclGetLevel: NCCL_P2P_DISABLE counts when strtol reads exactly 1; then NCCL_P2P_LEVEL is not
  // read. LOC, or the legacy number 0, allows no peer path.
  std::optional<NcclSetting> culprit;
  if (disable && nccl_number(disable->value).digits && nccl_number(disable->value).value == 1)
    culprit = disable;
  else if (level && (level->value == "LOC" ||
                     (nccl_number(level->value).complete && nccl_number(level->value).value == 0)))
    culprit = level;
  if (!culprit) {
    std::string what = disable || level ? "NCCL_P2P_DISABLE / NCCL_P2P_LEVEL leave peer-to-peer on"
                                        : "neither NCCL_P2P_DISABLE nor NCCL_P2P_LEVEL is set";
    return out.pass("", what);
  }
  std::vector<std::string> evidence = {nccl_evidence(ctx.facts, *culprit)};
  if (gpu_count(ctx) < 2)
    return out.pass(culprit->name,
                    fmt::format("{}={} turns off peer-to-peer, but this machine has {}, so no GPU talks to "
                                "another here",
                                culprit->name, printable(culprit->value), gpus_text(ctx)),
                    evidence);
  for (const auto& gpu : f.gpus)
    if (gpu.vendor != Vendor::other) evidence.push_back(gpu_evidence(gpu));
  out.add(Status::warn, culprit->name,
          fmt::format(
              "{}={} ({}) turns off {} between this machine's {}: NCCL/RCCL moves their traffic through "
              "host memory or the network instead, at a fraction of the bandwidth. It is usually set to work "
              "around hangs whose cause is PCIe ACS or the IOMMU; fix that instead (disable ACS on the PCIe "
              "bridges, iommu=pt) and unset it.",
              culprit->name, printable(culprit->value), nccl_where(ctx.facts, *culprit), peer_links(f),
              gpus_text(ctx)),
          evidence);
}

void env_nccl_ifname_missing(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  auto s = nccl_setting(f, "NCCL_SOCKET_IFNAME");
  if (!s) return out.pass("", "NCCL_SOCKET_IFNAME is not set: NCCL picks an interface itself");
  if (!f.network.interfaces)
    return out.skip(s->name, "the network interfaces (/sys/class/net) were not read");
  const auto& interfaces = *f.network.interfaces;
  IfList list = parse_iflist(s->value);
  std::vector<std::string> selected;
  for (const auto& i : interfaces)
    if (matches(list, i)) selected.push_back(i);
  std::vector<std::string> evidence = {
      nccl_evidence(ctx.facts, *s),
      fmt::format("{}: {}", f.network.interfaces_source, text::join(interfaces, " "))};
  if (list.names.empty())
    return out.skip(s->name, fmt::format("{} names no interface (see env.nccl-invalid)", s->name));
  if (selected.empty()) {
    std::string hint, best;
    if (!list.exclude) {
      std::size_t best_d = 3;
      for (const auto& n : list.names)
        for (const auto& i : interfaces)
          if (auto d = text::edit_distance(n, i); d < best_d) best_d = d, best = i;
      if (!best.empty()) hint = fmt::format(" Did you mean {}?", best);
    }
    std::string how =
        list.exclude ? "excludes every network interface here" : "matches no network interface here";
    out.add(Status::error, s->name,
            fmt::format("{}={} ({}) {} ({}): NCCL fails to bootstrap (\"no socket interface found\") on "
                        "this machine.{}",
                        s->name, printable(s->value), nccl_where(ctx.facts, *s), how,
                        text::join(interfaces, ", "), hint),
            evidence);
    // The interface meant where one is near, else NCCL's own choice.
    out.act(hint.empty() ? nccl_change(*s, std::nullopt) : nccl_change(*s, best));
    return;
  }
  bool only_loopback = std::ranges::all_of(selected, [](const std::string& i) { return i == "lo"; });
  if (only_loopback && list.exclude) {
    out.add(Status::warn, s->name,
            fmt::format("{}={} ({}) leaves only the loopback interface lo: jobs across machines cannot "
                        "connect.",
                        s->name, printable(s->value), nccl_where(ctx.facts, *s)),
            evidence);
    return out.act(nccl_change(*s, std::nullopt));
  }
  out.pass(
      s->name,
      fmt::format("{}={} selects {} (NCCL also needs the interface up with an IP address, which gpudoctor "
                  "does not check)",
                  s->name, printable(s->value), text::join(selected, ", ")),
      evidence);
}

void env_nccl_risky(const CheckContext& ctx, Results& out) {
  const Facts& f = ctx.facts;
  bool any = false;
  for (const auto& s : nccl_settings(f)) {
    // A value NCCL cannot use is env.nccl-invalid's to report.
    if (const NcclVarRow* var = ctx.kb.env.nccl_var(s.name);
        var && !nccl_value_problem(*var, s.value).empty())
      continue;
    for (const auto& row : ctx.kb.env.nccl_risky) {
      if (row.name != s.name || !risky_value(row, s.value)) continue;
      any = true;
      std::vector<std::string> evidence = {nccl_evidence(ctx.facts, s),
                                           fmt::format("knowledge nccl_risky {}: {}", row.name, row.source)};
      std::string setting = fmt::format("{}={}", s.name, printable(s.value));
      if (!row.vendor.empty()) {
        Vendor v = row.vendor == "nvidia" ? Vendor::nvidia : Vendor::amd;
        if (f.count(v) == 0) {
          out.pass(
              s.name,
              fmt::format("{} matters on {} GPUs only, and this machine has none", setting, vendor_name(v)),
              evidence);
          continue;
        }
      }
      if (row.requirement == "ib_device") {
        if (f.network.ib_devices.empty()) {
          out.pass(s.name,
                   fmt::format("{} matters only with InfiniBand/RoCE devices, and {} lists none", setting,
                               f.network.ib_source),
                   evidence);
          continue;
        }
        evidence.push_back(fmt::format("{}: {}", f.network.ib_source, text::join(f.network.ib_devices, " ")));
      }
      if (row.requirement == "multi_gpu" && gpu_count(ctx) < 2) {
        out.pass(
            s.name,
            fmt::format("{} matters only between GPUs, and this machine has {}", setting, gpus_text(ctx)),
            evidence);
        continue;
      }
      out.add(Status::warn, s.name,
              fmt::format("{} ({}): {}. Better: {}.", setting, nccl_where(ctx.facts, s), row.why, row.better),
              evidence);
      out.act(nccl_change(s, std::nullopt)); // NCCL's default: every row's `better` allows it
    }
  }
  if (!any) out.pass("", "no NCCL setting known to cost bandwidth or correctness is set");
}

} // namespace gpudoctor::checks
