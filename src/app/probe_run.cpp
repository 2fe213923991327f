#include "app/probe_run.hpp"

#include "util/diagnostics.hpp"

namespace gpudoctor {

ProbeSession::ProbeSession(SystemView& view, const CheckOptions& opt) : m_view(view) {
  const bool replay = view.is_replay();
  m_active = opt.probes || replay;
  if (!m_active) return;
  // diag erases an open progress line before a message, from whichever thread writes.
  ProbeSay note = [](const std::string& what) { diag::error("{}", what); };
  m_options.requested = opt.probes;
  m_options.timeout = std::chrono::milliseconds(opt.probe_timeout_ms);
  if (!replay) {
    m_installed.emplace(own_folder(), note, opt.probe_backends);
    m_options.source = &*m_installed;
  }
  m_options.progress = [](const std::string& what) { diag::progress(what); };
}

ProbeSession::~ProbeSession() {
  if (m_framework.valid()) m_framework.wait(); // never leave the thread running past the session
}

void ProbeSession::start_framework(const PythonFacts& python) {
  if (!m_active || m_framework.valid()) return;
  m_framework =
      std::async(std::launch::async, [this, python] { return framework_probe(m_view, m_options, python); });
}

void ProbeSession::choose(const Facts& facts, const GpuSelection& selection) {
  if (!m_active || !m_installed) return; // a replay judges what the snapshot recorded
  m_options.visible = {{"cuda", cuda_visible_devices(facts, selection)},
                       {"hip", hip_visible_devices(facts, selection)}};
  for (const auto& gpu : facts.gpus)
    if (selection.covers(gpu.index)) m_options.chosen_bdfs.push_back(gpu.bdf);
}

void ProbeSession::finish(Facts& facts) {
  if (!m_active) return;
  start_framework(facts.python); // when the collectors did not start it already
  collect_probes(m_view, m_options, facts, m_framework);
  diag::clear_progress();
}

} // namespace gpudoctor
