// The kernel's messages a bundle records (`dmesg`, `journal-kernel-previous`) are text like any other: the
// kernel command line they repeat and module parameters may carry secrets as name=value words, and URLs may
// carry credentials (an nfsroot=http://user:pass@...). Those are redacted; --obfuscate's stand-ins for the
// host and user names reach these files with every other one (obfuscate_tree).
#include "bundle/redact.hpp"
#include "util/file_text.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

namespace gpudoctor {

namespace {

namespace fs = std::filesystem;

// "luks.api_key=s3cr3t" -> "luks.api_key=<redacted>" for every blank-separated word of the line.
std::string redact_log_line(const std::string& line) {
  std::string out;
  std::size_t pos = 0;
  while (pos <= line.size()) {
    std::size_t end = line.find(' ', pos);
    if (end == std::string::npos) end = line.size();
    std::string word = line.substr(pos, end - pos);
    std::size_t eq = word.find('=');
    if (eq != std::string::npos && eq > 0 && is_secret_name(word.substr(0, eq)))
      word = word.substr(0, eq + 1) + "<redacted>";
    out += word;
    if (end < line.size()) out += ' ';
    pos = end + 1;
  }
  return redact_url_credentials(out);
}

} // namespace

void redact_kernel_logs(const fs::path& dir, RedactionLog& log) {
  auto commands = parse_json(read_whole_file(dir / "commands.json").value_or(""));
  if (!commands || !commands->is_array()) return;
  for (const auto& entry : *commands) {
    if (!entry.is_object()) continue;
    std::string key = entry.value("key", "");
    if (key != "dmesg" && key != "journal-kernel-previous") continue;
    std::string rel =
        entry.contains("stdout") && entry["stdout"].is_string() ? entry["stdout"].get<std::string>() : "";
    if (!text::starts_with(rel, "cmd/") || rel.find("..") != std::string::npos) continue;
    auto before = read_whole_file(dir / rel);
    if (!before) continue;
    std::string after;
    auto lines = text::split(*before, '\n', true);
    for (std::size_t i = 0; i < lines.size(); ++i)
      after += redact_log_line(lines[i]) + (i + 1 < lines.size() ? "\n" : "");
    if (after == *before) continue;
    write_whole_file(dir / rel, after);
    log.redacted.push_back("cmd:" + key);
  }
}

} // namespace gpudoctor
