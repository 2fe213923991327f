#include "bundle/obfuscate.hpp"

#include "bundle/address_scan.hpp"
#include "bundle/tree_rewrite.hpp"
#include "util/file_text.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <unordered_map>

#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

bool device_list_variable(std::string_view name) {
  return name == "CUDA_VISIBLE_DEVICES" || name == "NVIDIA_VISIBLE_DEVICES" ||
         name == "ROCR_VISIBLE_DEVICES" || name == "HIP_VISIBLE_DEVICES" || name == "GPU_DEVICE_ORDINAL";
}

// An AMD unique id in each of its spellings: KFD's decimal, rocm-smi's 0x without leading zeros, sysfs' and
// ROCr's (GPU-<hex>) 16 digits. All go through the same 16-digit pseudonym, so the spellings still agree.
std::string amd_id(const Pseudonyms& p, const Identities::GpuId& id) {
  const std::string& v = id.value;
  bool prefixed = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
  std::string digits = prefixed ? v.substr(2) : v;
  if (id.decimal) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%016" PRIx64,
                  static_cast<std::uint64_t>(std::strtoull(v.c_str(), nullptr, 10)));
    digits = buf;
  }
  if (digits.size() > 16) return (prefixed ? v.substr(0, 2) : std::string()) + p.hex_id(digits);
  std::string mapped = p.hex_id(std::string(16 - digits.size(), '0') + digits);
  if (id.decimal) return std::to_string(std::strtoull(mapped.c_str(), nullptr, 16));
  if (!prefixed) return mapped.substr(16 - digits.size());
  std::size_t first = std::min(mapped.find_first_not_of('0'), mapped.size() - 1);
  return v.substr(0, 2) + mapped.substr(first);
}

} // namespace

std::string replace_words(std::string_view text, const StandIns& words) {
  // Looked up by text and tried longest first at each place a word may start: the cost per place is one hash
  // lookup per distinct word length, not one comparison per word (a passwd of thousands of accounts).
  std::unordered_map<std::string_view, std::string_view> by_text;
  std::array<bool, 256> starts{}; // the first characters of the words: most positions cost one lookup
  std::vector<std::size_t> lengths;
  for (const auto& [word, stand_in] : words) {
    if (word.empty() || !by_text.emplace(word, stand_in).second) continue; // the first stand-in wins
    starts[static_cast<unsigned char>(word[0])] = true;
    lengths.push_back(word.size());
  }
  std::sort(lengths.begin(), lengths.end(), std::greater<>());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    bool replaced = false;
    if (starts[static_cast<unsigned char>(text[i])] && (i == 0 || !word_char(text[i - 1])))
      for (std::size_t len : lengths) {
        std::size_t end = i + len;
        if (end > text.size() || (end < text.size() && word_char(text[end]))) continue;
        auto it = by_text.find(text.substr(i, len));
        if (it == by_text.end()) continue;
        out += it->second;
        i = end;
        replaced = true;
        break;
      }
    if (!replaced) out += text[i++];
  }
  return out;
}

Obfuscator::Obfuscator(const fs::path& dir, std::string key)
    : m_identities(find_identities(dir)), m_pseudonyms(std::move(key)) {
  // A host by the first label of its name: gpu01 and gpu01.corp.example get one pseudonym.
  for (const auto& host : m_identities.hosts)
    m_words.emplace_back(host, m_pseudonyms.named("host", text::lower(host.substr(0, host.find('.')))));
  for (const auto& user : m_identities.users)
    m_words.emplace_back(user, m_pseudonyms.named("user", user));
  for (const auto& serial : m_identities.serials)
    m_words.emplace_back(serial, m_pseudonyms.named("serial", serial));
  for (const auto& id : m_identities.gpu_ids)
    m_words.emplace_back(id.value, amd_id(m_pseudonyms, id));
  // The longer word first: a host "alice-gpu" of user "alice" becomes host-..., not user-...-gpu.
  std::stable_sort(m_words.begin(), m_words.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string Obfuscator::text(std::string_view s, bool device_list) const {
  // Addresses and GPU ids first: a pseudonym from a word never looks like one, nor the reverse.
  return replace_words(pseudonymize_addresses(s, m_pseudonyms, device_list ? 1 : 4), m_words);
}

std::vector<std::string> Obfuscator::apply(const fs::path& dir, std::vector<std::string>& failed) const {
  if (auto env = parse_json(read_whole_file(dir / "env.json").value_or("")); env && env->is_object()) {
    for (auto it = env->begin(); it != env->end(); ++it)
      if (it->is_string()) *it = text(it->get<std::string>(), device_list_variable(it.key()));
    if (auto written = write_whole_file(dir / "env.json", dump_json(*env)); !written)
      failed.push_back(written.error());
  }
  TreeRewrite rewrite;
  rewrite.content = [&](const std::string&, std::string_view content) -> std::optional<std::string> {
    return text(content);
  };
  rewrite.name = [&](const std::string& name) { return text(name); };
  auto rewritten = rewrite_tree(dir, rewrite, {"env.json", "manifest.json"});
  failed.insert(failed.end(), rewritten.failed.begin(), rewritten.failed.end());
  std::vector<std::string> done;
  if (!m_identities.hosts.empty()) done.push_back("hostname");
  if (!m_identities.users.empty()) done.push_back("user names");
  if (!m_identities.serials.empty() || !m_identities.gpu_ids.empty())
    done.push_back("GPU serials and unique ids");
  done.push_back("addresses and UUIDs");
  if (!rewritten.changed.empty()) done.push_back(fmt::format("names in {} files", rewritten.changed.size()));
  return done;
}

} // namespace gpudoctor
