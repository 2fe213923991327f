#include "system/commands_recorded.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

// The journal's kernel messages of this boot (0) or the one before (-1), with ISO timestamps: the same lines
// dmesg prints, which parse::kernel_log reads either way.
const std::vector<KeyedCommandRow> k_keyed_commands = {
    {KeyedCommand::nvidia_smi_xml, "nvidia-smi-xml", {"nvidia-smi", "-q", "-x"}},
    {KeyedCommand::nvidia_smi_q, "nvidia-smi-q", {"nvidia-smi", "-q"}},
    {KeyedCommand::nvidia_smi_table, "nvidia-smi", {"nvidia-smi"}},
    {KeyedCommand::nvidia_smi_list, "nvidia-smi-L", {"nvidia-smi", "-L"}},
    {KeyedCommand::rocminfo, "rocminfo", {"rocminfo"}},
    {KeyedCommand::nvcc_version, "nvcc-version", {"nvcc", "--version"}},
    // rpm expands the \n itself: the argument holds a backslash and an n.
    {KeyedCommand::rpm_qa, "rpm-qa", {"rpm", "-qa", "--queryformat", "%{NAME} %{VERSION}-%{RELEASE}\\n"}},
    {KeyedCommand::rpm_provides,
     "rpm-provides",
     {"rpm", "-qa", "--queryformat", "[%{NAME}\\tP\\t%{PROVIDES}\\n][%{NAME}\\tR\\t%{REQUIRES}\\n]"}},
    // Followed by the names of the installed packages that may be a stack's (collect/inventory_packages.cpp).
    {KeyedCommand::apt_cache_policy, "apt-cache-policy", {"apt-cache", "policy"}},
    {KeyedCommand::dkms_status, "dkms-status", {"dkms", "status"}, ProgramSearch::sbin},
    {KeyedCommand::mokutil_sb_state, "mokutil-sb-state", {"mokutil", "--sb-state"}, ProgramSearch::sbin},
    {KeyedCommand::docker_info_json, "docker-info-json", {"docker", "info", "--format", "{{json .}}"}},
    {KeyedCommand::df_shm, "df-shm", {"df", "-Pk", "/dev/shm"}},
    {KeyedCommand::dmesg, "dmesg", {"dmesg"}},
    // Asked under dmesg's key where dmesg may not or cannot run: a replay takes the later run, as live did.
    {KeyedCommand::journal_kernel, "dmesg", {"journalctl", "-k", "-b", "0", "-o", "short-iso", "--no-pager"}},
    {KeyedCommand::journal_kernel_previous,
     "journal-kernel-previous",
     {"journalctl", "-k", "-b", "-1", "-o", "short-iso", "--no-pager"}},
    {KeyedCommand::modinfo_nvidia, "modinfo-nvidia", {"modinfo", "nvidia"}, ProgramSearch::sbin},
    {KeyedCommand::systemctl_fabricmanager,
     "systemctl-fabricmanager",
     {"systemctl", "is-active", "nvidia-fabricmanager"}},
    // The addresses NCCL/RCCL choose an interface among (env.nccl-socket-default).
    {KeyedCommand::ip_addr, "ip-addr", {"ip", "-o", "addr", "show"}, ProgramSearch::sbin},
    // Each GPU's NVLinks, active or not (gpu.nvlink-down).
    {KeyedCommand::nvidia_smi_nvlink_status, "nvidia-smi-nvlink-s", {"nvidia-smi", "nvlink", "-s"}},
    // Their error counters, where a link is active (gpu.nvlink-errors).
    {KeyedCommand::nvidia_smi_nvlink_errors, "nvidia-smi-nvlink-e", {"nvidia-smi", "nvlink", "-e"}},
};

const std::string_view k_key_shapes[] = {
    "python-env@<program>",     "elf-needed@<path>",     "history-previous",
    "probe-<name>@cuda",        "probe-<name>@hip",      "python-gpu",
    "probe-compiler@<backend>", "probe-build@<backend>", "probe-build@<backend>-kernels",

};

bool plain_shell_word(std::string_view word) {
  return !word.empty() && std::ranges::all_of(word, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("-_./=,:@%+").find(c) != std::string_view::npos;
  });
}

} // namespace

std::span<const KeyedCommandRow> keyed_commands() {
  return k_keyed_commands;
}

const KeyedCommandRow& keyed_command(KeyedCommand id) {
  auto it = std::ranges::find(k_keyed_commands, id, &KeyedCommandRow::id);
  return *it; // every enumerator has its row (test_commands_recorded)
}

CommandSpec keyed_command_spec(KeyedCommand id, std::chrono::milliseconds timeout) {
  const KeyedCommandRow& row = keyed_command(id);
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
    if (plain_shell_word(word)) {
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
