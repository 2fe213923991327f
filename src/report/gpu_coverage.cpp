#include "report/gpu_coverage.hpp"

#include "util/text.hpp"

#include <fmt/format.h>

namespace gpudoctor {

namespace {

std::vector<std::string> covered(const Report& report) {
  std::vector<std::string> out;
  for (const auto& gpu : report.facts.gpus)
    if (report.selection->covers(gpu.index)) out.push_back(gpu.subject());
  return out;
}

} // namespace

std::string gpu_coverage_text(const Report& report) {
  if (!report.selection) return {};
  const std::size_t of = report.facts.gpus.size();
  std::string text = fmt::format("{} of the {} GPU{} (--gpus {})", text::join(covered(report), ", "), of,
                                 of == 1 ? "" : "s", text::join(report.selection->asked, ","));
  if (!report.selection->migs.empty()) {
    std::vector<std::string> migs;
    for (const auto& mig : report.selection->migs)
      migs.push_back(mig.uuid);
    text += fmt::format(", MIG device{} {}", migs.size() == 1 ? "" : "s", text::join(migs, ", "));
  }
  return text +
         ": the per-GPU results of the others are left out; the machine-wide checks see the whole machine";
}

Json gpu_coverage_json(const Report& report) {
  if (!report.selection) return nullptr;
  Json migs = Json::array();
  for (const auto& mig : report.selection->migs)
    migs.push_back(mig.uuid);
  return {{"asked", report.selection->asked},
          {"gpus", covered(report)},
          {"mig_devices", migs},
          {"of", report.facts.gpus.size()}};
}

} // namespace gpudoctor
