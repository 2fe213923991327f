// The messages of the GPU drivers (nvidia's NVRM, nvidia-nvswitch, amdgpu) and of PCIe AER, as events tied to
// the PCI address they name; the events of a log grouped by kind, code, address (and file) with a count.
// Message forms: NVIDIA's Xid catalogue and open-gpu-kernel-modules (NVRM), the Fabric Manager guide (SXid),
// the Linux kernel's amdgpu and pcie/aer drivers; real samples in tests/data/realdata/dmesg-*.
#include "parse/kernel_log.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

#include <map>
#include <tuple>

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_line = 300;

bool event_hex_digit(char c) {
  return detail::is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool has_part(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// The first PCI address in `s` ("0000:b3:00.0"), normalised; "" when there is none.
std::string first_pci_address(std::string_view s) {
  for (std::size_t at = s.find(':'); at != std::string_view::npos && at + 7 < s.size();
       at = s.find(':', at + 1)) {
    if (at < 4) continue;
    std::size_t start = at - 4;
    if (start > 0 && (event_hex_digit(s[start - 1]) || s[start - 1] == ':')) continue;
    if (std::string a = normalize_pci_address(s.substr(start, 12)); !a.empty()) return a;
  }
  return {};
}

// The device a message starts with: "amdgpu 0000:2f:00.0: amdgpu: ..." -> driver "amdgpu", its address.
std::pair<std::string_view, std::string> device_prefix(std::string_view msg) {
  std::size_t p = 0;
  std::string_view driver = detail::next_token(msg, p);
  std::string_view address = detail::next_token(msg, p);
  if (!address.ends_with(':')) return {};
  std::string pci = normalize_pci_address(address.substr(0, address.size() - 1));
  if (pci.empty()) return {};
  return {driver, pci};
}

std::optional<int> leading_number(std::string_view s) {
  std::size_t n = 0;
  while (n < s.size() && n < 9 && detail::is_digit(s[n]))
    ++n;
  if (n == 0) return std::nullopt;
  auto v = text::to_int(s.substr(0, n));
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

// "pid=1896, name=python3, Ch 00000008" -> "pid 1896, python3"; quotes and <unknown> left out.
std::string process_of(std::string_view rest) {
  auto field = [&](std::string_view key) -> std::string {
    std::size_t at = rest.find(key);
    if (at == std::string_view::npos) return {};
    std::string_view v = rest.substr(at + key.size());
    v = v.substr(0, v.find_first_of(", "));
    if (v.size() >= 2 && (v.front() == '\'' || v.front() == '"')) v = v.substr(1, v.size() - 2);
    if (v.empty() || v == "<unknown>" || v.size() > 64) return {};
    return std::string(v);
  };
  std::string pid = field("pid="), name = field("name=");
  if (pid.empty()) return name;
  return name.empty() ? "pid " + pid : "pid " + pid + ", " + name;
}

// "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: ..." and the old "NVRM: Xid (0000:01:00): 13,
// ..."; "nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 ...".
std::optional<KernelEventLine> xid_of(std::string_view msg) {
  bool switch_xid = false;
  std::size_t at = msg.find("NVRM: Xid (");
  if (at == std::string_view::npos) {
    at = msg.find("SXid (");
    if (at == std::string_view::npos) return std::nullopt;
    switch_xid = true;
  }
  std::string_view s = msg.substr(msg.find('(', at) + 1);
  if (s.starts_with("PCI:")) s.remove_prefix(4);
  std::size_t close = s.find("): ");
  if (close == std::string_view::npos || close > 16) return std::nullopt;
  auto code = leading_number(s.substr(close + 3));
  if (!code) return std::nullopt;
  KernelEventLine e;
  e.kind = switch_xid ? KernelEventKind::sxid : KernelEventKind::xid;
  e.code = code;
  e.pci = normalize_pci_address(s.substr(0, close));
  std::string_view rest = s.substr(close + 3);
  std::size_t comma = rest.find(", ");
  rest = comma == std::string_view::npos ? std::string_view() : detail::trim_view(rest.substr(comma + 2));
  if (switch_xid) {
    e.detail = std::string(rest.substr(0, k_max_line));
    e.group_key = rest.starts_with("Fatal") ? "fatal" : "non-fatal"; // the severity the SXid was logged with
    return e;
  }
  e.process = process_of(rest);
  // The text after pid=, name= and the channel: the driver's words for it.
  std::string_view words = rest;
  for (std::string_view key : {"pid=", "name="})
    if (words.starts_with(key)) {
      std::size_t next = words.find(", ");
      words = next == std::string_view::npos ? std::string_view() : words.substr(next + 2);
    }
  e.detail = std::string(detail::trim_view(words).substr(0, k_max_line));
  return e;
}

std::optional<KernelEventLine> nvrm_event_of(std::string_view msg) {
  KernelEventLine e;
  e.pci = first_pci_address(msg);
  if (has_part(msg, "fallen off the bus")) {
    e.kind = KernelEventKind::fallen_off_bus;
  } else if (has_part(msg, "RmInitAdapter failed")) {
    e.kind = KernelEventKind::init_failed;
    e.detail = std::string(detail::trim_view(msg.substr(msg.find("RmInitAdapter failed"))).substr(0, 80));
  } else if (has_part(msg, "probe routine failed")) {
    e.kind = KernelEventKind::probe_failed;
  } else if (has_part(msg, "requires use of the NVIDIA open kernel modules")) {
    e.kind = KernelEventKind::open_module_required;
  } else if (has_part(msg, "No firmware image found") || has_part(msg, "firmware image not found")) {
    e.kind = KernelEventKind::firmware_missing;
    e.detail = "GSP firmware";
    e.group_key = e.detail;
  } else if ((has_part(msg, "GSP") || has_part(msg, "kgsp")) &&
             (has_part(msg, "imeout") || has_part(msg, "timed out") || has_part(msg, "rror") ||
              has_part(msg, "failed") || has_part(msg, "annot "))) {
    e.kind = KernelEventKind::gsp_error;
  } else if (has_part(text::lower(msg.substr(0, 512)), "reset required")) {
    e.kind = KernelEventKind::reset_required;
  } else {
    return std::nullopt;
  }
  // "NVRM: GPU6 _kgspIsHeartbeatTimedOut: ..." names the GPU by the driver's index, not its address.
  std::size_t p = msg.find("NVRM: GPU");
  if (e.pci.empty() && p != std::string_view::npos) {
    std::size_t q = p + 6;
    std::string_view gpu = detail::next_token(msg, q);
    if (gpu.size() > 3 && detail::is_digit(gpu[3])) e.detail = std::string(gpu);
  }
  return e;
}

std::optional<KernelEventLine> amdgpu_event_of(std::string_view msg) {
  KernelEventLine e;
  e.pci = device_prefix(msg).second;
  if (std::size_t ring = msg.find("ring "); ring != std::string_view::npos && has_part(msg, " timeout")) {
    std::size_t p = ring + 5;
    e.kind = KernelEventKind::ring_timeout;
    e.detail = std::string(detail::next_token(msg, p).substr(0, 32));
  } else if (has_part(msg, "GPU reset begin")) {
    e.kind = KernelEventKind::reset_begin;
  } else if (has_part(msg, "GPU reset") && has_part(msg, "succeeded")) {
    e.kind = KernelEventKind::reset_succeeded;
  } else if ((has_part(msg, "GPU reset") && has_part(msg, "failed")) ||
             has_part(msg, "GPU Recovery Failed") || has_part(msg, "ASIC reset failed")) {
    e.kind = KernelEventKind::reset_failed;
  } else if (has_part(msg, "MES failed to respon") || has_part(msg, "MES might be in unrecoverable state")) {
    e.kind = KernelEventKind::mes_failure;
  } else if (has_part(msg, "Fatal error during GPU init")) {
    e.kind = KernelEventKind::init_fatal;
  } else {
    return std::nullopt;
  }
  return e;
}

// "Direct firmware load for amdgpu/gc_12_0_1_pfp.bin failed with error -2" from amdgpu or nvidia.
std::optional<KernelEventLine> firmware_event_of(std::string_view msg) {
  std::size_t at = msg.find("Direct firmware load for ");
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t p = at + 25;
  std::string_view file = detail::next_token(msg, p);
  auto [driver, pci] = device_prefix(msg);
  bool gpu_file = file.starts_with("amdgpu/") || file.starts_with("nvidia/");
  if (!gpu_file && driver != "amdgpu" && driver != "nvidia") return std::nullopt;
  if (file.empty() || file.size() > 200) return std::nullopt;
  KernelEventLine e;
  e.kind = KernelEventKind::firmware_missing;
  e.pci = pci;
  e.detail = std::string(file);
  e.group_key = e.detail;
  return e;
}

// "pcieport 0000:00:01.1: AER: Uncorrected (Fatal) error received: 0000:01:00.0",
// "nvidia 0000:01:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, ...".
std::optional<KernelEventLine> aer_event_of(std::string_view msg) {
  if (!has_part(msg, "AER:") && !has_part(msg, "PCIe Bus Error")) return std::nullopt;
  KernelEventLine e;
  e.kind = KernelEventKind::pcie_aer;
  auto [driver, reporter] = device_prefix(msg);
  e.detail = has_part(msg, "Non-Fatal")  ? "Uncorrected (Non-Fatal)"
             : has_part(msg, "Fatal")    ? "Uncorrected (Fatal)"
             : has_part(msg, "orrected") ? "Corrected"
                                         : "";
  if (e.detail.empty()) return std::nullopt;
  e.group_key = e.detail;
  std::size_t at = msg.find("received");
  std::string named = at == std::string_view::npos ? std::string() : first_pci_address(msg.substr(at));
  e.pci = named.empty() ? reporter : named;
  if (e.pci != reporter) e.reporter = reporter;
  return e;
}

std::optional<KernelEventLine> probe_failure_of(std::string_view msg) {
  // "amdgpu: probe of 0000:03:00.0 failed with error -22", "nvidia: probe of ... failed with error -1".
  if (!(msg.starts_with("amdgpu") || msg.starts_with("nvidia ") || msg.starts_with("nvidia:")) ||
      !has_part(msg, "probe of ") || !has_part(msg, " failed"))
    return std::nullopt;
  KernelEventLine e;
  e.kind = KernelEventKind::probe_failed;
  e.pci = first_pci_address(msg);
  return e;
}

// A module load the kernel refused (kernel/module/signing.c: "Loading of unsigned module is rejected";
// security/lockdown: "Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7").
// The lines name no module. This is the wide net; knowledge health.yaml (module_refusals) says which lines
// are refusals for a signature. "module verification failed ... tainting kernel" is a load, not a refusal.
std::optional<KernelEventLine> module_rejection_of(std::string_view msg) {
  bool rejected = has_part(msg, "Loading of ") && has_part(msg, " is rejected");
  bool restricted = has_part(msg, "Lockdown: ") && has_part(msg, "module loading is restricted");
  if (!rejected && !restricted) return std::nullopt;
  KernelEventLine e;
  e.kind = KernelEventKind::module_rejected;
  // "Lockdown: insmod: ..." and "Lockdown: modprobe: ..." are one refusal: the program's name is left out.
  std::string_view what =
      restricted ? msg.substr(msg.find("Lockdown: ")) : msg.substr(msg.find("Loading of "));
  if (restricted)
    if (std::size_t colon = what.find(": ", 10); colon != std::string_view::npos)
      what = what.substr(colon + 2);
  e.detail = std::string(detail::trim_view(what).substr(0, 120));
  e.group_key = e.detail;
  return e;
}

using GroupKey = std::tuple<int, int, std::string, std::string>;

class Grouper {
public:
  explicit Grouper(int boot) : boot_(boot) {}
  KernelLogScan scan;

  void add(const KernelRecord& r, KernelEventLine e) {
    GroupKey key{static_cast<int>(e.kind), e.code.value_or(-1), e.pci, e.group_key};
    auto it = index_.find(key);
    std::string line = r.message.substr(0, k_max_line);
    if (it == index_.end()) {
      if (scan.events.size() >= k_max_kernel_event_groups) {
        ++scan.dropped;
        return;
      }
      index_.emplace(key, scan.events.size());
      KernelEvent g{e.kind,
                    e.code,
                    std::move(e.pci),
                    std::move(e.reporter),
                    std::move(e.detail),
                    std::move(e.process),
                    boot_,
                    0,
                    r.time,
                    r.time,
                    r.boot_relative,
                    line,
                    line};
      scan.events.push_back(std::move(g));
      it = index_.find(key);
    }
    KernelEvent& g = scan.events[it->second];
    ++g.count;
    g.last_time = r.time;
    g.last_line = std::move(line);
  }

private:
  int boot_;
  std::map<GroupKey, std::size_t> index_;
};

} // namespace

std::string normalize_pci_address(std::string_view address) {
  std::string a = text::lower(detail::trim_view(address));
  if (a.size() == 16 && a.starts_with("0000")) a.erase(0, 4); // nvidia-smi's 8-digit domain
  if (a.size() == 10) a += ".0";                              // NVRM's Xid form names no function
  if (a.size() != 12 || a[4] != ':' || a[7] != ':' || a[10] != '.' || a[11] < '0' || a[11] > '7') return {};
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!event_hex_digit(a[i])) return {};
  return a;
}

std::optional<KernelEventLine> kernel_event_of(std::string_view msg) {
  if (auto e = xid_of(msg)) return e;
  if (auto e = firmware_event_of(msg)) return e;
  if (has_part(msg, "NVRM:"))
    if (auto e = nvrm_event_of(msg)) return e;
  if (has_part(msg, "amdgpu"))
    if (auto e = amdgpu_event_of(msg)) return e;
  if (auto e = probe_failure_of(msg)) return e;
  if (auto e = module_rejection_of(msg)) return e;
  return aer_event_of(msg);
}

KernelLogScan kernel_log(std::string_view text, int boot) {
  Grouper grouper(boot);
  // NVRM splits some messages over several records, the GPU's address in the first only ("NVRM: The NVIDIA
  // GPU 0000:01:00.0 (PCI ID: 10de:2b85)" / "NVRM: installed in this system requires use of ..."): the
  // address carries over to the next few NVRM records.
  std::string nvrm_address;
  int nvrm_records_left = 0;
  for_each_kernel_record(text, [&](const KernelRecord& r) {
    ++grouper.scan.records;
    if (!r.time.empty()) ++grouper.scan.timed_records;
    std::string_view msg = r.message;
    bool nvrm = has_part(msg, "NVRM:");
    if (nvrm && nvrm_records_left > 0) --nvrm_records_left;
    auto e = kernel_event_of(msg);
    if (!e) {
      if (nvrm && has_part(msg, "The NVIDIA GPU ")) {
        nvrm_address = first_pci_address(msg);
        nvrm_records_left = nvrm_address.empty() ? 0 : 3;
      }
      return;
    }
    if (e->pci.empty() && nvrm && nvrm_records_left > 0) e->pci = nvrm_address;
    grouper.add(r, std::move(*e));
  });
  grouper.scan.no_entries = grouper.scan.records == 0 && has_part(text, "-- No entries --");
  return std::move(grouper.scan);
}

} // namespace gpudoctor::parse
