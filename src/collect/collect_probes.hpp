// The probes collector: runs the compiled probes of each runtime (CUDA, HIP) and the framework probe, each as
// a child with a time limit through SystemView::run (keys probe-<name>@<backend>, python-gpu), and reads
// their JSON lines into Facts::probes. A replay answers the same keys from the snapshot, so recorded probe
// outputs are judged again exactly as they were live.
#pragma once

#include "collect/gpu_selection.hpp"
#include "facts/facts.hpp"
#include "probe/probe_source.hpp"
#include "system/system_view.hpp"

#include <chrono>
#include <future>
#include <map>
#include <optional>

namespace gpudoctor {

struct ProbeOptions {
  bool requested = false;                   // --probes; a replay also reads probes a snapshot holds
  std::chrono::milliseconds timeout{30000}; // per probe process
  ProbeSource* source = nullptr;            // live: where the programs come from; null: replay by key
  ProbeSay progress;                        // "CUDA probe: kernel", for a terminal; may be empty
  // check/probe --gpus, live: what each runtime's probes see ("cuda", "hip"; the framework probe takes its
  // build's). Empty: every GPU.
  std::map<std::string, VisibleDevices> visible;
  std::vector<std::string> chosen_bdfs; // the GPUs --gpus chose (ProbeFacts::chosen_gpus)
};

// The framework probe: the python3 in use (the first of `python`) imports PyTorch and computes on each
// device. Empty when that interpreter has no PyTorch, or when a replayed snapshot did not record it.
std::optional<FrameworkProbe> framework_probe(SystemView& view, const ProbeOptions& opt,
                                              const PythonFacts& python);

// Fills facts.probes (left empty when probes were neither requested nor recorded). Reads facts.gpus, so it
// runs after the other collectors; `framework` is the framework probe, started earlier (it runs beside them).
void collect_probes(SystemView& view, const ProbeOptions& opt, Facts& facts,
                    std::future<std::optional<FrameworkProbe>>& framework);

} // namespace gpudoctor
