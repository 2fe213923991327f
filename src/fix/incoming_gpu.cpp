#include "fix/incoming_gpu.hpp"

#include "knowledge/gpu_table.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

namespace gpudoctor::fix {

namespace {

constexpr unsigned k_nvidia = 0x10de, k_amd = 0x1002;

// The words of a model name that tell models apart: lower case, brand words and punctuation left out.
std::vector<std::string> name_words(const std::string& name) {
  static const std::set<std::string> brands = {"nvidia", "geforce", "amd", "ati", "radeon"};
  std::vector<std::string> words;
  std::string word;
  auto flush = [&] {
    if (!word.empty() && !brands.count(word)) words.push_back(word);
    word.clear();
  };
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else
      flush();
  }
  flush();
  return words;
}

bool holds(const std::vector<std::string>& words, const std::vector<std::string>& part) {
  return !part.empty() && std::search(words.begin(), words.end(), part.begin(), part.end()) != words.end();
}

struct Candidate {
  unsigned vendor_id = 0, device_id = 0;
  GpuModel model;
  std::string family_note; // several models of one architecture matched
};

std::vector<Candidate> all_models(const Knowledge& kb) {
  std::vector<Candidate> out;
  for (const auto& r : kb.gpus)
    out.push_back({r.vendor_id, r.device_id, r.model, {}});
  for (const auto& r : builtin_gpu_rows()) {
    GpuModel m;
    m.name = r.name;
    m.arch = r.arch;
    m.family = r.family;
    if (r.gfx_target_version) m.gfx_target_version = r.gfx_target_version;
    m.source = r.source;
    m.uncertain = r.uncertain;
    out.push_back({r.vendor, r.device, m, {}});
  }
  return out;
}

std::optional<std::pair<unsigned, unsigned>> pci_id(const std::string& q) {
  if (q.size() != 9 || q[4] != ':') return std::nullopt;
  auto v = text::to_int(q.substr(0, 4), 16), d = text::to_int(q.substr(5), 16);
  if (!v || !d || *v < 0 || *d < 0) return std::nullopt;
  return std::pair{static_cast<unsigned>(*v), static_cast<unsigned>(*d)};
}

std::expected<Candidate, std::string> by_name(const Knowledge& kb, const std::string& query) {
  auto want = name_words(query);
  if (want.empty()) return std::unexpected(fmt::format("--gpu \"{}\" names no GPU model", query));
  std::vector<Candidate> exact, partial;
  std::set<std::string> exact_names, partial_names;
  for (auto& c : all_models(kb)) {
    auto words = name_words(c.model.name);
    if (words == want && exact_names.insert(c.model.name).second)
      exact.push_back(c);
    else if (holds(words, want) && partial_names.insert(c.model.name).second)
      partial.push_back(c);
  }
  const auto& pick = exact.empty() ? partial : exact;
  if (pick.size() == 1) return pick.front();
  // One family: the choices (CUDA, driver branch, module flavour, ROCm release, wheel index) follow the
  // vendor and the architecture only.
  if (pick.size() > 1 && !pick.front().model.arch.empty() &&
      std::all_of(pick.begin(), pick.end(), [&](const Candidate& c) {
        return c.vendor_id == pick.front().vendor_id && c.model.arch == pick.front().model.arch;
      })) {
    Candidate family = pick.front();
    std::vector<std::string> names;
    for (std::size_t i = 0; i < pick.size() && i < 6; ++i)
      names.push_back(pick[i].model.name);
    family.family_note = fmt::format(
        "--gpu \"{}\" names {} models ({}{}), all {}: the versions chosen are the same for each", query,
        pick.size(), text::join(names, ", "), pick.size() > 6 ? ", ..." : "", family.model.arch);
    return family;
  }
  if (pick.empty())
    return std::unexpected(
        fmt::format("--gpu \"{}\" names no GPU gpudoctor knows (give a model name such as \"RTX 3090\" or "
                    "\"RX 7900 XTX\", or the PCI id such as 10de:2204)",
                    query));
  std::vector<std::string> names;
  for (std::size_t i = 0; i < pick.size() && i < 6; ++i)
    names.push_back(pick[i].model.name);
  return std::unexpected(
      fmt::format("--gpu \"{}\" names {} GPU models of different architectures ({}{}): name one", query,
                  pick.size(), text::join(names, ", "), pick.size() > 6 ? ", ..." : ""));
}

} // namespace

std::expected<IncomingGpu, std::string> incoming_gpu(const Knowledge& kb, const std::string& query,
                                                     Vendor want) {
  Candidate c;
  if (auto id = pci_id(query)) {
    auto model = kb.find_gpu(id->first, id->second, std::nullopt, std::nullopt);
    if (!model)
      return std::unexpected(
          fmt::format("--gpu {} names no GPU gpudoctor knows (no such PCI id in its table)", query));
    c = {id->first, id->second, *model, {}};
  } else {
    auto found = by_name(kb, query);
    if (!found) return std::unexpected(found.error());
    c = *found;
  }
  Vendor v = c.vendor_id == k_nvidia ? Vendor::nvidia : c.vendor_id == k_amd ? Vendor::amd : Vendor::other;
  if (v != want) {
    // The vendor once: the table's names often carry it already ("AMD Radeon RX 7900 XTX").
    const std::string maker = v == Vendor::amd ? "AMD" : "NVIDIA";
    const std::string card = text::starts_with(text::lower(c.model.name), text::lower(maker) + " ")
                                 ? c.model.name
                                 : maker + " " + c.model.name;
    return std::unexpected(fmt::format("--gpu \"{}\" is the {}, not a card for the {} stack", query, card,
                                       want == Vendor::amd ? "AMD" : "NVIDIA"));
  }
  Gpu gpu;
  gpu.vendor = v;
  gpu.vendor_id = c.vendor_id;
  gpu.device_id = c.device_id;
  gpu.model = c.model;
  gpu.source = "--gpu " + query;
  return IncomingGpu{gpu, c.family_note};
}

Facts with_incoming_gpu(const Facts& facts, const Gpu& gpu) {
  Facts out = facts;
  std::erase_if(out.gpus, [&](const Gpu& g) { return g.vendor == gpu.vendor; });
  out.gpus.push_back(gpu);
  return out;
}

} // namespace gpudoctor::fix
