#include "collect/collect_probes.hpp"

#include "probe/framework_script.hpp"
#include "probe/probe_parse.hpp"
#include "system/root_exec.hpp"
#include "util/text.hpp"

#include <future>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// In run order; the host program runs devices, host-bandwidth, p2p and alloc, the kernels program the rest.
// alloc runs last: it takes (and gives back) nearly all device memory.
constexpr const char* k_after_devices[] = {"kernel", "memory-bandwidth", "host-bandwidth", "p2p", "alloc"};

bool in_kernels_program(const std::string& name) {
  return name == "kernel" || name == "memory-bandwidth";
}

std::string stderr_tail(const std::string& err) {
  auto lines = text::lines(text::trim(err));
  std::size_t from = lines.size() > 5 ? lines.size() - 5 : 0;
  std::string tail = text::join(
      std::vector<std::string>(lines.begin() + static_cast<std::ptrdiff_t>(from), lines.end()), " | ");
  return tail.size() > 600 ? tail.substr(tail.size() - 600) : tail;
}

void fill_run(ProbeRun& run, const CommandResult& r, const CommandSpec& spec) {
  run.run = true;
  run.found = r.found;
  run.timed_out = r.timed_out;
  run.exit_code = r.exit_code;
  run.duration_ms = r.duration_ms;
  run.timeout_ms = static_cast<long>(spec.timeout.count());
  run.stderr_tail = stderr_tail(r.err.empty() ? r.error : r.err);
  // Root found the program but would not run it (system/root_trust.hpp): "missing" would send the user
  // looking for a file that is there.
  if (!r.found)
    for (const auto& u : r.untrusted)
      if (u.ran_as.empty() && u.instead.empty()) run.untrusted = u.path + " (" + u.why + ")";
}

ProbeRun not_run(const std::string& name, const std::string& key, const std::string& why) {
  ProbeRun run;
  run.name = name;
  run.key = key;
  run.not_run = why;
  return run;
}

class BackendCollector {
public:
  BackendCollector(SystemView& view, const ProbeOptions& opt, const Facts& facts, std::string backend)
      : m_view(view), m_opt(opt), m_facts(facts) {
    m_out.backend = std::move(backend);
  }

  BackendProbes collect() {
    if (const VisibleDevices* v = visible(); v && v->none) {
      m_out.unavailable = fmt::format("--gpus chose no {} GPU", m_out.backend == "cuda" ? "NVIDIA" : "AMD");
      return std::move(m_out);
    }
    ProbePrograms programs{"gpudoctor-probe-" + m_out.backend,
                           "gpudoctor-probe-" + m_out.backend + "-kernels", "recorded in the snapshot"};
    if (m_opt.source) {
      auto found = m_opt.source->programs(m_out.backend, m_view, m_facts);
      if (!found) {
        m_out.unavailable = found.error();
        return std::move(m_out);
      }
      programs = *found;
    }
    m_out.binary = programs.host;
    m_out.how = programs.how;
    run("devices", programs.host);
    if (m_opt.source && programs.prebuilt && m_out.runtime_too_new()) {
      // Built with a toolkit newer than this driver runs: compile them with this machine's, once.
      std::string why = "the prebuilt probes (runtime " + runtime_version_text(m_out.runtime_version) +
                        ") need a newer driver than this one (" + runtime_version_text(m_out.driver_version) +
                        ")";
      auto local = m_opt.source->compiled(m_out.backend, m_view, m_facts);
      if (local) {
        std::string backend = m_out.backend;
        m_out = BackendProbes{};
        m_out.backend = backend;
        programs = *local;
        m_out.binary = programs.host;
        m_out.how = programs.how + ", because " + why;
        run("devices", programs.host);
      } else {
        m_out.how += "; " + why + ", and compiling them here failed: " + local.error();
      }
    }
    const ProbeRun devices = m_out.runs.back(); // a copy: the runs below grow the vector
    if (!m_opt.source && !devices.found) {
      std::string backend = m_out.backend;
      m_out = BackendProbes{};
      m_out.backend = backend;
      m_out.unavailable = "the snapshot holds no output of the " + m_out.title() + " probes";
      return std::move(m_out);
    }
    std::string stop;
    if (devices.timed_out)
      stop = "the devices probe timed out";
    else if (!devices.completed())
      stop = "the devices probe did not finish";
    else if (m_out.device_count.value_or(0) == 0)
      stop = k_probe_no_device;
    for (const char* name : k_after_devices) {
      std::string key = key_of(name);
      if (!stop.empty())
        m_out.runs.push_back(not_run(name, key, stop));
      else if (std::string(name) == "p2p" && m_out.device_count.value_or(0) < 2)
        m_out.runs.push_back(not_run(name, key, "one device: no pair to test"));
      else if (run(name, in_kernels_program(name) ? programs.kernels : programs.host).timed_out)
        stop = std::string("an earlier probe (") + name + ") timed out";
    }
    return std::move(m_out);
  }

private:
  const VisibleDevices* visible() const {
    auto it = m_opt.visible.find(m_out.backend);
    return it == m_opt.visible.end() ? nullptr : &it->second;
  }

