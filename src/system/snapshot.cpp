#include "system/snapshot.hpp"

#include "util/text.hpp"

#include <chrono>
#include <ctime>
#include <deque>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>

namespace gpudoctor::snapshot {

namespace fs = std::filesystem;

Json manifest_to_json(const Manifest& m) {
  Json j = Json::object();
  j["format"] = k_format;
  j["version"] = k_version;
  j["created"] = m.created;
  j["tool"] = m.tool;
  j["origin"] = m.origin;
  j["redacted"] = m.redacted;
  if (!m.note.empty()) j["note"] = m.note;
  return j;
}

std::expected<Manifest, std::string> manifest_from_json(const Json& j) {
  if (!j.is_object()) return std::unexpected("manifest.json is not a JSON object");
  auto format = json_string(j, "format");
  if (!format) return std::unexpected("manifest.json has no \"format\" string");
  if (*format != k_format)
    return std::unexpected("manifest.json says format \"" + *format + "\", not \"" + k_format + "\"");
  auto version = json_int(j, "version");
  if (!version) return std::unexpected("manifest.json has no integer \"version\"");
  if (*version < 1)
    return std::unexpected("manifest.json has an invalid version " + std::to_string(*version));
  if (*version > k_version)
    return std::unexpected("snapshot format version " + std::to_string(*version) +
                           " is newer than this gpudoctor reads (" + std::to_string(k_version) +
                           "): upgrade gpudoctor");
  Manifest m;
  m.created = json_string(j, "created").value_or("");
  m.tool = json_string(j, "tool").value_or("");
  m.origin = json_string(j, "origin").value_or("live");
  m.note = json_string(j, "note").value_or("");
  if (auto it = j.find("redacted"); it != j.end() && it->is_array())
    for (const auto& r : *it)
      if (r.is_string()) m.redacted.push_back(r.get<std::string>());
  return m;
}

Json stat_to_json(const FileStat& st) {
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", st.mode & 07777);
  Json j = Json::object();
  j["type"] = file_type_name(st.type);
  j["mode"] = mode;
  j["uid"] = st.uid;
  j["gid"] = st.gid;
  j["group"] = st.group;
  return j;
}

std::expected<FileStat, std::string> stat_from_json(const Json& j) {
  if (!j.is_object()) return std::unexpected("entry is not an object");
  FileStat st;
  auto type = json_string(j, "type");
  if (!type) return std::unexpected("entry has no \"type\"");
  auto t = file_type_from_name(*type);
  if (!t) return std::unexpected("unknown type \"" + *type + "\"");
  st.type = *t;
  if (auto mode = json_string(j, "mode")) {
    auto m = text::to_int(*mode, 8);
    if (!m || *m < 0 || *m > 07777) return std::unexpected("invalid mode \"" + *mode + "\"");
    st.mode = static_cast<unsigned>(*m);
  }
  auto uid = json_int(j, "uid"), gid = json_int(j, "gid");
  if (uid && *uid >= 0) st.uid = static_cast<unsigned>(*uid);
  if (gid && *gid >= 0) st.gid = static_cast<unsigned>(*gid);
  st.group = json_string(j, "group").value_or("");
  return st;
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

Identity identity_from_json(const Json& j) {
  Identity id;
  id.user = json_string(j, "user").value_or("");
  id.uid = static_cast<unsigned>(std::max(0LL, json_int(j, "uid").value_or(0)));
  id.gid = static_cast<unsigned>(std::max(0LL, json_int(j, "gid").value_or(0)));
  id.home = json_string(j, "home").value_or("");
  id.hostname = json_string(j, "hostname").value_or("");
  if (j.is_object()) {
    if (auto it = j.find("groups"); it != j.end() && it->is_array())
      for (const auto& g : *it)
        if (g.is_string()) id.groups.push_back(g.get<std::string>());
    if (auto it = j.find("gids"); it != j.end() && it->is_array())
      for (const auto& g : *it)
        if (g.is_number_unsigned()) id.gids.push_back(g.get<unsigned>());
  }
  return id;
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
  return j;
}

std::string command_file_stem(std::size_t index, const std::string& key) {
  std::string stem = std::to_string(index) + "-";
  for (char c : key)
    stem += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return stem.substr(0, 100);
}

std::optional<fs::path> resolve_inside(const fs::path& fs_root, const std::string& path, bool follow_final) {
  std::deque<std::string> pending;
  for (auto& part : text::split(path, '/'))
    pending.push_back(part);
  std::vector<std::string> resolved;
  int hops = 0;
  auto join = [&](const std::vector<std::string>& parts) {
    fs::path p = fs_root;
    for (const auto& part : parts)
      p /= part;
    return p;
  };
  while (!pending.empty()) {
    std::string part = pending.front();
    pending.pop_front();
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!resolved.empty()) resolved.pop_back();
      continue;
    }
    resolved.push_back(part);
    fs::path candidate = join(resolved);
    struct stat st {};
    if (::lstat(candidate.c_str(), &st) != 0) return std::nullopt;
    if (S_ISLNK(st.st_mode) && (!pending.empty() || follow_final)) {
      if (++hops > 40) return std::nullopt; // a loop
      char buf[PATH_MAX];
      ssize_t n = ::readlink(candidate.c_str(), buf, sizeof buf - 1);
      if (n < 0) return std::nullopt;
      std::string target(buf, static_cast<std::size_t>(n));
      resolved.pop_back();
      if (!target.empty() && target[0] == '/') resolved.clear();
      auto target_parts = text::split(target, '/');
      pending.insert(pending.begin(), target_parts.begin(), target_parts.end());
    }
  }
  return join(resolved);
}

std::string utc_now() {
  auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

} // namespace gpudoctor::snapshot
