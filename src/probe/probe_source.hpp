// Where the compiled probe programs come from. Live: beside gpudoctor (built with it), or compiled now from
// the installed sources with the toolkit found and cached per source, compiler and targets. A replay needs
// none: the snapshot answers each probe's key.
#pragma once

#include "facts/facts.hpp"
#include "system/system_view.hpp"

#include <expected>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace gpudoctor {

struct ProbePrograms {
  std::string host;      // gpudoctor-probe-<backend>: devices, host-bandwidth, p2p, alloc
  std::string kernels;   // gpudoctor-probe-<backend>-kernels: kernel, memory-bandwidth
  std::string how;       // for the report: "built with gpudoctor (...)", "compiled now ...", "cached ..."
  bool prebuilt = false; // built with gpudoctor, not compiled on this machine
};

// Says what gpudoctor is doing (compiling, running a probe); may be empty.
using ProbeSay = std::function<void(const std::string&)>;

class ProbeSource {
public:
  virtual ~ProbeSource() = default;
  // The programs for `backend` ("cuda" or "hip"), or why there are none.
  virtual std::expected<ProbePrograms, std::string> programs(const std::string& backend, SystemView& view,
                                                             const Facts& facts) = 0;
  // Programs compiled on this machine from the sources, with its toolkit: for when the prebuilt ones need a
  // newer driver than the machine has.
  virtual std::expected<ProbePrograms, std::string> compiled(const std::string& backend, SystemView& view,
                                                             const Facts& facts) = 0;
};

// The live source. `exe_dir` is the folder of the gpudoctor binary: prebuilt programs are looked for in
// <exe_dir>/libexec/gpudoctor (build tree) and <exe_dir>/../libexec/gpudoctor (installed), sources in
// <exe_dir>/share/gpudoctor/probes and <exe_dir>/../share/gpudoctor/probes.
class InstalledProbes : public ProbeSource {
public:
  // `forced`: backends whose probes are compiled even where nothing_to_probe says there is nothing to find.
  InstalledProbes(std::filesystem::path exe_dir, ProbeSay say, std::vector<std::string> forced = {});
  std::expected<ProbePrograms, std::string> programs(const std::string& backend, SystemView& view,
                                                     const Facts& facts) override;
  std::expected<ProbePrograms, std::string> compiled(const std::string& backend, SystemView& view,
                                                     const Facts& facts) override;

private:
  std::filesystem::path m_exe_dir;
  ProbeSay m_say;
  std::vector<std::string> m_forced;
};

// The folder of the running gpudoctor binary (from /proc/self/exe).
std::filesystem::path own_folder();

} // namespace gpudoctor
