#include "collect/gpu_selection.hpp"

#include "parse/parsers.hpp"
#include "probe/probe_parse.hpp"
#include "system/commands_recorded.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <optional>
#include <tuple>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

constexpr std::size_t k_max_words = 1024; // more GPUs than a machine has

bool all_digits(std::string_view s) {
  return !s.empty() && s.size() < 8 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string gpu_list(const Facts& f) {
  if (f.gpus.empty()) return "this machine has no GPU on its PCI bus";
  std::vector<std::string> names;
  for (const auto& gpu : f.gpus)
    names.push_back(gpu.subject());
  return fmt::format("the GPUs here are {}", text::join(names, ", "));
}

const Gpu* gpu_with_uuid(const Facts& f, std::string_view uuid) {
  for (const auto& gpu : f.gpus)
    if (const NvidiaSmiGpu* smi = f.smi_of(gpu); smi && text::lower(smi->uuid) == text::lower(uuid))
      return &gpu;
  return nullptr;
}

class Resolver {
public:
  Resolver(SystemView& view, const Facts& f, std::chrono::milliseconds timeout)
      : m_view(view), m_facts(f), m_timeout(timeout) {}

  std::expected<const Gpu*, std::string> resolve(const std::string& word, GpuSelection& out) {
    const std::string lower = text::lower(word);
    std::string_view digits = lower;
    if (digits.starts_with("gpu") && all_digits(digits.substr(3))) digits.remove_prefix(3);
    if (all_digits(digits)) {
      auto index = text::to_int(digits);
      for (const auto& gpu : m_facts.gpus)
        if (index && gpu.index == *index) return &gpu;
      return not_here(word);
    }
    if (lower.starts_with("gpu-") || lower.starts_with("mig-")) {
      if (!parse::nvidia_uuid_text(word))
        return std::unexpected(fmt::format("\"{}\" is not a GPU or MIG UUID", word));
      if (lower.starts_with("gpu-")) return by_uuid(word, word);
      return by_mig(word, out);
    }
    // "0000:41:00.0", "41:00.0", "00000000:41:00.0": as the runtimes print a bus id.
    if (std::string bdf = probe::normalise_bus_id(word); !bdf.empty()) {
      if (const Gpu* gpu = m_facts.gpu_at(bdf)) return gpu;
      return std::unexpected(fmt::format("no GPU at {} ({}; one that fell off the bus is no longer listed)",
                                         bdf, gpu_list(m_facts)));
    }
    return std::unexpected(
        fmt::format("\"{}\" names no GPU: give an index (0), a PCI address (0000:41:00.0) or a "
                    "UUID (GPU-…, MIG-…); {}",
                    word, gpu_list(m_facts)));
  }

private:
  std::unexpected<std::string> not_here(const std::string& word) const {
    return std::unexpected(fmt::format("no GPU \"{}\": {}", word, gpu_list(m_facts)));
  }

  std::expected<const Gpu*, std::string> by_uuid(const std::string& uuid, const std::string& word) const {
    if (const Gpu* gpu = gpu_with_uuid(m_facts, uuid)) return gpu;
    std::vector<std::string> known;
    for (const auto& smi : m_facts.nvidia.smi_gpus)
      if (!smi.uuid.empty()) known.push_back(smi.uuid);
    if (known.empty())
      return std::unexpected(
          fmt::format("no GPU has the UUID in \"{}\": nvidia-smi listed no UUID here (choose "
                      "AMD GPUs, and GPUs without nvidia-smi, by index or PCI address)",
                      word));
    return std::unexpected(
        fmt::format("no GPU has the UUID in \"{}\": nvidia-smi lists {}", word, text::join(known, ", ")));
  }

  std::expected<const Gpu*, std::string> by_mig(const std::string& word, GpuSelection& out) {
    const std::string lower = text::lower(word);
    if (lower.starts_with("mig-gpu-")) {
      // The older form names its GPU: MIG-GPU-<uuid>/<gpu instance>/<compute instance>.
      std::string parent =
          word.substr(4, word.find('/') == std::string::npos ? std::string::npos : word.find('/') - 4);
      auto gpu = by_uuid(parent, word);
      if (gpu) out.migs.push_back({(*gpu)->index, word});
      return gpu;
    }
    for (const auto& listed : listing())
      for (const auto& mig : listed.migs)
        if (text::lower(mig.uuid) == lower) {
          auto gpu = by_uuid(listed.uuid, word);
          if (gpu) out.migs.push_back({(*gpu)->index, mig.uuid});
          return gpu;
        }
    if (!m_listing_error.empty())
      return std::unexpected(fmt::format("cannot tell which GPU {} is on: {}; choose its GPU by index or PCI "
                                         "address",
                                         word, m_listing_error));
    return std::unexpected(fmt::format("no MIG device {}: `nvidia-smi -L` lists none with that UUID", word));
  }

  // `nvidia-smi -L`, run once and only for a MIG UUID.
  const std::vector<parse::NvidiaSmiListed>& listing() {
    if (m_listing) return *m_listing;
    CommandResult r = m_view.run(keyed_command_spec(KeyedCommand::nvidia_smi_list, m_timeout));
    m_listing = parse::nvidia_smi_list(r.out);
    if (!r.found)
      m_listing_error =
          m_view.is_replay() ? "the snapshot holds no `nvidia-smi -L`" : "nvidia-smi is not here";
    else if (r.timed_out)
      m_listing_error = "`nvidia-smi -L` timed out";
    else if (m_listing->empty())
      m_listing_error = "`nvidia-smi -L` listed no GPU";
    return *m_listing;
  }

  SystemView& m_view;
  const Facts& m_facts;
  std::chrono::milliseconds m_timeout;
  std::optional<std::vector<parse::NvidiaSmiListed>> m_listing;
  std::string m_listing_error;
};

// A runtime's GPUs in the order it numbers them: its vendor's GPUs bound to the compute driver, by `rank`.
template <class Rank>
std::vector<const Gpu*> runtime_order(const Facts& f, Vendor vendor, const char* driver, Rank rank) {
  std::vector<const Gpu*> out;
  for (const auto& gpu : f.gpus)
    if (gpu.vendor == vendor && gpu.driver && *gpu.driver == driver) out.push_back(&gpu);
  std::stable_sort(out.begin(), out.end(), [&](const Gpu* a, const Gpu* b) { return rank(*a) < rank(*b); });
  return out;
}

} // namespace

