// The commands a snapshot records under a fixed key (docs/snapshot.md, "Commands"): one row per key and
// argv, so that the collectors run, a replay looks up and the documentation names the same command
// (tests/unit/test_commands_recorded.cpp compares this table with docs/snapshot.md). Keys made per program
// or path (python-env@<program>, elf-needed@<path>, the probes') are listed by their shape.
#pragma once

#include "system/system_view.hpp"

#include <chrono>
#include <span>
#include <string_view>
#include <vector>

namespace gpudoctor {

enum class KeyedCommand {
  nvidia_smi_xml,
  nvidia_smi_q,
  nvidia_smi_table,
  nvidia_smi_list,
  rocminfo,
  nvcc_version,
  rpm_qa,
  rpm_provides,
  apt_cache_policy,
  dkms_status,
  mokutil_sb_state,
  docker_info_json,
  df_shm,
  dmesg,
  journal_kernel,
  journal_kernel_previous,
  modinfo_nvidia,
  systemctl_fabricmanager,
  ip_addr,
  nvidia_smi_nvlink_status,
  nvidia_smi_nvlink_errors,
};

// Where argv[0] is looked for.
enum class ProgramSearch {
  path, // on PATH (as root, the first copy root can trust: system/root_exec.hpp)
  sbin, // on PATH, else /usr/sbin, /sbin, /usr/bin: a tool a user's PATH often lacks (collect's sbin_program)
};

struct KeyedCommandRow {
  KeyedCommand id;
  std::string_view key;
  std::vector<std::string_view> argv;
  ProgramSearch search = ProgramSearch::path;
};

std::span<const KeyedCommandRow> keyed_commands();
const KeyedCommandRow& keyed_command(KeyedCommand id);

// The row's command with its argv as the table has it (argv[0] a bare name: sbin_program resolves a
// ProgramSearch::sbin row).
CommandSpec keyed_command_spec(KeyedCommand id, std::chrono::milliseconds timeout);

// The keys made per program, path or probe, as docs/snapshot.md writes them ("python-env@<program>").
std::span<const std::string_view> recorded_key_shapes();

// argv as a shell would read it, each word that needs it in single quotes: the form docs/snapshot.md shows.
std::string argv_as_shell_words(const std::vector<std::string_view>& argv);

} // namespace gpudoctor
