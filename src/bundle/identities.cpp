#include "bundle/identities.hpp"

#include "parse/parsers_system.hpp"
#include "system/snapshot.hpp"
#include "util/file_text.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

namespace gpudoctor {

namespace fs = std::filesystem;

namespace {

constexpr std::uintmax_t k_max_text_bytes = 64u << 20;

// Words a snapshot needs as they are: parts of the paths collectors read, names of the GPU stack and of
// system accounts. A user or host of that name identifies no one, and renaming the word would break replay.
const std::set<std::string, std::less<>>& vocabulary() {
  static const std::set<std::string, std::less<>> words = {
      "root",       "localhost", "localdomain", "nobody",   "user",    "users",      "admin",    "home",
      "bin",        "sbin",      "lib",         "lib64",    "usr",     "etc",        "opt",      "var",
      "tmp",        "dev",       "sys",         "proc",     "run",     "srv",        "mnt",      "media",
      "snap",       "local",     "share",       "include",  "misc",    "hwdata",     "firmware", "module",
      "modules",    "class",     "bus",         "pci",      "devices", "driver",     "drivers",  "net",
      "infiniband", "drm",       "kfd",         "topology", "nodes",   "properties", "io_links", "ports",
      "state",      "version",   "status",      "dpkg",     "apt",     "yum",        "pip",      "xdg",
      "shm",        "wsl",       "kernel",      "linux",    "vm",      "host",       "nvidia",   "amd",
      "amdgpu",     "cuda",      "rocm",        "hip",      "gpu",     "docker",     "render",   "video",
      "nouveau",    "nccl",      "rccl",        "torch",    "python",  "python3",    "conda",    "venv"};
  return words;
}

std::string trimmed(std::string_view s) {
  return text::trim(s);
}

// os-release's ID, ID_LIKE and codenames: "ubuntu", "debian", "jammy".
std::set<std::string, std::less<>> distribution_words(const fs::path& root) {
  std::set<std::string, std::less<>> words;
  for (const char* file : {"etc/os-release", "usr/lib/os-release"})
    for (const auto& [key, value] : text::key_values(read_whole_file(root / file).value_or("")))
      if (key == "ID" || key == "ID_LIKE" || key == "VERSION_CODENAME" || key == "UBUNTU_CODENAME")
        for (const auto& w : text::split(value, ' '))
          words.insert(text::lower(w));
  return words;
}

// A serial or an id as tools print it: 4 to 64 of [A-Za-z0-9_.-], a digit in it, not all zeros.
bool serial_like(std::string_view v) {
  if (v.size() < 4 || v.size() > 64) return false;
  bool has_digit = false, non_zero = false;
  for (std::size_t k = 0; k < v.size(); ++k) {
    char c = v[k];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') return false;
    has_digit = has_digit || std::isdigit(static_cast<unsigned char>(c));
    non_zero = non_zero || (c != '0' && c != '-' && c != '.' && !(k == 1 && (c == 'x' || c == 'X')));
  }
  return has_digit && non_zero;
}

class Finder {
public:
  explicit Finder(Identities& out) : m_out(out) {}

  // "<serial>X</serial>", "\"Serial Number\": \"X\"", "Serial Number : X", "\"Unique ID\": \"0x..\"",
  // "unique_id 8776..." (KFD properties): the value after a key that names a serial or a unique id.
  void scan(std::string_view content) {
    std::string lower = text::lower(content);
    for (std::string_view key : {"serial", "unique id", "unique_id", "uniqueid"})
      for (std::size_t p = lower.find(key); p != std::string::npos; p = lower.find(key, p + 1))
        value_after(content, p, p + key.size(), key != "serial");
  }

  // `decimal_form`: KFD's "unique_id <decimal>"; elsewhere a unique id is hex.
  void add_value(std::string_view value, bool unique_id, bool decimal_form = false) {
    std::string v = trimmed(value);
    if (!serial_like(v)) return;
    bool prefixed = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
    bool digits = v.find_first_not_of("0123456789") == std::string::npos;
    bool hex = v.find_first_not_of("0123456789abcdefABCDEF", prefixed ? 2 : 0) == std::string::npos;
    if ((prefixed && hex) || (unique_id && hex)) {
      bool decimal = digits && (decimal_form || v.size() > 16);
      for (const auto& id : m_out.gpu_ids)
        if (id.value == v) return;
      m_out.gpu_ids.push_back({v, decimal});
    } else if (std::find(m_out.serials.begin(), m_out.serials.end(), v) == m_out.serials.end()) {
      m_out.serials.push_back(v);
    }
  }

private:
  void value_after(std::string_view s, std::size_t key_begin, std::size_t q, bool unique_id) {
    // The rest of the key: "_number", " Number", "Number".
    while (q < s.size() && (std::isalpha(static_cast<unsigned char>(s[q])) || s[q] == '_'))
      ++q;
    if (q + 7 <= s.size() && text::lower(s.substr(q, 7)) == " number") q += 7;
    bool line_start = key_begin == 0 || s[key_begin - 1] == '\n';
    while (q < s.size() && (s[q] == '"' || s[q] == ' ' || s[q] == '\t'))
      ++q;
    bool separated = q < s.size() && (s[q] == ':' || s[q] == '=' || s[q] == '>');
    if (!separated && !(unique_id && line_start)) return; // "serial8250: ttyS0" is no serial
    if (separated) ++q;
    while (q < s.size() && (s[q] == '"' || s[q] == ' ' || s[q] == '\t'))
      ++q;
    std::size_t end = q;
    while (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_' ||
                              s[end] == '.' || s[end] == '-'))
      ++end;
    add_value(s.substr(q, end - q), unique_id, unique_id && !separated);
  }

