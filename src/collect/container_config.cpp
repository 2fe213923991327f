#include "collect/container_config.hpp"

#include "util/json.hpp"
#include "util/text.hpp"

namespace gpudoctor {

std::optional<std::string> docker_without_nvidia(const std::string& daemon_json) {
  auto doc = parse_json(daemon_json);
  if (!doc || !doc->is_object()) return std::nullopt;
  bool changed = false;
  if (auto d = json_string(*doc, "default-runtime"); d && *d == "nvidia") {
    doc->erase("default-runtime");
    changed = true;
  }
  if (doc->contains("runtimes") && (*doc)["runtimes"].is_object() && (*doc)["runtimes"].contains("nvidia")) {
    (*doc)["runtimes"].erase("nvidia");
    if ((*doc)["runtimes"].empty()) doc->erase("runtimes");
    changed = true;
  }
  if (!changed) return std::nullopt;
  return dump_json(*doc, 4) + "\n"; // nvidia-ctk writes four spaces
}

namespace {

// "[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]" and its ".options" subtable.
bool nvidia_table(const std::string& header) {
  return text::contains(header, ".runtimes.nvidia]") || text::contains(header, ".runtimes.nvidia.") ||
         text::contains(header, ".runtimes.\"nvidia\"");
}

} // namespace

std::optional<std::string> containerd_without_nvidia(const std::string& config_toml) {
  std::string out;
  bool skipping = false, changed = false;
  for (const auto& line : text::split(config_toml, '\n', true)) {
    std::string t = text::trim(line);
    if (!t.empty() && t.front() == '[') skipping = nvidia_table(t);
    if (skipping) {
      changed = true;
      continue;
    }
    auto eq = t.find('=');
    if (eq != std::string::npos && text::trim(t.substr(0, eq)) == "default_runtime_name" &&
        text::trim(t.substr(eq + 1)) == "\"nvidia\"") {
      out += line.substr(0, line.find_first_not_of(" \t")) + "default_runtime_name = \"runc\"\n";
      changed = true;
      continue;
    }
    out += line + "\n";
  }
  if (!changed) return std::nullopt;
  // split() keeps the empty piece after a final newline: the file's own last newline, not an extra one.
  if (!config_toml.empty() && config_toml.back() == '\n' && out.size() >= 2 && out.ends_with("\n\n"))
    out.pop_back();
  return out;
}

std::string base64(const std::string& bytes) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                 (static_cast<unsigned char>(bytes[i + 1]) << 8) | static_cast<unsigned char>(bytes[i + 2]);
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], k[v & 63]};
  }
  if (i + 1 == bytes.size()) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += {k[v >> 18], k[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == bytes.size()) {
    unsigned v =
        (static_cast<unsigned char>(bytes[i]) << 16) | (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += {k[v >> 18], k[(v >> 12) & 63], k[(v >> 6) & 63], '='};
  }
  return out;
}

} // namespace gpudoctor
