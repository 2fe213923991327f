// Parsers for the software layer above the driver (issue 12): the DT_NEEDED names of a shared library, the
// memlock limit of /proc/self/limits, `df -Pk`, the Requires-Dist lines of a Python distribution's
// METADATA, NCCL_IB_HCA, HSA_OVERRIDE_GFX_VERSION and the local version label of a compiled extension. Same
// contract as parsers.hpp: pure, no I/O, no exceptions, any input survives (each is fuzzed).
#pragma once

#include "facts/container_facts.hpp" // NvidiaRequirement
#include "facts/env_facts.hpp"       // HcaList
#include "facts/host_facts.hpp"      // IpAddress
#include "facts/python_facts.hpp"    // VersionLabel

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor::parse {

// ---- ELF dynamic section ---------------------------------------------------------------------------------

// Bytes of the file at an offset (the bytes it has there, possibly fewer; empty optional: unreadable). The
// reader asks for the ELF header, the program headers, the dynamic segment and the dynamic string table
// only, each bounded (k_elf_max_read), never the whole library.
using ElfReadAt = std::function<std::optional<std::string>(std::uint64_t offset, std::size_t length)>;
inline constexpr std::size_t k_elf_max_read = 4u << 20; // the largest single read (a dynamic string table)

struct ElfNeeded {
  int bits = 0;                    // 32 or 64
  std::string soname;              // DT_SONAME, when present
  std::vector<std::string> needed; // DT_NEEDED, in the file's order
};
// ELF32/ELF64, either byte order. Empty for anything else or a file that contradicts itself (a segment past
// the end, a string offset outside the table); at most 4096 dynamic entries and 512 names are read.
std::optional<ElfNeeded> elf_needed(const ElfReadAt& read);
// The same over a whole file's bytes (tests, fuzzing).
std::optional<ElfNeeded> elf_needed_bytes(std::string_view bytes);

// ---- /proc/self/limits
// --------------------------------------------------------------------------------------

struct Limit {
  std::string soft, hard; // "unlimited" or a number as written ("8388608")
  std::string unit;       // "bytes"
};
// The "Max locked memory" row.
std::optional<Limit> memlock_limit(std::string_view text);

// ---- df -Pk
// ---------------------------------------------------------------------------------------------------

// The size in KiB (1024-blocks) of the file system of the first data row.
std::optional<std::uint64_t> df_size_kib(std::string_view text);

// An NVIDIA_REQUIRE_* value as the NVIDIA container toolkit reads it (libnvidia-container src/cli/dsl.c):
// space-separated terms ORed, each a comma-separated list of constraints ANDed. A constraint is a key (cuda,
// driver, arch, brand; any case), an operator (=, !=, <, <=, >, >=) and a value (versions: digits and dots;
// brand: = and != only). Empty optional: the toolkit's "invalid expression". At most 64 terms of 16
// constraints.
std::optional<NvidiaRequirement> nvidia_require(std::string_view value);

// `ip -o addr show` (one line per address: "2: eno1    inet 172.18.40.41/16 brd ... scope global eno1\ ...")
// and `ip addr show` (an "N: name: <FLAGS>" line, then indented "inet"/"inet6" lines): the addresses, in
// the order printed. At most 4096 addresses; lines that are neither are skipped.
std::vector<IpAddress> ip_addresses(std::string_view text);

// ---- METADATA of a Python distribution
// ---------------------------------------------------------------------

struct Requirement {
  std::string name;   // normalised: lower case, '_' and '.' as '-'
  std::string spec;   // "==2.5.1", ">=2.0", "" (any)
  std::string marker; // the text after ';' ("platform_system == \"Linux\""), trimmed
};
// The Requires-Dist headers (the header block only: reading stops at the first empty line, the description).
std::vector<Requirement> requires_dist(std::string_view metadata);

// ---- NCCL_IB_HCA
// -----------------------------------------------------------------------------------------------

// NCCL's syntax (environment-variable documentation, NCCL_IB_HCA): '^' excludes, '=' makes names exact (else
// prefixes), entries are separated by ',', ":<port>" picks a port. Empty names are dropped; a port that is
// not a number in 0..65535 is no port.
HcaList nccl_ib_hca(std::string_view value);

// ---- HSA_OVERRIDE_GFX_VERSION
// ------------------------------------------------------------------------------

// Exactly three decimal numbers major.minor.stepping, major <= 63, minor and stepping <= 255, as libhsakmt
// (topology.c) reads it with "%u.%u.%u%c"; the result in gfx_target_version form (11.0.0 -> 110000).
std::optional<long long> hsa_override_gfx(std::string_view value);

// ---- local version label of a compiled extension
// -------------------------------------------------------------

// The label of "2.6.3+cu123torch2.4cxx11abiFALSE" (flash-attn), "+rocm6.1", "+cu121"; empty without '+'.
std::optional<VersionLabel> version_label(std::string_view version);

} // namespace gpudoctor::parse
