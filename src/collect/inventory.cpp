// Reads what each vendor's stack left where: packages (dpkg or rpm), DKMS, folders, update-alternatives,
// package sources, keys and pins, ld.so.conf.d, modprobe.d, ICD files, and the users' homes.
#include "collect/inventory.hpp"

#include "collect/container_config.hpp"
#include "collect/inventory_packages.hpp"
#include "collect/profile_assignments.hpp"
#include "parse/parsers_system.hpp"
#include "system/shell_profiles.hpp"
#include "util/linear_regex.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

namespace gpudoctor {

namespace {

bool is_comment_or_blank(const std::string& line) {
  std::string t = text::trim(line);
  return t.empty() || t[0] == '#';
}

void add_unique(std::vector<std::string>& list, const std::string& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

std::vector<std::string> children(SystemView& view, const std::string& dir) {
  auto names = view.list_dir(dir);
  return names ? *names : std::vector<std::string>{};
}

// Packages whose configuration files are all that is left (dpkg status "deinstall ok config-files").
std::vector<std::string> dpkg_config_only(SystemView& view) {
  std::vector<std::string> out;
  auto status = view.read_file("/var/lib/dpkg/status");
  if (!status) return out;
  std::string name;
  for (const auto& line : text::lines(*status)) {
    if (text::starts_with(line, "Package: ")) name = text::trim(line.substr(9));
    if (text::starts_with(line, "Status: ") && text::ends_with(text::trim(line), " config-files") &&
        !name.empty())
      out.push_back(name);
  }
  return out;
}

bool blank(char c) {
  return c == ' ' || c == '\t';
}

// The key file a one-line apt entry names: "deb [arch=amd64 signed-by=/etc/apt/keyrings/x.gpg] ..." (up to
// the next blank or ']'). A linear scan: lines are data of any length.
std::string one_line_signed_by(const std::string& line) {
  auto at = line.find("signed-by=");
  if (at == std::string::npos) return {};
  auto start = at + 10, end = start;
  while (end < line.size() && line[end] != ']' && !blank(line[end]))
    ++end;
  return line.substr(start, end - start);
}

// The key file of a deb822 stanza line "Signed-By: /usr/share/keyrings/x.gpg" (field names are
// case-insensitive); only a path counts, not an inline key block.
std::string deb822_signed_by(const std::string& line) {
  std::size_t i = 0;
  while (i < line.size() && blank(line[i]))
    ++i;
  if (text::lower(std::string_view(line).substr(i, 10)) != "signed-by:") return {};
  i += 10;
  while (i < line.size() && blank(line[i]))
    ++i;
  if (i >= line.size() || line[i] != '/') return {};
  auto end = i;
  while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end])))
    ++end;
  return line.substr(i, end - i);
}

// The variable a profile line assigns ("  export NAME=..." or "NAME=..."), or "".
// Whether an ld.so.conf line is one folder matching `folders` (an ERE), or a folder below one: the line
// holds one word, and the word or a part of it ending before a '/' matches.
bool names_folder(const std::string& line, const LinearRegex& folders) {
  std::string word = text::trim(line);
  if (word.empty() || std::any_of(word.begin(), word.end(),
                                  [](char c) { return std::isspace(static_cast<unsigned char>(c)); }))
    return false;
  if (folders.full_match(word)) return true;
  for (std::size_t slash = word.find('/', 1); slash != std::string::npos; slash = word.find('/', slash + 1))
    if (folders.full_match(std::string_view(word).substr(0, slash))) return true;
  return false;
}

std::vector<std::string> vendor_hosts(const Knowledge& kb, const std::string& vendor) {
  std::vector<std::string> hosts;
  for (const auto& r : kb.vendor_repos)
    if (r.vendor == vendor) hosts.push_back(r.host);
  return hosts;
}

bool names_host(const std::string& line, const std::vector<std::string>& hosts) {
  return std::any_of(hosts.begin(), hosts.end(),
                     [&](const std::string& h) { return text::contains(line, h); });
}