  std::string key_of(const std::string& name) const { return "probe-" + name + "@" + m_out.backend; }

  const ProbeRun& run(const std::string& name, const std::string& program) {
    ProbeRun probe;
    probe.name = name;
    probe.key = key_of(name);
    if (m_opt.source && m_opt.progress) m_opt.progress(m_out.title() + " probe: " + name);
    CommandSpec spec{probe.key, {program, name}, m_opt.timeout, {}};
    if (const VisibleDevices* v = visible()) v->apply(spec);
    CommandResult r = m_view.run(spec);
    fill_run(probe, r, spec);
    probe::read_probe_output(r.out, probe, m_out);
    m_out.runs.push_back(std::move(probe));
    return m_out.runs.back();
  }

  SystemView& m_view;
  const ProbeOptions& m_opt;
  const Facts& m_facts;
  BackendProbes m_out;
};

} // namespace

// PyTorch as the python3 in use imports it: only when that interpreter has one.
std::optional<FrameworkProbe> framework_probe(SystemView& view, const ProbeOptions& opt,
                                              const PythonFacts& python) {
  if (python.envs.empty()) return std::nullopt;
  const PythonEnv& env = python.envs.front();
  if (!env.torch || !env.error.empty()) return std::nullopt;
  FrameworkProbe fp;
  fp.python = env.executable;
  fp.run.name = "torch";
  fp.run.key = "python-gpu";
  if (opt.source && opt.progress) opt.progress("PyTorch probe: " + env.executable);
  CommandSpec spec{fp.run.key, {env.executable, "-c", probe::framework_script()}, opt.timeout, {}};
  // As root: isolated (-I), since the caller's PYTHON* variables and working folder would pick what `import`
  // loads, and a user's interpreter imports torch as that user (system/root_exec.hpp), never as root.
  if (running_as_root()) spec.argv.insert(spec.argv.begin() + 1, "-I");
  spec.as_owner_when_untrusted = true;
  // --gpus: the devices of its build's runtime (a ROCm build honours HIP's variables, and CUDA's too).
  if (auto it = opt.visible.find(env.torch->hip ? "hip" : "cuda"); it != opt.visible.end()) {
    if (it->second.none) return std::nullopt; // no chosen GPU is of its build's vendor
    it->second.apply(spec);
  }
  CommandResult r = view.run(spec);
  if (!opt.source && !r.found) return std::nullopt; // not recorded
  fill_run(fp.run, r, spec);
  probe::read_framework_output(r.out, fp);
  return fp;
}

void collect_probes(SystemView& view, const ProbeOptions& opt, Facts& facts,
                    std::future<std::optional<FrameworkProbe>>& framework) {
  const Facts& in = facts;
  std::vector<BackendProbes> backends;
  for (const char* backend : {"cuda", "hip"})
    backends.push_back(BackendCollector(view, opt, in, backend).collect());
  if (opt.source && opt.progress && framework.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    opt.progress("waiting for the PyTorch probe (import torch)");
  std::optional<FrameworkProbe> fw = framework.get();

  bool recorded = fw.has_value();
  for (const auto& b : backends)
    recorded = recorded || !b.runs.empty();
  if (!opt.requested && !recorded) return;
  facts.probes.requested = true;
  facts.probes.chosen_gpus = opt.chosen_bdfs;
  facts.probes.backends = std::move(backends);
  facts.probes.framework = std::move(fw);
}

} // namespace gpudoctor
