#include "report/probe_summary.hpp"

namespace gpudoctor {

std::vector<std::string> probe_summary_lines(const ProbeFacts& probes) {
  std::vector<std::string> out;
  for (const auto& b : probes.backends) {
    if (!b.unavailable.empty()) {
      out.push_back(b.title() + ": " + b.unavailable);
      continue;
    }
    std::string line = b.title() + ": ";
    const ProbeRun* devices = b.run("devices");
    if (b.device_count)
      line += std::to_string(*b.device_count) + " device" + (*b.device_count == 1 ? "" : "s");
    else if (b.count_error)
      line += "no device (" + b.count_error->name + ")";
    else if (devices && devices->timed_out)
      line += "the devices probe timed out";
    else if (devices && devices->exit_code && *devices->exit_code != 0)
      line += "the devices probe failed (exit " + std::to_string(*devices->exit_code) + ")";
    else if (devices && devices->crashed())
      line += "the devices probe crashed";
    else
      line += "no answer";
    if (!b.how.empty()) line += "; probes " + b.how;
    out.push_back(line);
  }
  if (const auto& fw = probes.framework) {
    std::string line = "PyTorch (" + fw->python + "): ";
    if (!fw->imported)
      line += "does not import";
    else
      line += fw->version + " sees " + std::to_string(fw->device_count.value_or(0)) + " device(s)";
    out.push_back(line);
  }
  if (out.empty()) out.push_back("none run");
  return out;
}

} // namespace gpudoctor