// Package sources: whole files of the vendor, files with some of its lines, and the keys they name.
void read_sources(SystemView& view, const std::string& vendor, StackInventory& inv) {
  std::vector<std::string> files = {"/etc/apt/sources.list"};
  for (const auto& n : children(view, "/etc/apt/sources.list.d"))
    if (text::ends_with(n, ".list") || text::ends_with(n, ".sources"))
      files.push_back("/etc/apt/sources.list.d/" + n);
  for (const auto& n : children(view, "/etc/yum.repos.d"))
    if (text::ends_with(n, ".repo")) files.push_back("/etc/yum.repos.d/" + n);
  for (const auto& file : files) {
    auto content = view.read_file(file);
    if (!content) continue;
    bool marked = text::contains(*content, "gpudoctor-vendor: " + vendor);
    int ours = 0, others = 0;
    for (const auto& line : text::lines(*content)) {
      if (is_comment_or_blank(line)) continue;
      bool mine = marked || names_host(line, inv.hosts);
      if (text::ends_with(file, ".list") || file == "/etc/apt/sources.list" ||
          text::ends_with(file, ".sources")) {
        bool entry =
            text::starts_with(text::trim(line), "deb") || text::starts_with(text::trim(line), "URIs:");
        if (entry) (mine ? ours : others)++;
      } else if (mine) {
        ours++;
      }
      if (!mine) continue;
      std::string key = one_line_signed_by(line);
      if (key.empty()) key = deb822_signed_by(line);
      if (!key.empty() && view.exists(key)) add_unique(inv.keyrings, key);
    }
    if (ours == 0) continue;
    bool whole = others == 0 && file != "/etc/apt/sources.list";
    add_unique(whole ? inv.sources : inv.source_edits, file);
  }
}

void read_dkms(SystemView& view, const Facts& facts, const VendorStack& stack, StackInventory& inv) {
  auto ours = [&](const std::string& module) {
    return std::any_of(stack.dkms.begin(), stack.dkms.end(), [&](const std::string& m) {
      return module == m || text::starts_with(module, m + "-");
    });
  };
  for (const auto& d : facts.boot.dkms)
    if (ours(d.module) && !d.version.empty()) add_unique(inv.dkms, d.module + "/" + d.version);
  for (const auto& module : children(view, "/var/lib/dkms")) {
    if (!ours(module)) continue;
    for (const auto& version : children(view, "/var/lib/dkms/" + module)) {
      if (version == "source" || version == "kernel") continue;
      add_unique(inv.dkms, module + "/" + version);
      add_unique(inv.trees, "/var/lib/dkms/" + module + "/" + version);
    }
  }
  for (const auto& name : children(view, "/usr/src"))
    for (const auto& m : stack.dkms)
      if (text::starts_with(name, m + "-") && name.size() > m.size() + 1 &&
          std::isdigit(static_cast<unsigned char>(name[m.size() + 1])))
        add_unique(inv.trees, "/usr/src/" + name);
}

void read_trees(SystemView& view, const Facts& facts, const std::string& vendor, StackInventory& inv) {
  std::string top = vendor == "amd" ? "/opt/rocm" : "/usr/local/cuda";
  if (vendor == "amd") {
    for (const auto& r : facts.toolkits.rocm)
      if (!r.distribution_package && text::starts_with(r.path, top)) add_unique(inv.trees, r.path);
  } else {
    for (const auto& c : facts.toolkits.cuda)
      if (text::starts_with(c.path, top)) add_unique(inv.trees, c.path);
  }
  if (view.read_link(top) || view.exists(top)) add_unique(inv.trees, top);
}

void read_config_dirs(SystemView& view, const VendorStack& stack, StackInventory& inv) {
  for (const auto& name : children(view, "/etc/alternatives"))
    if (text::matches_any_glob(stack.alternatives, name)) inv.alternatives.push_back(name);
  for (const auto& name : children(view, "/etc/apt/preferences.d")) {
    auto content = view.read_file("/etc/apt/preferences.d/" + name);
    if (content && names_host(*content, inv.hosts)) inv.pins.push_back("/etc/apt/preferences.d/" + name);
  }
  auto folder = LinearRegex::compile(stack.profile_paths);
  for (const auto& name : children(view, "/etc/ld.so.conf.d")) {
    if (!text::ends_with(name, ".conf")) continue;
    auto content = view.read_file("/etc/ld.so.conf.d/" + name);
    if (!content) continue;
    for (const auto& line : text::lines(*content))
      if (folder && !is_comment_or_blank(line) && names_folder(line, *folder)) {
        inv.ld_conf.push_back("/etc/ld.so.conf.d/" + name);
        break;
      }
  }
  for (const auto& name : children(view, "/etc/modprobe.d")) {
    if (!text::ends_with(name, ".conf")) continue;
    auto content = view.read_file("/etc/modprobe.d/" + name);
    if (!content) continue;
    int ours = 0, others = 0;
    for (const auto& line : text::lines(*content)) {
      if (is_comment_or_blank(line)) continue;
      auto words = text::split(text::trim(line), ' ');
      bool mine = words.size() >= 2 && std::find(stack.modprobe_modules.begin(), stack.modprobe_modules.end(),
                                                 words[1]) != stack.modprobe_modules.end();
      (mine ? ours : others)++;
    }
    if (ours > 0 && others == 0) inv.modprobe.push_back("/etc/modprobe.d/" + name);
  }
  for (const auto& glob : stack.icd) {
    auto slash = glob.find_last_of('/');
    std::string dir = glob.substr(0, slash), pattern = glob.substr(slash + 1);
    for (const auto& name : children(view, dir))
      if (text::glob_match(pattern, name)) inv.icd.push_back(dir + "/" + name);
  }
  for (const auto& k : stack.keyrings)
    if (view.exists(k)) add_unique(inv.keyrings, k);
}

