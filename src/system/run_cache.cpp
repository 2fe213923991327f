#include "system/run_cache.hpp"

#include "system/own_folder.hpp"
#include "system/process.hpp"
#include "system/root_exec.hpp"
#include "system/root_trust.hpp"
#include "util/atomic_file.hpp"
#include "util/file_text.hpp"
#include "util/hmac_sha256.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

constexpr int k_format = 1;
constexpr std::string_view k_suffix = ".json";

// What changes when a file is replaced, edited or re-linked: its stat, links followed; "absent" when none.
std::string stat_text(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "absent";
  return fmt::format("{}:{}:{}:{}.{}:{}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec,
                     st.st_mtim.tv_nsec, st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
}

// One entry per program, argv and account: a changed key replaces it, so the folder holds at most one
// answer per interpreter asked (and k_max_entries in all).
std::string entry_name(const CommandSpec& spec) {
  std::string id = fmt::format("{}\n{}", text::join(spec.argv, "\n"), ::geteuid());
  return to_hex(sha256(id)).substr(0, 32) + std::string(k_suffix);
}

Json untrusted_json(const std::vector<UntrustedProgram>& list) {
  Json out = Json::array();
  for (const auto& u : list)
    out.push_back({{"path", u.path}, {"why", u.why}, {"ran_as", u.ran_as}, {"instead", u.instead}});
  return out;
}

std::optional<std::vector<UntrustedProgram>> untrusted_of(const Json& j) {
  if (!j.is_array()) return std::nullopt;
  std::vector<UntrustedProgram> out;
  for (const auto& u : j) {
    auto path = json_string(u, "path"), why = json_string(u, "why"), ran_as = json_string(u, "ran_as"),
         instead = json_string(u, "instead");
    if (!path || !why || !ran_as || !instead) return std::nullopt;
    out.push_back({*path, *why, *ran_as, *instead});
  }
  return out;
}

} // namespace

std::optional<std::string> run_cache_folder(const std::map<std::string, std::string>& env) {
  if (env.contains("GPUDOCTOR_NO_CACHE")) return std::nullopt;
  // Root's own, whatever HOME or XDG_CACHE_HOME a sudo rule kept: a user's cache is never read as root.
  if (running_as_root()) return std::string("/var/cache/gpudoctor/interpreters");
  if (auto it = env.find("XDG_CACHE_HOME"); it != env.end() && text::starts_with(it->second, "/"))
    return it->second + "/gpudoctor/interpreters";
  auto home = home_of(::geteuid());
  if (auto it = env.find("HOME"); it != env.end() && text::starts_with(it->second, "/")) home = it->second;
  if (!home || home->empty()) return std::nullopt;
  return *home + "/.cache/gpudoctor/interpreters";
}

std::string run_cache_key(const CommandSpec& spec, const std::map<std::string, std::string>& env) {
  Json key = Json::object();
  key["format"] = k_format;
  key["argv"] = spec.argv;
  key["ids"] = {::getuid(), ::geteuid(), ::getgid(), ::getegid()};
  auto path_it = env.find("PATH");
  std::string path_var = path_it == env.end() ? "" : path_it->second;
  std::string program;
  if (!spec.argv.empty()) {
    if (running_as_root()) {
      ProgramChoice choice = choose_program(spec.argv[0], path_var, spec.as_owner_when_untrusted);
      program = choice.path;
      key["as_user"] = choice.as_user ? static_cast<long long>(choice.as_user->uid) : -1;
      key["untrusted"] = untrusted_json(choice.untrusted);
    } else {
      program = find_program(spec.argv[0], path_var);
    }
  }
  Json files = Json::object();
  files[program.empty() ? std::string("(program not found)") : program] = stat_text(program);
  if (spec.cache) {
    for (const auto& f : spec.cache->key_files)
      files[f] = stat_text(f);
    // The folders as named (not through links): where the interpreter itself looks for pyvenv.cfg.
    std::string folder = program.substr(0, program.find_last_of('/'));
    std::string above = folder.substr(0, folder.find_last_of('/'));
    if (!program.empty())
      for (const auto& name : spec.cache->beside_program)
        for (const std::string& dir : {folder, above})
          files[dir + "/" + name] = stat_text(dir + "/" + name);
  }
  key["program"] = program;
  key["files"] = std::move(files);
  Json vars = Json::object();
  if (spec.cache)
    for (const auto& [name, value] : env)
      if (variable_matches(name, spec.cache->key_env)) vars[name] = value;
  key["env"] = std::move(vars);
  return dump_json_exact(key).value_or(""); // a text that is not UTF-8: not remembered
}

