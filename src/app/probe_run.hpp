// The probes of one run (check --probes, probe, bundle --probes, or a replayed snapshot that holds their
// outputs), with what gpudoctor does said on stderr: compiling always, progress only on a terminal.
#pragma once

#include "app/commands.hpp"
#include "collect/collect_probes.hpp"
#include "facts/facts.hpp"
#include "probe/probe_source.hpp"
#include "system/system_view.hpp"

#include <future>
#include <optional>

namespace gpudoctor {

class ProbeSession {
public:
  ProbeSession(SystemView& view, const CheckOptions& opt);
  ~ProbeSession();
  ProbeSession(const ProbeSession&) = delete;
  ProbeSession& operator=(const ProbeSession&) = delete;

  // Whether probes run (--probes) or may have been recorded (a replay).
  bool active() const { return m_active; }
  // Starts the framework probe as soon as the interpreters are known (importing torch takes seconds).
  void start_framework(const PythonFacts& python);
  // check/probe --gpus: live, the probes' runtimes are shown the chosen GPUs only (before start_framework).
  void choose(const Facts& facts, const GpuSelection& selection);
  // Runs the compiled probes and fills facts.probes, with the framework probe's result.
  void finish(Facts& facts);

private:
  SystemView& m_view;
  bool m_active = false;
  std::optional<InstalledProbes> m_installed;
  ProbeOptions m_options;
  std::future<std::optional<FrameworkProbe>> m_framework;
};

} // namespace gpudoctor