  Identities& m_out;
};

void add_name(std::vector<std::string>& list, const std::string& name) {
  if (!name.empty() && std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

// The last part of a home that is not root's ("/srv/users/alice" -> "alice"; "/root" -> none).
std::string home_owner(std::string home) {
  while (home.size() > 1 && home.back() == '/')
    home.pop_back();
  if (home == "/root" || home.empty() || home == "/") return {};
  return home.substr(home.find_last_of('/') + 1);
}

// The recorded /etc/passwd's ordinary accounts (a uid in login.defs' range: people and their services, not
// the system's), each with the name of its GECOS field ("Ada Lovelace,,," -> "Ada Lovelace"); how many system
// accounts were left. System accounts (root, daemon, render's users) identify no one and the checks read
// some of them.
struct Accounts {
  std::vector<std::string> names;
  std::size_t system = 0;
};
Accounts recorded_accounts(const fs::path& root) {
  Accounts out;
  auto [uid_min, uid_max] =
      parse::login_defs_uid_range(read_whole_file(root / "etc/login.defs").value_or(""));
  for (const auto& account : parse::passwd(read_whole_file(root / "etc/passwd").value_or(""))) {
    if (!account.uid) continue;
    if (*account.uid < uid_min || *account.uid > uid_max) {
      ++out.system;
      continue;
    }
    out.names.push_back(account.name);
    if (std::string full = account.full_name(); full != account.name) out.names.push_back(full);
  }
  return out;
}

} // namespace

Identities find_identities(const fs::path& dir) {
  Identities out;
  Identity id;
  if (auto j = parse_json(read_whole_file(dir / "identity.json").value_or("")); j && j->is_object())
    id = snapshot::identity_from_json(*j);
  Json env = parse_json(read_whole_file(dir / "env.json").value_or("")).value_or(Json::object());
  auto var = [&](const char* name) { return env.is_object() ? json_string(env, name).value_or("") : ""; };

  std::vector<std::string> hosts = {id.hostname, var("HOSTNAME"),
                                    trimmed(read_whole_file(dir / "fs/etc/hostname").value_or(""))};
  std::vector<std::string> users = {id.user,         var("SUDO_USER"),    var("LOGNAME"),         var("USER"),
                                    var("USERNAME"), home_owner(id.home), home_owner(var("HOME"))};
  auto protected_words = distribution_words(dir / "fs");
  auto keep = [&](const std::string& name, const char* what) {
    std::string lower = text::lower(name);
    bool needed = vocabulary().count(lower) || protected_words.count(lower) || name.size() < 2;
    if (needed && name != "root" && name != "localhost")
      add_name(out.kept,
               fmt::format("{} '{}' is left as it is: it is also a word the snapshot needs", what, name));
    return needed;
  };
  for (const auto& h : hosts) {
    if (h.empty() || keep(h, "host name")) continue;
    add_name(out.hosts, h);
    if (auto dot = h.find('.'); dot != std::string::npos && dot > 0 && !keep(h.substr(0, dot), "host name"))
      add_name(out.hosts, h.substr(0, dot));
  }
  auto accounts = recorded_accounts(dir / "fs");
  users.insert(users.end(), accounts.names.begin(), accounts.names.end());
  for (const auto& u : users)
    if (!u.empty() && !keep(u, "user name")) add_name(out.users, u);
  if (accounts.system > 0)
    add_name(out.kept,
             fmt::format("{} system accounts of /etc/passwd (a uid outside login.defs' UID_MIN..UID_MAX: "
                         "root, daemon, ...) are left as they are: they name no one, and the checks "
                         "read some",
                         accounts.system));

  Finder finder(out);
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->is_symlink(ec) || it->file_size(ec) > k_max_text_bytes) continue;
    std::string name = it->path().filename().string();
    if (name == "manifest.json" || name == "identity.json") continue;
    std::string content = read_whole_file(it->path()).value_or("");
    if (content.find('\0') != std::string::npos) continue;
    if (name == "serial_number" || name == "unique_id" || name == "product_serial")
      finder.add_value(content, name == "unique_id");
    else
      finder.scan(content);
  }
  return out;
}

} // namespace gpudoctor
