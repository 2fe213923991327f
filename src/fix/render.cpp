#include "fix/render.hpp"

#include "fix/script_text.hpp"
#include "system/config_files.hpp"
#include "util/escape.hpp"
#include "util/text.hpp"

#include <cstdint>

#include <fmt/format.h>

namespace gpudoctor::fix {

namespace {

std::string flags_of(const PlannedStep& s, const char* sep = " ") {
  std::vector<std::string> f;
  if (s.root) f.push_back("root");
  if (s.destructive) f.push_back("destructive");
  if (s.reboot) f.push_back("reboot");
  // The script puts back what the prepare stage added when one of its steps fails (fixes/lib.bash).
  if (s.stage == "prepare") f.push_back("prepare");
  return text::join(f, sep);
}

// The script's first lines after the header: root runs it, so the tools it calls by name come from the
// system's own folders (those of them that pass the trust rule: owned by root and writable by neither group
// nor others, up to /, before and after links), and nothing of the caller's environment that makes a loader,
// an interpreter or a tool run code or read another configuration reaches them. bash has read BASH_ENV and
// imported the caller's exported functions before the first line: the applier starts it with a clean
// environment (docs/security.md); here the functions are dropped and nothing the script starts sees either.
constexpr const char* k_preamble =
    R"PREAMBLE(# ---- a fixed PATH and an environment without the caller's hooks (docs/fixes.md, "The scripts") ----
IFS=$' \t\n'
# LD_*: the dynamic loader (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT); PYTHON*, PERL5LIB/PERLLIB/PERL5OPT,
# RUBYOPT/RUBYLIB, NODE_OPTIONS/NODE_PATH, BASH_ENV/ENV: what interpreters load or run first (apt's hooks,
# debconf, dnf, dkms and update-initramfs are such programs); APT_CONFIG, DPKG_*, DEBCONF_*: another
# configuration for the package manager (its hooks run as root); GCONV_PATH, LOCPATH, NLSPATH, GLIBC_TUNABLES:
# modules and data glibc loads; OPENSSL_CONF/OPENSSL_ENGINES/OPENSSL_MODULES: engines openssl loads;
# CURL_HOME, WGETRC, SSL_CERT_FILE, SSL_CERT_DIR, CURL_CA_BUNDLE, HOSTALIASES, LOCALDOMAIN, RES_OPTIONS: whom a
# download trusts and reaches; SYSTEMD_*, PAGER, MANPAGER, LESSOPEN, LESSCLOSE: programs tools start; TMPDIR:
# root's temporary files go to /tmp, never a folder the caller chose; CDPATH, GLOBIGNORE, PS4, BASH_XTRACEFD:
# what this script's own cd, globs and trace do.
unset -v "${!LD_@}" "${!PYTHON@}" "${!DPKG_@}" "${!DEBCONF_@}" "${!SYSTEMD_@}" BASH_ENV ENV APT_CONFIG   PERL5LIB PERLLIB PERL5OPT RUBYOPT RUBYLIB NODE_OPTIONS NODE_PATH GCONV_PATH LOCPATH NLSPATH GLIBC_TUNABLES   OPENSSL_CONF OPENSSL_ENGINES OPENSSL_MODULES CURL_HOME WGETRC SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE   HOSTALIASES LOCALDOMAIN RES_OPTIONS PAGER MANPAGER LESSOPEN LESSCLOSE TMPDIR CDPATH GLOBIGNORE PS4 BASH_XTRACEFD
# Functions the caller exported (bash imported them before this line) would stand in for commands.
while read -r _ _ gd_function; do unset -f -- "$gd_function"; done <<<"$(declare -F)"
unset -v gd_function
# As root, a folder of PATH counts only when it and every folder above it (as written and with links
# resolved) are root's and writable by neither group nor others: one realpath and one stat for them all.
gd_folders=(/usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin)
gd_path=
if ((EUID != 0)); then
  gd_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
else
  declare -A gd_root_only=()
  gd_parts=()
  gd_physical=()
  for gd_folder in "${gd_folders[@]}"; do
    gd_physical+=("$(/usr/bin/realpath -e -- "$gd_folder" 2>/dev/null || echo /nonexistent/"$gd_folder")")
  done
  for gd_folder in "${gd_folders[@]}" "${gd_physical[@]}"; do
    while [[ $gd_folder != / ]]; do
      gd_parts+=("$gd_folder")
      gd_folder=${gd_folder%/*}
      gd_folder=${gd_folder:-/}
    done
  done
  # A link is judged by the folder it stands in (its owner alone can replace it) and by where it leads.
  while IFS=: read -r gd_uid gd_mode gd_type gd_folder; do
    if [[ $gd_type == 'symbolic link' ]] || [[ $gd_uid == 0 && $(((8#$gd_mode & 8#022) == 0)) == 1 ]]; then
      gd_root_only[$gd_folder]=1
    fi
  done <<<"$(/usr/bin/stat -c '%u:%a:%F:%n' -- / "${gd_parts[@]}" 2>/dev/null)"
  for gd_i in "${!gd_folders[@]}"; do
    gd_folder=${gd_folders[gd_i]}
    gd_ok=1
    for gd_part in "$gd_folder" "${gd_physical[gd_i]}"; do
      while :; do
        [[ -n ${gd_root_only[$gd_part]:-} ]] || gd_ok=0
        [[ $gd_part == / ]] && break
        gd_part=${gd_part%/*}
        gd_part=${gd_part:-/}
      done
    done
    if ((gd_ok)); then
      gd_path=${gd_path:+$gd_path:}$gd_folder
    elif [[ -e $gd_folder ]]; then
      printf 'gpudoctor script: %s is left out of PATH: it or a folder above it is not only root'"'"'s to change\n' "$gd_folder" >&2
    fi
  done
  unset -v gd_root_only gd_parts gd_physical gd_uid gd_mode gd_type gd_i gd_ok gd_part
fi
export PATH=$gd_path
unset -v gd_folders gd_folder gd_path
)PREAMBLE";

// Words of `text` (from the facts: made one inert line first) wrapped at `width` columns, each line
// starting with `prefix`.
std::string wrap(const std::string& text, const std::string& first, const std::string& prefix,
                 std::size_t width = 110) {
  std::string out, line = first;
  bool empty = true;
  for (const auto& word : text::split(script_comment(text), ' ')) {
    if (!empty && line.size() + 1 + word.size() > width) {
      out += fmt::format("{}\n", line);
      line = prefix;
      empty = true;
    }
    line += fmt::format("{}{}", empty ? "" : " ", word);
    empty = false;
  }
  return fmt::format("{}{}\n", out, line);
}

std::string indent_body(const std::string& body) {
  // A here-document's lines must stay as written (its terminator at column 0).
  bool heredoc = opens_heredoc(body);
  std::string out;
  for (auto line : text::split(text::trim(body), '\n', true)) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t'))
      line.pop_back();
    out += fmt::format("{}{}\n", heredoc || line.empty() ? "" : "  ", line);
  }
  return out;
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// A bash array, one element per line.
std::string quoted_array(const std::vector<std::string>& words) {
  std::string out = "(\n";
  for (const auto& w : words)
    out += fmt::format("  {}\n", shell_quote(w));
  return out + ')';
}

std::string header(const Plan& plan, const std::string& version) {
  std::string h = "#!/usr/bin/env bash\n";
  // The helpers take lists that may be empty here (a step with nothing to remove of that kind).
  h += "# shellcheck disable=SC2119,SC2120\n";
  h += fmt::format("# gpudoctor {}: {}\n#\n", plan.kind == "fix" ? fmt::format("fix {}", plan.id) : "migrate",
                   script_comment(plan.title));
  for (std::size_t i = 0; i < plan.description.size(); ++i)
    h += wrap(plan.description[i], i == 0 ? "# What: " : "#       ", "#       ");
  if (plan.why.empty()) {
    h += "# Why:  asked for by name; no check of this machine points to it.\n";
  } else {
    for (std::size_t i = 0; i < plan.why.size(); ++i)
      h += wrap(plan.why[i], i == 0 ? "# Why:  " : "#       ", "#         ");
  }
  h += wrap(fmt::format("{}, {} ({} {}, {} family){}",
                        plan.host.empty() ? "any host" : fmt::format("host {}", plan.host), plan.os.name,
                        plan.os.id, plan.os.version, family_name(plan.os.family),
                        plan.kernel.empty() ? "" : fmt::format(", kernel {}", plan.kernel)),
            "# For:  ", "#       ");
  for (const auto& g : plan.gpus)
    h += fmt::format("#       {}\n", script_comment(g));
  if (plan.gpus.empty()) h += "#       no NVIDIA or AMD GPU on the PCI bus\n";
  h += fmt::format("# From: {}, by gpudoctor {}.\n", script_comment(plan.source), version);
  if (!plan.notes.empty()) {
    h += "#\n# Notes:\n";
    for (const auto& n : plan.notes)
      h += wrap(n, "#   - ", "#     ");
  }
  h += "#\n# Run it with --dry-run first: it prints every command and every change and changes nothing.\n";
  h += "# It refuses another OS release or host than the one above, writes a journal of every step to\n";
  h += "# /var/log/gpudoctor/<id>.journal, backs up every file it edits or removes under\n";
  h += "# /var/backups/gpudoctor/<id>/<run>/ (gpudoctor undo restores them), and a second run changes "
       "nothing.\n";
  h += "#\n# Steps (R: needs root, D: destructive, B: needs a reboot):\n";
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& s = plan.steps[i];
    std::string line = fmt::format("#  {:2}. {:<38} {}{}{}  ", i + 1, script_comment(s.id),
                                   s.root ? 'R' : '-', s.destructive ? 'D' : '-', s.reboot ? 'B' : '-');
    h += wrap(s.title, line, fmt::format("#{:50}", ""));
  }
  if (!plan.must_pass.empty())
    h += wrap(text::join(plan.must_pass, " "), "# Afterwards these checks must pass: ", "#   ");
  return h;
}

} // namespace

std::string profile_file_vars() {
  std::vector<std::string> home, system;
  for (const auto& row : config_files())
    if (row.cleaned) (row.in_home ? home : system).push_back(std::string(row.path));
  return fmt::format("# The files gd_clean_profiles edits: system/config_files.hpp's table.\n"
                     "GD_PROFILE_HOME_FILES={}\nGD_PROFILE_SYSTEM_FILES={}\n",
                     quoted_array(home), quoted_array(system));
}

Script render_script(const Plan& plan, const std::string& library, const std::string& version) {
  std::vector<std::string> ids, titles, flags;
  for (const auto& s : plan.steps) {
    ids.push_back(s.id);
    titles.push_back(script_comment(s.title)); // printed and journaled by the script: one inert line
    flags.push_back(flags_of(s));
  }
  // Every value from the facts goes through shell_quote; family_name is one of a fixed set of words.
  std::string vars =
      fmt::format("GD_FAMILY={}\n"
                  "GD_FOR_OS_ID={}\n"
                  "GD_FOR_OS_VERSION={}\n"
                  "GD_FOR_HOST={}\n"
                  "GD_KERNEL={}\n"
                  "GD_STEP_IDS={}\n"
                  "GD_STEP_TITLES={}\n"
                  "GD_STEP_FLAGS={}\n"
                  "{}",
                  family_name(plan.os.family), shell_quote(plan.os.id), shell_quote(plan.os.version),
                  shell_quote(plan.host), shell_quote(plan.kernel), quoted_array(ids), quoted_array(titles),
                  quoted_array(flags), profile_file_vars());

  std::string steps =
      "\n# ---- the steps ------------------------------------------------------------------------\n";
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& s = plan.steps[i];
    std::string f = flags_of(s, ", ");
    steps += fmt::format("\n# {}. {}{} ({})\n", i + 1, script_comment(s.title),
                         f.empty() ? "" : fmt::format(" [{}]", f), script_comment(s.where));
    steps += fmt::format("gd_step_{}() {{\n{}}}\n", i + 1, indent_body(s.body));
    steps += fmt::format("gd_verify_{}() {{\n{}}}\n", i + 1, indent_body(s.verify));
  }
  std::string body = fmt::format("{}\n{}{}\ngd_main \"$@\"\n", vars, library, steps);
  const std::string head = header(plan, version);
  Script script;
  script.id = fmt::format("{}-{:08x}", plan.id, fnv1a(head + k_preamble + body) & 0xffffffffULL);
  // Quoted: shellcheck reads an unquoted "purge-rocm-0be3c6dc" as arithmetic (SC2100).
  script.text =
      fmt::format("{}\n{}\nset -euo pipefail\n\nGD_SCRIPT_ID='{}'\n{}", head, k_preamble, script.id, body);
  return script;
}

std::string render_plan_summary(const Plan& plan) {
  using escape::one_line;
  std::string out = fmt::format("{} ({}, {} family)\n", one_line(plan.title), one_line(plan.os.name),
                                family_name(plan.os.family));
  for (const auto& w : plan.why)
    out += fmt::format("  because {}\n", one_line(w));
  for (const auto& n : plan.notes)
    out += fmt::format("  note: {}\n", one_line(n));
  out += "Steps (R: needs root, D: destructive, B: needs a reboot):\n";
  for (std::size_t i = 0; i < plan.steps.size(); ++i) {
    const auto& s = plan.steps[i];
    out += fmt::format("  {:2}. {}{}{} {}\n", i + 1, s.root ? 'R' : '-', s.destructive ? 'D' : '-',
                       s.reboot ? 'B' : '-', one_line(s.title));
  }
  return out;
}

} // namespace gpudoctor::fix
