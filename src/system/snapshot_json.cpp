#include "system/snapshot_json.hpp"

#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::snapshot {

namespace {

std::string mib(std::uint64_t bytes) {
  return fmt::format("{} MiB", bytes >> 20);
}

// Parses one file's text within its byte and value limits; on failure `error` names the file.
std::optional<Json> parse_file(std::string_view text, const char* name, std::uint64_t max_bytes,
                               std::size_t max_values, std::string& error) {
  if (text.size() > max_bytes) {
    error = fmt::format("{} is larger than {}: refused", name, mib(max_bytes));
    return std::nullopt;
  }
  Json j;
  JsonLimits limits;
  limits.max_values = max_values;
  std::string why;
  if (!parse_json_into(text, j, why, limits)) {
    error = fmt::format("{} is not valid JSON: {}", name, why);
    return std::nullopt;
  }
  return j;
}

} // namespace

Json manifest_to_json(const Manifest& m) {
  Json j = Json::object();
  j["format"] = k_format;
  j["version"] = k_version;
  j["created"] = m.created;
  j["tool"] = m.tool;
  j["origin"] = m.origin;
  j["redacted"] = m.redacted;
  if (!m.note.empty()) j["note"] = m.note;
  if (!m.left_out.empty()) j["left_out"] = m.left_out;
  if (!m.excerpts.empty()) j["excerpts"] = m.excerpts;
  return j;
}

Json stat_to_json(const FileStat& st) {
  Json j = Json::object();
  j["type"] = file_type_name(st.type);
  j["mode"] = fmt::format("{:04o}", st.mode & 07777);
  j["uid"] = st.uid;
  j["gid"] = st.gid;
  j["group"] = st.group;
  return j;
}

Json identity_to_json(const Identity& id) {
  Json j = Json::object();
  j["user"] = id.user;
  j["uid"] = id.uid;
  j["gid"] = id.gid;
  j["groups"] = id.groups;
  j["gids"] = id.gids;
  j["home"] = id.home;
  j["hostname"] = id.hostname;
  return j;
}

Json command_to_json(const CommandResult& r, const std::string& out_file, const std::string& err_file) {
  Json j = Json::object();
  j["key"] = r.key;
  j["argv"] = r.argv;
  j["found"] = r.found;
  j["exit"] = r.exit_code ? Json(*r.exit_code) : Json(nullptr);
  j["timed_out"] = r.timed_out;
  if (r.unkillable) j["unkillable"] = true;
  j["duration_ms"] = r.duration_ms;
  if (r.timeout_ms > 0) j["timeout_ms"] = r.timeout_ms;
  if (r.signal) j["signal"] = *r.signal;
  if (!out_file.empty()) j["stdout"] = out_file;
  if (!err_file.empty()) j["stderr"] = err_file;
  if (r.truncated) j["truncated"] = true;
  if (!r.error.empty()) j["error"] = r.error;
  if (!r.untrusted.empty()) {
    Json list = Json::array();
    for (const auto& u : r.untrusted) {
      Json entry = {{"path", u.path}, {"why", u.why}};
      if (!u.ran_as.empty()) entry["ran_as"] = u.ran_as;
      if (!u.instead.empty()) entry["instead"] = u.instead;
      list.push_back(std::move(entry));
    }
    j["untrusted"] = std::move(list);
  }
  return j;
}

namespace {

// The manifest's KEY, when present: an object mapping absolute machine paths to strings (left_out: why the
// file was left out; excerpts: the rule of its excerpt). An error names the key.
std::string read_path_map(const Json& j, const char* key, std::map<std::string, std::string>& out) {
  auto it = j.find(key);
  if (it == j.end()) return {};
  if (!it->is_object()) return fmt::format("manifest.json: \"{}\" is not an object", key);
  for (const auto& [path, value] : it->items()) {
    if (!value.is_string() || path.empty() || path[0] != '/')
      return fmt::format("manifest.json: \"{}\" maps absolute paths to strings", key);
    out[path] = value.get<std::string>();
  }
  return {};
}

} // namespace