RunCache::~RunCache() {
  if (m_fd >= 0) ::close(m_fd);
}

int RunCache::folder_fd() {
  std::lock_guard lock(m_mutex);
  if (m_fd == -2) {
    // gpudoctor's cache folder above it is 0755, as the fix scripts make it (docs/security.md).
    auto folder = open_own_folder(m_folder, true, "interpreter cache", 0755);
    m_fd = folder ? folder->fd : -1;
  }
  return m_fd;
}

std::optional<CommandResult> RunCache::find(const CommandSpec& spec, const std::string& key) {
  if (key.empty()) return std::nullopt;
  int dir = folder_fd();
  if (dir < 0) return std::nullopt;
  int fd = ::openat(dir, entry_name(spec).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  // Only what this account wrote, as a regular file nobody else can write.
  std::optional<std::string> why = distrust_open_record(fd, ::geteuid());
  std::expected<std::string, std::string> text = std::unexpected(why.value_or(""));
  if (!why) text = read_descriptor(fd, k_max_entry_bytes);
  ::close(fd);
  if (!text) return std::nullopt;
  auto entry = parse_json(*text);
  if (!entry || !entry->is_object() || json_string(*entry, "key") != key) return std::nullopt;
  auto watched = entry->find("watched");
  auto result = entry->find("result");
  if (watched == entry->end() || !watched->is_object() || result == entry->end() || !result->is_object())
    return std::nullopt;
  for (const auto& [path, stat] : watched->items())
    if (!stat.is_string() || stat.get<std::string>() != stat_text(path)) return std::nullopt;
  auto out = json_string(*result, "out"), err = json_string(*result, "err");
  auto exit_code = json_int(*result, "exit_code");
  auto untrusted = result->contains("untrusted") ? untrusted_of((*result)["untrusted"]) : std::nullopt;
  if (!out || !err || !exit_code || !untrusted) return std::nullopt;
  CommandResult r;
  r.key = spec.key;
  r.argv = spec.argv;
  r.found = true;
  r.exit_code = static_cast<int>(*exit_code);
  r.timeout_ms = static_cast<long>(spec.timeout.count());
  r.out = std::move(*out);
  r.err = std::move(*err);
  r.untrusted = std::move(*untrusted);
  r.cached = true;
  return r;
}

void RunCache::keep(const CommandSpec& spec, const std::string& key, const CommandResult& result) {
  if (key.empty() || !result.ok() || result.truncated || result.cached) return;
  int dir = folder_fd();
  if (dir < 0) return;
  Json watched = Json::object();
  if (spec.cache && spec.cache->watched)
    for (const auto& path : spec.cache->watched(result.out))
      if (text::starts_with(path, "/")) watched[path] = stat_text(path);
  Json entry = {{"key", key},
                {"watched", std::move(watched)},
                {"result",
                 {{"exit_code", *result.exit_code},
                  {"out", result.out},
                  {"err", result.err},
                  {"untrusted", untrusted_json(result.untrusted)}}}};
  auto content = dump_json_exact(entry);
  if (!content || content->size() > k_max_entry_bytes) return;
  std::string name = entry_name(spec);
  (void)replace_in_folder(dir, name, m_folder + "/" + name, 0600, fill_with(*content));
  // Bounded: past k_max_entries, the least recently written entries go.
  std::lock_guard lock(m_mutex);
  auto names = folder_names(dir, m_folder);
  if (!names) return;
  std::vector<std::pair<long long, std::string>> entries;
  for (const auto& n : *names) {
    struct stat st {};
    if (text::ends_with(n, k_suffix) && ::fstatat(dir, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(st.st_mode))
      entries.emplace_back(static_cast<long long>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec, n);
  }
  if (entries.size() <= k_max_entries) return;
  std::sort(entries.begin(), entries.end());
  for (std::size_t i = 0; i + k_max_entries < entries.size(); ++i)
    ::unlinkat(dir, entries[i].second.c_str(), 0);
}

} // namespace gpudoctor
