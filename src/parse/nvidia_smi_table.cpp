// The default `nvidia-smi` table (535, 550/570 and 590 layouts): banner versions, then one GPU per row
// block: "|   0  NVIDIA H200   On  |   00000000:8D:00.0 Off |  0 |" and below it "0MiB / 143771MiB".
#include "parse/parsers.hpp"
#include "parse/scan.hpp"
#include "util/text.hpp"

namespace gpudoctor::parse {

namespace {

bool table_hex_digit(char c) {
  return detail::is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The token after `label` on the line ("Driver Version: 550.144.03").
std::string token_after(std::string_view line, std::string_view label) {
  std::size_t at = line.find(label);
  if (at == std::string_view::npos) return {};
  std::size_t pos = at + label.size();
  std::string_view tok = detail::next_token(line, pos);
  return detail::looks_like_version(tok) ? std::string(tok) : std::string();
}

std::vector<std::string_view> cells(std::string_view line) {
  std::vector<std::string_view> out;
  line = detail::trim_view(line);
  if (!line.starts_with('|')) return out;
  line.remove_prefix(1);
  for (std::size_t bar = line.find('|'); bar != std::string_view::npos; bar = line.find('|')) {
    out.push_back(line.substr(0, bar));
    line.remove_prefix(bar + 1);
  }
  return out;
}

// "|   0  NVIDIA A100-SXM4-40GB          Off |   00000000:81:00.0 Off |": index, name, persistence mode
// (WDDM/TCC on Windows). Names too long for the column are printed cut, with "...".
bool gpu_row(const std::vector<std::string_view>& c, NvidiaSmiGpu& gpu) {
  if (c.size() < 3) return false;
  std::size_t pos = 0;
  std::string_view index = detail::next_token(c[0], pos);
  if (index.empty() || index.size() > 4 || !text::to_int(index)) return false;
  std::size_t p1 = 0;
  std::string bus = bdf_from_nvidia_bus_id(detail::next_token(c[1], p1));
  if (bus.empty()) return false;
  p1 = 0;
  gpu.bus_id = std::string(detail::next_token(c[1], p1));
  std::string_view name = detail::trim_view(c[0].substr(pos));
  std::size_t last_space = name.find_last_of(" \t");
  if (last_space != std::string_view::npos) {
    std::string_view mode = name.substr(last_space + 1);
    if (mode == "On" || mode == "Off" || mode == "N/A" || mode == "WDDM" || mode == "TCC" || mode == "MCDM")
      name = detail::trim_view(name.substr(0, last_space));
  }
  gpu.name = std::string(name);
  return true;
}

// "       1MiB /  40960MiB" -> 40960.
std::optional<long long> memory_total(std::string_view cell) {
  std::size_t slash = cell.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view total = detail::trim_view(cell.substr(slash + 1));
  if (!total.ends_with("MiB")) return std::nullopt;
  return text::to_int(total.substr(0, total.size() - 3));
}

} // namespace

std::string bdf_from_nvidia_bus_id(std::string_view bus_id) {
  bus_id = detail::trim_view(bus_id);
  // nvidia-smi prints an 8-digit domain ("00000000:81:00.0"); sysfs uses 4 ("0000:81:00.0").
  if (bus_id.size() == 16 && bus_id.starts_with("0000")) bus_id.remove_prefix(4);
  if (bus_id.size() != 12 || bus_id[4] != ':' || bus_id[7] != ':' || bus_id[10] != '.') return {};
  std::string out = text::lower(bus_id);
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11})
    if (!table_hex_digit(out[i])) return {};
  return out;
}

std::optional<NvidiaSmiReport> nvidia_smi_table(std::string_view text) {
  NvidiaSmiReport out;
  bool expect_memory = false;
  detail::for_each_line(text, [&](std::string_view line) {
    if (out.driver_version.empty() && line.find("Driver Version:") != std::string_view::npos) {
      out.driver_version = token_after(line, "Driver Version:");
      if (out.driver_version.empty()) out.driver_version = token_after(line, "KMD Version:");
      out.cuda_version = token_after(line, "CUDA Version:");
      // Driver 610 renames the label: "CUDA UMD Version: 13.3".
      if (out.cuda_version.empty()) out.cuda_version = token_after(line, "CUDA UMD Version:");
      return;
    }
    auto c = cells(line);
    if (expect_memory && c.size() >= 2) {
      out.gpus.back().memory_total_mib = memory_total(c[1]);
      expect_memory = false;
      return;
    }
    NvidiaSmiGpu gpu;
    if (gpu_row(c, gpu)) {
      out.gpus.push_back(std::move(gpu));
      expect_memory = true;
    }
  });
  if (out.driver_version.empty() && out.gpus.empty()) return std::nullopt;
  return out;
}

} // namespace gpudoctor::parse
