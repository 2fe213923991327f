// The GPU table compiled into gpudoctor: every NVIDIA and AMD GPU by PCI id with its architecture.
// src/knowledge/gpu_table_data.cpp is generated from checks/knowledge/gen/gpu_rows.tsv by
// checks/knowledge/gen/gpu_table.py (docs/knowledge.md, "The GPU table"); it is not parsed at run time.
#pragma once

#include <cstdint>
#include <span>

namespace gpudoctor {

struct GpuTableRow {
  std::uint16_t vendor = 0, device = 0;
  int revision = -1;         // -1: any revision
  int subsystem_vendor = -1; // -1: any board
  int subsystem_device = -1;
  const char* name = "";
  const char* arch = "";               // "sm_89", "gfx1031"
  const char* family = "";             // "Ada", "RDNA2"
  std::int32_t gfx_target_version = 0; // AMD: KFD encoding; 0 for NVIDIA
  std::int32_t vram_gib = 0;           // 0: not given by the sources
  const char* source = "";             // source keys, space separated (builtin_gpu_sources)
  bool uncertain = false;
};

struct GpuTableSource {
  const char* key;
  const char* citation;
};

// Sorted by vendor, then device.
std::span<const GpuTableRow> builtin_gpu_rows();
std::span<const GpuTableSource> builtin_gpu_sources();

} // namespace gpudoctor