// NVIDIA's runtime in Docker's and containerd's configuration, and its CDI specs.
void read_containers(SystemView& view, const VendorStack& stack, StackInventory& inv) {
  if (stack.vendor != "nvidia") return;
  struct Engine {
    std::string file;
    std::optional<std::string> (*edit)(const std::string&);
    const char* what;
  };
  // The system daemon's daemon.json (a rootless daemon's is its user's to change).
  std::vector<Engine> engines;
  for (const auto& file : config_paths(ConfigUse::docker_daemon, ""))
    engines.push_back({file, docker_without_nvidia, "Docker"});
  engines.push_back({"/etc/containerd/config.toml", containerd_without_nvidia, "containerd"});
  for (const Engine& e : engines) {
    auto content = view.read_file(e.file);
    if (!content) continue;
    if (auto edited = e.edit(*content)) {
      inv.container_edits.insert(inv.container_edits.end(), {e.file, base64(*content), base64(*edited)});
    } else if (text::contains(*content, "nvidia")) {
      inv.notes.push_back(e.file + " names nvidia but gpudoctor cannot read it as " + e.what +
                          "'s configuration: left as it is; remove NVIDIA's runtime from it by hand");
    }
  }
  for (const char* dir : {"/etc/cdi", "/var/run/cdi"})
    for (const auto& name : children(view, dir))
      if (text::starts_with(name, "nvidia") &&
          (text::ends_with(name, ".yaml") || text::ends_with(name, ".json")))
        inv.cdi.push_back(std::string(dir) + "/" + name);
}

void read_user_caches(SystemView& view, const VendorStack& stack, const std::vector<std::string>& homes,
                      StackInventory& inv) {
  for (const auto& rel : stack.user_caches)
    for (const auto& home : homes)
      if (auto st = view.stat(home + "/" + rel); st && st->type == FileType::dir) {
        add_unique(inv.user_caches, rel);
        break;
      }
}

StackInventory read_stack(SystemView& view, const Facts& facts, const Knowledge& kb, const Stacks& stacks,
                          const VendorStack& stack, const std::vector<std::string>& config_only,
                          const PkgGraph& graph) {
  StackInventory inv;
  inv.hosts = vendor_hosts(kb, stack.vendor);
  read_stack_packages(view, facts, stacks, stack, graph, inv);
  for (const auto& name : config_only)
    if (vendor_package(stacks, stack, name)) inv.config_packages.push_back(name);
  read_dkms(view, facts, stack, inv);
  read_trees(view, facts, stack.vendor, inv);
  read_sources(view, stack.vendor, inv);
  read_config_dirs(view, stack, inv);
  read_containers(view, stack, inv);
  return inv;
}

std::vector<std::string> login_homes(SystemView& view, const Facts& facts) {
  std::set<std::string> homes;
  if (auto passwd = view.read_file("/etc/passwd")) {
    for (const auto& account : parse::passwd(*passwd)) {
      const auto& uid = account.uid;
      bool login = uid && (*uid == 0 || (*uid >= 1000 && *uid < 65534));
      bool shell = !text::ends_with(account.shell, "nologin") && !text::ends_with(account.shell, "/false");
      if (!login || !shell || account.home.empty() || account.home[0] != '/') continue;
      if (auto st = view.stat(account.home); st && st->type == FileType::dir) homes.insert(account.home);
    }
  }
  if (homes.empty() && !facts.permissions.identity.home.empty())
    homes.insert(facts.permissions.identity.home);
  return {homes.begin(), homes.end()};
}

