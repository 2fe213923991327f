#include "system/commands_recorded.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

// The journal's kernel messages of this boot (0) or the one before (-1), with ISO timestamps: the same lines
// dmesg prints, which parse::kernel_log reads either way.
const std::vector<RecordedCommandRow> k_rows = {
    {RecordedCommand::nvidia_smi_xml, "nvidia-smi-xml", {"nvidia-smi", "-q", "-x"}},
    {RecordedCommand::nvidia_smi_q, "nvidia-smi-q", {"nvidia-smi", "-q"}},
    {RecordedCommand::nvidia_smi_table, "nvidia-smi", {"nvidia-smi"}},
    {RecordedCommand::nvidia_smi_list, "nvidia-smi-L", {"nvidia-smi", "-L"}},
    {RecordedCommand::rocminfo, "rocminfo", {"rocminfo"}},
    {RecordedCommand::nvcc_version, "nvcc-version", {"nvcc", "--version"}},
    // rpm expands the \n itself: the argument holds a backslash and an n.
    {RecordedCommand::rpm_qa, "rpm-qa", {"rpm", "-qa", "--queryformat", "%{NAME} %{VERSION}-%{RELEASE}\\n"}},
    {RecordedCommand::rpm_provides,
     "rpm-provides",
     {"rpm", "-qa", "--queryformat", "[%{NAME}\\tP\\t%{PROVIDES}\\n][%{NAME}\\tR\\t%{REQUIRES}\\n]"}},
    {RecordedCommand::dkms_status, "dkms-status", {"dkms", "status"}, ProgramSearch::sbin},
    {RecordedCommand::mokutil_sb_state, "mokutil-sb-state", {"mokutil", "--sb-state"}, ProgramSearch::sbin},
    {RecordedCommand::docker_info_json, "docker-info-json", {"docker", "info", "--format", "{{json .}}"}},
    {RecordedCommand::df_shm, "df-shm", {"df", "-Pk", "/dev/shm"}},
    {RecordedCommand::dmesg, "dmesg", {"dmesg"}},
    // Asked under dmesg's key where dmesg may not or cannot run: a replay takes the later run, as live did.
    {RecordedCommand::journal_kernel,
     "dmesg",
     {"journalctl", "-k", "-b", "0", "-o", "short-iso", "--no-pager"}},
    {RecordedCommand::journal_kernel_previous,
     "journal-kernel-previous",
     {"journalctl", "-k", "-b", "-1", "-o", "short-iso", "--no-pager"}},
    {RecordedCommand::modinfo_nvidia, "modinfo-nvidia", {"modinfo", "nvidia"}, ProgramSearch::sbin},
    {RecordedCommand::systemctl_fabricmanager,
     "systemctl-fabricmanager",
     {"systemctl", "is-active", "nvidia-fabricmanager"}},
};

const std::string_view k_key_shapes[] = {
    "python-env@<program>",
    "elf-needed@<path>",
    "probe-<name>@cuda",
    "probe-<name>@hip",
    "python-gpu",
    "probe-compiler@<backend>",
    "probe-build@<backend>",
    "probe-build@<backend>-kernels",
};

bool plain_word(std::string_view word) {
  return !word.empty() && std::ranges::all_of(word, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-_./=,:@%+").find(c) != std::string_view::npos;
  });
}

} // namespace

std::span<const RecordedCommandRow> recorded_commands() {
  return k_rows;
}

const RecordedCommandRow& recorded_command(RecordedCommand id) {
  auto it = std::ranges::find(k_rows, id, &RecordedCommandRow::id);
  return *it; // every enumerator has its row (test_commands_recorded)
}

CommandSpec recorded_command_spec(RecordedCommand id, std::chrono::milliseconds timeout) {
  const RecordedCommandRow& row = recorded_command(id);
  CommandSpec spec{std::string(row.key), {}, timeout};
  for (std::string_view word : row.argv)
    spec.argv.emplace_back(word);
  return spec;
}

std::span<const std::string_view> recorded_key_shapes() {
  return k_key_shapes;
}

std::string argv_as_shell_words(const std::vector<std::string_view>& argv) {
  std::string out;
  for (std::string_view word : argv) {
    if (!out.empty()) out += ' ';
    if (plain_word(word)) {
      out += word;
      continue;
    }
    out += '\'';
    for (char c : word)
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

} // namespace gpudoctor