FileRead<Manifest> read_manifest(std::string_view text) {
  FileRead<Manifest> out;
  auto j = parse_file(text, "manifest.json", k_max_manifest_bytes, 100000, out.error);
  if (!j) return out;
  if (!j->is_object()) return {{}, "manifest.json is not a JSON object"};
  auto format = json_string(*j, "format");
  if (!format) return {{}, "manifest.json has no \"format\" string"};
  if (*format != k_format)
    return {{}, fmt::format("manifest.json says format \"{}\", not \"{}\"", *format, k_format)};
  auto version = json_int(*j, "version");
  if (!version) return {{}, "manifest.json has no integer \"version\""};
  if (*version < 1) return {{}, fmt::format("manifest.json has an invalid version {}", *version)};
  if (*version > k_version)
    return {
        {},
        fmt::format("snapshot format version {} is newer than this gpudoctor reads ({}): upgrade gpudoctor",
                    *version, k_version)};
  Manifest& m = out.value;
  m.created = json_string(*j, "created").value_or("");
  m.tool = json_string(*j, "tool").value_or("");
  m.origin = json_string(*j, "origin").value_or("live");
  m.note = json_string(*j, "note").value_or("");
  if (auto it = j->find("redacted"); it != j->end() && it->is_array())
    for (const auto& r : *it)
      if (r.is_string()) m.redacted.push_back(r.get<std::string>());
  for (auto [key, map] : {std::pair{"left_out", &m.left_out}, std::pair{"excerpts", &m.excerpts}})
    if (auto error = read_path_map(*j, key, *map); !error.empty()) return {{}, error};
  return out;
}

FileRead<std::map<std::string, std::string>> read_env(std::string_view text) {
  FileRead<std::map<std::string, std::string>> out;
  auto j = parse_file(text, "env.json", k_max_env_bytes, 2 * k_max_env_entries, out.error);
  if (!j) return out;
  if (!j->is_object()) return {{}, "env.json is not a JSON object"};
  if (j->size() > k_max_env_entries)
    return {{}, fmt::format("env.json holds more than {} variables: refused", k_max_env_entries)};
  for (const auto& [name, value] : j->items()) {
    if (!value.is_string()) return {{}, fmt::format("env.json: value of {} is not a string", name)};
    out.value[name] = value.get<std::string>();
  }
  return out;
}

Identity identity_from_json(const Json& j) {
  Identity id;
  id.user = json_string(j, "user").value_or("");
  id.uid = static_cast<unsigned>(std::clamp(json_int(j, "uid").value_or(0), 0LL, 0xffffffffLL));
  id.gid = static_cast<unsigned>(std::clamp(json_int(j, "gid").value_or(0), 0LL, 0xffffffffLL));
  id.home = json_string(j, "home").value_or("");
  id.hostname = json_string(j, "hostname").value_or("");
  if (j.is_object()) {
    if (auto it = j.find("groups"); it != j.end() && it->is_array())
      for (const auto& g : *it)
        if (g.is_string()) id.groups.push_back(g.get<std::string>());
    if (auto it = j.find("gids"); it != j.end() && it->is_array())
      for (const auto& g : *it)
        if (g.is_number_unsigned() && g.get<unsigned long long>() <= 0xffffffffULL)
          id.gids.push_back(g.get<unsigned>());
  }
  return id;
}

FileRead<Identity> read_identity(std::string_view text) {
  FileRead<Identity> out;
  auto j = parse_file(text, "identity.json", k_max_identity_bytes, 2 * k_max_groups + 100, out.error);
  if (!j) return out;
  if (!j->is_object()) return {{}, "identity.json is not a JSON object"};
  out.value = identity_from_json(*j);
  if (out.value.groups.size() > k_max_groups || out.value.gids.size() > k_max_groups)
    return {{}, fmt::format("identity.json lists more than {} groups (NGROUPS_MAX): refused", k_max_groups)};
  return out;
}

std::optional<FileStat> stat_from_json(const Json& j, std::string& error) {
  if (!j.is_object()) {
    error = "entry is not an object";
    return std::nullopt;
  }
  FileStat st;
  auto type = json_string(j, "type");
  if (!type) {
    error = "entry has no \"type\"";
    return std::nullopt;
  }
  auto t = file_type_from_name(*type);
  if (!t) {
    error = fmt::format("unknown type \"{}\"", *type);
    return std::nullopt;
  }
  st.type = *t;
  if (auto mode = json_string(j, "mode")) {
    auto m = text::to_int(*mode, 8);
    if (!m || *m < 0 || *m > 07777) {
      error = fmt::format("invalid mode \"{}\"", *mode);
      return std::nullopt;
    }
    st.mode = static_cast<unsigned>(*m);
  }
  auto uid = json_int(j, "uid"), gid = json_int(j, "gid");
  if (uid && *uid >= 0 && *uid <= 0xffffffffLL) st.uid = static_cast<unsigned>(*uid);
  if (gid && *gid >= 0 && *gid <= 0xffffffffLL) st.gid = static_cast<unsigned>(*gid);
  st.group = json_string(j, "group").value_or("");
  return st;
}

