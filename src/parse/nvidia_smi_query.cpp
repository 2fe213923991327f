// `nvidia-smi -q` text: "Key : Value" lines, 4 spaces per level; one "GPU 00000000:DB:00.0" block per GPU.
#include "parse/nvidia_smi_health.hpp"
#include "parse/parsers.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

#include <array>

namespace gpudoctor::parse {

namespace {

// Driver 610 appends a note to the old keys: "610.88 [Deprecated; will be removed in CUDA 14.0. ...]".
std::string first_token(std::string_view value) {
  std::size_t pos = 0;
  std::string_view tok = detail::next_token(value, pos);
  return detail::looks_like_version(tok) ? std::string(tok) : std::string();
}

struct QueryReader {
  NvidiaSmiReport report;
  std::string kmd, umd;

  void top(std::string_view key, std::string_view value) {
    if (key == "Driver Version" && report.driver_version.empty())
      report.driver_version = first_token(value);
    else if (key == "CUDA Version" && report.cuda_version.empty())
      report.cuda_version = first_token(value);
    else if (key == "KMD Version")
      kmd = first_token(value);
    else if (key == "CUDA UMD Version")
      umd = first_token(value);
  }

  // The section titles above the current line, by level (indent 4 is level 0): "ECC Errors", "Volatile".
  std::array<std::string, 6> path;

  void gpu_field(std::size_t indent, std::string_view key, std::optional<std::string_view> value) {
    NvidiaSmiGpu& gpu = report.gpus.back();
    std::size_t level = indent / 4 - 1;
    if (indent % 4 != 0 || level >= path.size()) return;
    path[level] = std::string(key); // a key with a value may have children too ("HW Slowdown")
    if (!value) return;
    if (indent == 4 && key == "Product Name")
      gpu.name = std::string(*value);
    else if (indent == 4 && key == "GPU UUID")
      gpu.uuid = std::string(*value);
    else if (indent == 8 && path[0] == "FB Memory Usage" && key == "Total" && value->ends_with(" MiB"))
      gpu.memory_total_mib = text::to_int(value->substr(0, value->size() - 4));
    else if (indent == 8 && path[0] == "BAR1 Memory Usage" && key == "Total" && value->ends_with(" MiB"))
      gpu.bar1_total_mib = text::to_int(value->substr(0, value->size() - 4));
    else if (indent == 8 && path[0] == "MIG Mode" && (key == "Current" || key == "Pending") &&
             (*value == "Enabled" || *value == "Disabled"))
      (key == "Current" ? gpu.mig_current : gpu.mig_pending) = std::string(*value);
    std::array<std::string_view, 6> keys;
    for (std::size_t i = 0; i <= level; ++i)
      keys[i] = path[i];
    std::string_view reason;
    if (auto field = detail::text_health_field(keys.data(), level + 1, reason))
      detail::set_health(gpu.health, *field, *value, reason);
  }

  void line(std::string_view raw) {
    std::size_t indent = detail::indent_of(raw);
    std::string_view t = detail::trim_view(raw);
    if (t.empty()) return;
    std::size_t colon = t.find(" : ");
    std::string_view key = detail::trim_view(t.substr(0, colon));
    std::optional<std::string_view> value;
    if (colon != std::string_view::npos)
      value = detail::trim_view(t.substr(colon + 3));
    else if (t.ends_with(" :"))
      value = std::string_view();
    if (indent == 0 && !value && t.starts_with("GPU ") && !bdf_from_nvidia_bus_id(t.substr(4)).empty()) {
      report.gpus.push_back({.bus_id = std::string(detail::trim_view(t.substr(4)))});
      path = {};
    } else if (indent == 0 && value) {
      top(key, *value);
    } else if (indent > 0 && !report.gpus.empty()) {
      gpu_field(indent, key, value);
    }
  }
};

} // namespace

std::optional<NvidiaSmiReport> nvidia_smi_query(std::string_view text) {
  QueryReader r;
  detail::for_each_line(text, [&](std::string_view line) { r.line(line); });
  if (r.report.driver_version.empty()) r.report.driver_version = r.kmd;
  if (r.report.cuda_version.empty()) r.report.cuda_version = r.umd;
  if (r.report.driver_version.empty() && r.report.gpus.empty()) return std::nullopt;
  return std::move(r.report);
}

} // namespace gpudoctor::parse
