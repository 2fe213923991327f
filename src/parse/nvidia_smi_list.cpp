// `nvidia-smi -L`: one line per GPU, "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-2927d07e-…)", and below a GPU
// in MIG mode one line per MIG device, "  MIG 1g.10gb     Device  0: (UUID: MIG-6e95ef19-…)" (drivers before
// R470 print the older "MIG-GPU-<gpu uuid>/<gi>/<ci>" form).
#include "parse/parsers.hpp"
#include "parse/scan.hpp"

#include <algorithm>
#include <tuple>

namespace gpudoctor::parse {

namespace {

constexpr std::size_t k_max_gpus = 1024, k_max_migs = 64; // more than NVML can list (MIG: 7 a GPU)
constexpr std::size_t k_max_links = 64;                   // NVLink 5 has 18 a GPU
constexpr long long k_max_count = 1LL << 52;              // an error count past this is not a count

// The UUID in "(UUID: X)" at the end of the line, when it has only the characters a UUID has.
std::string uuid_of(std::string_view line, std::string_view prefix) {
  std::size_t at = line.rfind("(UUID: ");
  if (at == std::string_view::npos) return {};
  std::string_view rest = line.substr(at + 7);
  std::size_t close = rest.find(')');
  if (close == std::string_view::npos) return {};
  std::string_view uuid = rest.substr(0, close);
  if (!uuid.starts_with(prefix) || uuid.size() == prefix.size() || !nvidia_uuid_text(uuid)) return {};
  return std::string(uuid);
}

// "N:" after a label ("GPU 0:", "Device  3:"): N, or -1.
int index_after(std::string_view line, std::string_view label) {
  std::size_t at = line.find(label);
  if (at == std::string_view::npos) return -1;
  std::size_t pos = at + label.size();
  std::string_view tok = detail::next_token(line, pos);
  if (!tok.ends_with(':')) return -1;
  auto n = text::to_int(tok.substr(0, tok.size() - 1));
  return n && *n >= 0 && *n < 1 << 20 ? static_cast<int>(*n) : -1;
}

// "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-2927d07e-...)", the line -L and nvlink -s print for each GPU: its
// index (-1 when none), name and UUID ("" when not a UUID).
std::tuple<int, std::string, std::string> gpu_line(std::string_view line) {
  std::string name;
  std::size_t colon = line.find(':'), paren = line.rfind(" (UUID: ");
  if (colon != std::string_view::npos && paren != std::string_view::npos && paren > colon)
    name = std::string(detail::trim_view(line.substr(colon + 1, paren - colon - 1)).substr(0, 128));
  return {index_after(line, "GPU"), std::move(name), uuid_of(line, "GPU-")};
}

// A "GPU N: ..." line of `nvidia-smi nvlink` opens the next GPU; false once the bound is reached (the scan
// stops there).
bool add_nvlink_gpu(std::string_view line, std::vector<NvlinkGpu>& out) {
  if (out.size() == k_max_gpus) return false;
  NvlinkGpu gpu;
  std::tie(gpu.index, gpu.name, gpu.uuid) = gpu_line(line);
  if (gpu.index >= 0) out.push_back(std::move(gpu));
  return true;
}

} // namespace

bool nvidia_uuid_text(std::string_view s) {
  return s.size() <= 96 && std::all_of(s.begin(), s.end(), [](char c) {
           return detail::is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
                  c == '/';
         });
}

std::vector<NvidiaSmiListed> nvidia_smi_list(std::string_view text) {
  std::vector<NvidiaSmiListed> out;
  detail::for_each_line(text, [&](std::string_view raw) {
    std::string_view line = detail::trim_view(raw);
    if (line.starts_with("GPU ")) {
      NvidiaSmiListed gpu;
      std::tie(gpu.index, gpu.name, gpu.uuid) = gpu_line(line);
      if (gpu.index < 0 || gpu.uuid.empty()) return true;
      if (out.size() == k_max_gpus) return false;
      out.push_back(std::move(gpu));
    } else if (line.starts_with("MIG ") && !out.empty()) {
      NvidiaSmiListed::Mig mig;
      std::size_t pos = 4;
      mig.profile = std::string(detail::next_token(line, pos));
      mig.device = index_after(line, "Device");
      mig.uuid = uuid_of(line, "MIG-");
      if (mig.device < 0 || mig.uuid.empty() || out.back().migs.size() == k_max_migs) return true;
      out.back().migs.push_back(std::move(mig));
    }
    return true;
  });
  return out;
}

std::vector<NvlinkGpu> nvidia_smi_nvlink_status(std::string_view text) {
  std::vector<NvlinkGpu> out;
  detail::for_each_line(text, [&](std::string_view raw) {
    std::string_view line = detail::trim_view(raw);
    if (line.starts_with("GPU ")) return add_nvlink_gpu(line, out);
    if (out.empty() || !line.starts_with("Link ") || out.back().links.size() == k_max_links) return true;
    NvlinkLink link;
    link.link = index_after(line, "Link");
    if (link.link < 0) return true;
    std::string_view state = detail::trim_view(line.substr(line.find(':') + 1));
    if (state.ends_with(" GB/s")) {
      link.gbps = text::to_double(state.substr(0, state.size() - 5));
      link.active = link.gbps && *link.gbps > 0;
    }
    out.back().links.push_back(link); // "<inactive>", "N/A": not active
    return true;
  });
  return out;
}

std::vector<NvlinkGpu> nvidia_smi_nvlink_errors(std::string_view text) {
  std::vector<NvlinkGpu> out;
  detail::for_each_line(text, [&](std::string_view raw) {
    std::string_view line = detail::trim_view(raw);
    if (line.starts_with("GPU ")) return add_nvlink_gpu(line, out);
    if (out.empty() || !line.starts_with("Link ")) return true;
    int number = index_after(line, "Link");
    std::size_t colon = line.find(':'), last = line.rfind(':');
    if (number < 0 || colon == last) return true;
    // "Replay Errors", "CRC Flit Errors", "CRC-Data Errors": lower case, '-' as a space.
    std::string counter =
        text::lower(std::string(detail::trim_view(line.substr(colon + 1, last - colon - 1))));
    std::replace(counter.begin(), counter.end(), '-', ' ');
    std::optional<long long> value = text::to_int(detail::trim_view(line.substr(last + 1)));
    if (value && (*value < 0 || *value > k_max_count)) value.reset(); // so flit + data cannot overflow
    auto& links = out.back().links;
    auto it = std::find_if(links.begin(), links.end(), [&](const NvlinkLink& l) { return l.link == number; });
    if (it == links.end()) {
      if (links.size() == k_max_links) return true;
      links.push_back(NvlinkLink{.link = number});
      it = links.end() - 1;
    }
    if (counter == "replay errors")
      it->replay_errors = value;
    else if (counter == "recovery errors")
      it->recovery_errors = value;
    else if (counter == "crc errors")
      it->crc_errors = value;
    else if ((counter == "crc flit errors" || counter == "crc data errors") && value)
      it->crc_errors = it->crc_errors.value_or(0) + *value;
    return true;
  });
  return out;
}

} // namespace gpudoctor::parse
