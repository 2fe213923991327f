// --obfuscate: who and what a snapshot names (identities.hpp: hosts, users, GPU serials and unique ids) and
// every address and GPU UUID in it (address_scan.hpp) replaced by keyed pseudonyms (pseudonyms.hpp),
// consistently, in file contents, file and folder names, link targets, command outputs and keys, so the
// snapshot still replays as the machine it was: /home/alice/.bashrc becomes /home/user-3f9a1c2b/.bashrc in
// the tree and in every path that names it.
#pragma once

#include "bundle/identities.hpp"
#include "bundle/pseudonyms.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpudoctor {

using StandIns = std::vector<std::pair<std::string, std::string>>; // word -> stand-in

// Replaces each word where it stands alone: not inside a longer run of letters and digits ("ai" is replaced
// in "/home/ai/x" and "ai.example", not in "maintainers").
std::string replace_words(std::string_view text, const StandIns& words);

class Obfuscator {
public:
  // The identities found in the snapshot at `dir` (before it is rewritten), with pseudonyms under `key`.
  Obfuscator(const std::filesystem::path& dir, std::string key);

  // A text as the obfuscated snapshot has it. `device_list`: a value such as CUDA_VISIBLE_DEVICES, where any
  // GPU-<hex> prefix names a GPU (elsewhere four hex digits at least).
  std::string text(std::string_view s, bool device_list = false) const;
  // Rewrites the snapshot at `dir` in place (not manifest.json). Returns what it replaced, for the manifest
  // ("hostname", "user names", ...); what could not be rewritten is added to `failed`.
  std::vector<std::string> apply(const std::filesystem::path& dir, std::vector<std::string>& failed) const;

  const Identities& identities() const { return m_identities; }
  const Pseudonyms& pseudonyms() const { return m_pseudonyms; }

private:
  Identities m_identities;
  Pseudonyms m_pseudonyms;
  StandIns m_words;
};

} // namespace gpudoctor