// The stanzas of apt's preferences that name packages: /etc/apt/preferences and the files of
// /etc/apt/preferences.d apt reads (no extension, or .pref), fields as written (apt_preferences(5)).
std::vector<AptPin> apt_pins(SystemView& view) {
  std::vector<std::string> files = {"/etc/apt/preferences"};
  for (const auto& name : children(view, "/etc/apt/preferences.d"))
    if (name.find('.') == std::string::npos || text::ends_with(name, ".pref"))
      files.push_back("/etc/apt/preferences.d/" + name);
  std::vector<AptPin> out;
  for (const auto& file : files) {
    auto content = view.read_file(file);
    if (!content) continue;
    AptPin pin{file, {}, {}, {}};
    auto flush = [&] {
      if (!pin.packages.empty()) out.push_back(pin);
      pin = AptPin{file, {}, {}, {}};
    };
    for (const auto& line : text::lines(*content)) {
      std::string t = text::trim(line);
      if (t.empty()) {
        flush();
        continue;
      }
      auto colon = t.find(':');
      if (t[0] == '#' || colon == std::string::npos) continue;
      std::string key = text::lower(std::string_view(t).substr(0, colon));
      std::string value = text::trim(t.substr(colon + 1));
      if (key == "package") pin.packages = value;
      if (key == "pin") pin.pin = value;
      if (key == "pin-priority") pin.priority = value;
    }
    flush();
  }
  return out;
}

// The variables the system-wide profiles and /etc/nccl.conf set; `not_read` gets the profiles left out for
// a bound (system/input_limits.hpp). nccl.conf is no shell profile: read as the NCCL collector reads it.
std::vector<ProfileAssignment> system_assignments(SystemView& view, std::vector<std::string>& not_read) {
  ShellProfiles profiles = read_shell_profiles(view, "");
  not_read = std::move(profiles.not_read);
  for (const auto& path : config_paths(ConfigUse::nccl, ""))
    if (auto nccl = view.read_file(path))
      profiles.files.push_back({path, std::move(*nccl), ConfigFormat::nccl});
  std::vector<ProfileAssignment> out;
  for (const auto& file : profiles.files)
    for (const auto& a : profile_assignments(file).assignments)
      out.push_back({file.path, a.name});
  return out;
}

} // namespace

bool vendor_package(const Stacks& stacks, const VendorStack& stack, const std::string& name) {
  if (!text::matches_any_glob(stack.packages, name)) return false;
  return std::none_of(stacks.vendors.begin(), stacks.vendors.end(),
                      [&](const VendorStack& v) { return text::matches_any_glob(v.keep, name); });
}

Inventory take_inventory(SystemView& view, const Facts& facts, const Knowledge& kb, const Stacks& stacks) {
  // What a purge removes is computed on the whole package graph: none is better than a partial one.
  if (!facts.packages.over_limit.empty())
    throw std::runtime_error(facts.packages.over_limit + ": no inventory is taken without the whole list");
  Inventory inv;
  std::vector<std::string> config_only;
  if (facts.packages.manager == "dpkg") config_only = dpkg_config_only(view);
  PkgGraph graph = read_package_graph(view, facts, kb, stacks);
  if (const auto* amd = stacks.vendor("amd"))
    inv.amd = read_stack(view, facts, kb, stacks, *amd, config_only, graph);
  if (const auto* nv = stacks.vendor("nvidia"))
    inv.nvidia = read_stack(view, facts, kb, stacks, *nv, config_only, graph);
  inv.homes = login_homes(view, facts);
  for (auto* stack_inv : {&inv.amd, &inv.nvidia})
    if (const auto* stack = stacks.vendor(stack_inv == &inv.amd ? "amd" : "nvidia"))
      read_user_caches(view, *stack, inv.homes, *stack_inv);
  std::vector<std::string> not_read;
  inv.system_assignments = system_assignments(view, not_read);
  for (const auto& why : not_read)
    for (auto* stack_inv : {&inv.amd, &inv.nvidia})
      stack_inv->notes.push_back(why +
                                 ": not read, so the plan does not know what it sets; look at it by hand");
  if (facts.packages.manager == "dpkg") inv.apt_pins = apt_pins(view);
  return inv;
}

} // namespace gpudoctor
