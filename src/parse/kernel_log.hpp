// The kernel log as dmesg and journalctl print it: every common line form (raw `[  12.345678] msg`, `dmesg
// -T`, ISO times, journalctl's short, short-iso and short-precise, syslog files with both), continuation
// lines joined to their message, and the messages of the GPU drivers turned into events tied to the PCI
// address they name. Same contract as parsers.hpp: pure, never throws, survives any input (fuzzed).
#pragma once

#include "facts/health_facts.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::parse {

// One log record: its time as printed and its message, continuation lines joined with a space.
struct KernelRecord {
  std::string time;           // "1843.308145", "Mon May 11 13:59:53 2024", "2024-05-11T13:59:53+0000"
  bool boot_relative = false; // `time` counts seconds since boot
  std::string message;        // "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, ..."
};

// What a message says, when it is a GPU event (KernelEvent without the counts and times).
struct KernelEventLine {
  KernelEventKind kind = KernelEventKind::xid;
  std::optional<int> code;
  std::string pci, reporter, detail, process;
  std::string group_key; // what else, beside kind, code and PCI address, makes lines one group (a file)
};
std::optional<KernelEventLine> kernel_event_of(std::string_view message);

struct KernelLogScan {
  std::vector<KernelEvent> events; // grouped, in the order of their first line
  std::size_t records = 0;         // log records read
  std::size_t timed_records = 0;   // of them, records with a time (what dmesg and journalctl print)
  std::size_t dropped = 0;         // groups beyond the cap (k_max_kernel_event_groups)
  bool no_entries = false;         // journalctl said "-- No entries --"
};
inline constexpr std::size_t k_max_kernel_event_groups = 256;

// Calls `fn` with each record of `text`, in order, one at a time (a 4 MiB log is never copied whole).
void for_each_kernel_record(std::string_view text, const std::function<void(const KernelRecord&)>& fn);
std::vector<KernelRecord> kernel_records(std::string_view text);
// The GPU events of a log; `boot` is stored in each (0: this boot, -1: the previous one).
KernelLogScan kernel_log(std::string_view text, int boot = 0);

// "0000:10:1c" (NVRM's Xid form), "0000:3B:00.0", "00000000:3b:00.0" -> "0000:3b:00.0"; "" if not an address.
std::string normalize_pci_address(std::string_view address);

} // namespace gpudoctor::parse