bool GpuSelection::covers(int index) const {
  return std::binary_search(gpus.begin(), gpus.end(), index);
}

std::expected<GpuSelection, std::string> select_gpus(SystemView& view, const Facts& facts,
                                                     const std::vector<std::string>& words,
                                                     std::chrono::milliseconds timeout) {
  if (words.size() > k_max_words)
    return std::unexpected(
        fmt::format("--gpus names {} GPUs; at most {} are taken", words.size(), k_max_words));
  GpuSelection out;
  Resolver resolver(view, facts, timeout);
  for (const auto& raw : words) {
    std::string word = text::trim(raw);
    if (word.empty())
      return std::unexpected(std::string("--gpus has an empty entry (two commas, or one at an end)"));
    auto gpu = resolver.resolve(word, out);
    if (!gpu) return std::unexpected(gpu.error());
    out.asked.push_back(word);
    out.gpus.push_back((*gpu)->index);
  }
  std::sort(out.gpus.begin(), out.gpus.end());
  out.gpus.erase(std::unique(out.gpus.begin(), out.gpus.end()), out.gpus.end());
  auto key = [](const GpuSelection::Mig& m) { return std::tie(m.gpu, m.uuid); };
  std::sort(out.migs.begin(), out.migs.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  out.migs.erase(std::unique(out.migs.begin(), out.migs.end(),
                             [&](const auto& a, const auto& b) { return key(a) == key(b); }),
                 out.migs.end());
  return out;
}

VisibleDevices cuda_visible_devices(const Facts& facts, const GpuSelection& selection) {
  VisibleDevices v;
  // CUDA_DEVICE_ORDER=PCI_BUS_ID numbers the devices in bus order, as facts.gpus is.
  auto order = runtime_order(facts, Vendor::nvidia, "nvidia", [](const Gpu&) { return 0; });
  std::vector<std::string> devices;
  for (std::size_t ordinal = 0; ordinal < order.size(); ++ordinal) {
    const Gpu& gpu = *order[ordinal];
    if (!selection.covers(gpu.index)) continue;
    bool by_mig = false;
    for (const auto& mig : selection.migs)
      if (mig.gpu == gpu.index) {
        devices.push_back(mig.uuid);
        by_mig = true;
      }
    if (by_mig) continue;
    const NvidiaSmiGpu* smi = facts.smi_of(gpu);
    devices.push_back(smi && !smi->uuid.empty() && parse::nvidia_uuid_text(smi->uuid)
                          ? smi->uuid
                          : std::to_string(ordinal));
  }
  if (devices.empty()) {
    v.none = true;
    return v;
  }
  v.set = {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}, {"CUDA_VISIBLE_DEVICES", text::join(devices, ",")}};
  return v;
}

VisibleDevices hip_visible_devices(const Facts& facts, const GpuSelection& selection) {
  VisibleDevices v;
  // ROCr numbers the GPU agents in the order of their KFD topology nodes; a GPU whose node is unknown goes
  // after them, in bus order.
  auto order = runtime_order(facts, Vendor::amd, "amdgpu",
                             [](const Gpu& gpu) { return gpu.kfd ? gpu.kfd->node_id : 1 << 30; });
  std::vector<std::string> devices;
  for (std::size_t ordinal = 0; ordinal < order.size(); ++ordinal)
    if (selection.covers(order[ordinal]->index)) devices.push_back(std::to_string(ordinal));
  if (devices.empty()) {
    v.none = true;
    return v;
  }
  v.set = {{"HIP_VISIBLE_DEVICES", text::join(devices, ",")}};
  v.unset = {"ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL", "CUDA_VISIBLE_DEVICES"};
  return v;
}

} // namespace gpudoctor
