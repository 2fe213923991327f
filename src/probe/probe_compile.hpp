// Compiling the probes at run time, for a gpudoctor built without a GPU compiler: from the installed sources,
// with the nvcc or hipcc found, for the GPUs on this machine's PCI bus; cached per source hash, compiler and
// targets under $XDG_CACHE_HOME/gpudoctor/probes (or ~/.cache/gpudoctor/probes; as root, only a folder no
// other user can change: docs/security.md, "Writing as root").
#pragma once

#include "probe/probe_source.hpp"

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

namespace gpudoctor::probe {

// The files of one program as probes/sources.txt lists them ("host: a.cpp b.cpp", "kernels: ...").
std::expected<std::vector<std::string>, std::string> source_list(const std::filesystem::path& sources,
                                                                 const std::string& program);

// The compiler's target flags for the GPUs in `facts`, and their names for messages. Empty flags: the
// compiler's default (nvcc: its lowest arch with PTX, which the driver compiles for newer GPUs; hipcc: the
// GPUs it detects), used when a GPU's target is unknown.
struct Targets {
  std::vector<std::string> flags;
  std::string names;
};
Targets probe_targets(const std::string& backend, const Facts& facts);

// Why compiling `backend`'s probes is pointless here (no GPU of its vendor, no driver); "" when it is not.
std::string nothing_to_probe(const std::string& backend, const Facts& facts);

// Finds the compiler, compiles (or reuses the cache) and returns the programs.
std::expected<ProbePrograms, std::string> compile_probes(const std::string& backend, SystemView& view,
                                                         const Facts& facts,
                                                         const std::filesystem::path& sources,
                                                         const ProbeSay& say);

} // namespace gpudoctor::probe
