// The second reading of the counters that only mean something as an increase (docs/fleet.md, "History"):
// the newest report `check --history` kept on this machine, reduced to those counters. Checks compare
// today's counts with it; a count since the driver loaded or this boot compares only within one boot.
#pragma once

#include "facts/fact.hpp"
#include "facts/health_facts.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gpudoctor {

// One GPU's counters as the kept report had them (nvidia-smi's ECC counts, amdgpu's RAS counters).
struct PreviousGpuCounters {
  std::string bdf; // 0000:01:00.0
  std::optional<long long> volatile_uncorrectable, aggregate_uncorrectable;
  std::optional<long long> volatile_correctable, aggregate_correctable;
  std::optional<long long> retired_sbe, retired_dbe;
  struct Ras {
    std::string block;
    long long ue = 0, ce = 0;
  };
  std::vector<Ras> ras;
  struct Nvlink { // one NVLink's error counts (nvidia-smi nvlink -e), since the driver loaded
    int link = -1;
    std::optional<long long> replay, recovery, crc;
  };
  std::vector<Nvlink> nvlinks;
};

// A group of kernel-log lines of this boot as the kept report counted them.
struct PreviousEventCount {
  KernelEventKind kind = KernelEventKind::xid;
  std::optional<int> code;
  std::string pci;
  std::size_t count = 0;
};

struct PreviousReading {
  std::string report;       // the kept report's name: 20261205T054947.123456Z-ok.json
  std::string time;         // when it was kept: 2026-12-05T05:49:47Z
  std::string tool_version; // the gpudoctor that wrote it
  std::string boot_id;      // that machine's boot then; empty: not known (a report of an older gpudoctor)
  std::string read_at;      // when this run read it (its own time, recorded with it); empty: not recorded
  std::vector<PreviousGpuCounters> gpus;
  std::vector<PreviousEventCount> events; // this boot's, then
};

struct HistoryFacts {
  Fact<std::string> boot_id; // /proc/sys/kernel/random/boot_id
  std::optional<PreviousReading> previous;
  std::string source;  // "summary history-previous"
  std::string why_not; // why there is no previous reading: "no report kept", "not readable as alice", ...

  // Whether counts since this boot (or since the driver loaded, at most) compare with the previous reading:
  // both boots are known and the same.
  bool same_boot() const {
    return previous && boot_id && !previous->boot_id.empty() && previous->boot_id == *boot_id;
  }
};

} // namespace gpudoctor