FileRead<std::map<std::string, FileStat>> read_stats(std::string_view text) {
  FileRead<std::map<std::string, FileStat>> out;
  // An entry is an object of five values.
  auto j = parse_file(text, "stat.json", k_max_stat_bytes, 7 * k_max_stat_entries, out.error);
  if (!j) return out;
  if (!j->is_object()) return {{}, "stat.json is not a JSON object"};
  if (j->size() > k_max_stat_entries)
    return {{}, fmt::format("stat.json declares more than {} paths: refused", k_max_stat_entries)};
  for (const auto& [path, entry] : j->items()) {
    std::string why;
    auto st = stat_from_json(entry, why);
    if (!st) return {{}, fmt::format("stat.json: {}: {}", path, why)};
    out.value[path] = *st;
  }
  return out;
}

std::optional<RecordedCommand> command_from_json(const Json& entry, std::string& error) {
  auto key = json_string(entry, "key");
  if (!key || key->empty()) {
    error = "has no \"key\"";
    return std::nullopt;
  }
  RecordedCommand c;
  CommandResult& r = c.result;
  r.key = *key;
  if (auto argv = entry.find("argv"); argv != entry.end() && argv->is_array())
    for (const auto& a : *argv)
      if (a.is_string()) r.argv.push_back(a.get<std::string>());
  r.found = json_bool(entry, "found").value_or(true);
  r.timed_out = json_bool(entry, "timed_out").value_or(false);
  r.unkillable = json_bool(entry, "unkillable").value_or(false);
  auto as_int = [](long long v) {
    return static_cast<int>(std::clamp<long long>(v, -0x7fffffff, 0x7fffffff));
  };
  if (auto code = json_int(entry, "exit")) r.exit_code = as_int(*code);
  r.duration_ms = json_int(entry, "duration_ms").value_or(0);
  r.timeout_ms = json_int(entry, "timeout_ms").value_or(0);
  if (auto sig = json_int(entry, "signal")) r.signal = as_int(*sig);
  r.truncated = json_bool(entry, "truncated").value_or(false);
  r.error = json_string(entry, "error").value_or("");
  if (auto list = entry.find("untrusted"); list != entry.end()) {
    if (!list->is_array()) {
      error = "\"untrusted\" is not a list";
      return std::nullopt;
    }
    for (const auto& u : *list) {
      auto path = json_string(u, "path");
      auto why = json_string(u, "why");
      if (!path || !why) {
        error = "an \"untrusted\" entry without \"path\" and \"why\" strings";
        return std::nullopt;
      }
      r.untrusted.push_back(
          {*path, *why, json_string(u, "ran_as").value_or(""), json_string(u, "instead").value_or("")});
    }
  }
  if (!r.found) r.exit_code = 127;
  for (auto [field, sink] : {std::pair{"stdout", &c.out_file}, std::pair{"stderr", &c.err_file}}) {
    auto file = json_string(entry, field);
    if (!file) continue;
    if (!text::stays_inside(*file)) {
      error = fmt::format("{} path \"{}\" leaves the snapshot", field, *file);
      return std::nullopt;
    }
    *sink = *file;
  }
  return c;
}

FileRead<std::vector<RecordedCommand>> read_commands(std::string_view text) {
  FileRead<std::vector<RecordedCommand>> out;
  auto j = parse_file(text, "commands.json", k_max_commands_bytes, JsonLimits{}.max_values, out.error);
  if (!j) return out;
  if (!j->is_array()) return {{}, "commands.json is not a JSON array"};
  if (j->size() > k_max_commands)
    return {{}, fmt::format("commands.json holds more than {} commands: refused", k_max_commands)};
  std::size_t index = 0;
  for (const auto& entry : *j) {
    std::string why;
    auto c = command_from_json(entry, why);
    if (!c) return {{}, fmt::format("commands.json entry {}: {}", index, why)};
    out.value.push_back(std::move(*c));
    ++index;
  }
  return out;
}

} // namespace gpudoctor::snapshot
