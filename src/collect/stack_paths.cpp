// GPU-stack folders the machine's settings name: PATH and LD_LIBRARY_PATH (the environment and the exports
// of shell profiles), ld.so.conf(.d), and CUDA_HOME / ROCM_PATH style variables; and what the pointers to
// "the CUDA" and "the ROCm" in use (nvcc on PATH, CUDA_HOME, /usr/local/cuda, /opt/rocm, ROCM_PATH, hipcc)
// resolve to. Only folders that look like a GPU stack are looked at (stat), so ordinary PATH entries never
// reach a snapshot.
#include "collect/collectors.hpp"
#include "collect/profile_assignments.hpp"
#include "parse/parsers_system.hpp"
#include "system/shell_profiles.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

namespace gpudoctor {

namespace {

// Variables that name one stack folder.
constexpr const char* k_pointer_vars[] = {"CUDA_HOME", "CUDA_PATH", "ROCM_PATH", "ROCM_HOME", "HIP_PATH"};

bool is_pointer_var(const std::string& name) {
  return std::any_of(std::begin(k_pointer_vars), std::end(k_pointer_vars),
                     [&](const char* v) { return name == v; });
}

bool is_search_path_var(const std::string& name) {
  return name == "PATH" || name == "LD_LIBRARY_PATH";
}

// Whose GPU stack a path belongs to, by its components: /usr/local/cuda-12.1/bin, /opt/rocm/lib,
// $CUDA_HOME/bin, /usr/lib/nvidia, /opt/rocm-6.0.2/hip/bin. A virtual environment called "sd-rocm" is not a
// stack.
Vendor stack_of(const std::string& path) {
  for (std::string c : text::split(text::lower(path), '/')) {
    while (!c.empty() && (c[0] == '$' || c[0] == '{'))
      c.erase(0, 1);
    auto starts = [&](const char* p) { return text::starts_with(c, p); };
    if (starts("cuda") || starts("nvidia") || starts("cudnn") || starts("tensorrt") || starts("nvhpc") ||
        starts("nccl"))
      return Vendor::nvidia;
    if (starts("rocm") || c == "hip" || starts("hip_") || starts("hip-") || starts("amdgpu") ||
        starts("rccl") || starts("miopen"))
      return Vendor::amd;
  }
  return Vendor::other;
}

Vendor stack_of_var(const std::string& name) {
  if (text::starts_with(name, "CUDA")) return Vendor::nvidia;
  if (text::starts_with(name, "ROCM") || text::starts_with(name, "HIP")) return Vendor::amd;
  return Vendor::other;
}

std::string strip_slashes(std::string p) {
  while (p.size() > 1 && p.back() == '/')
    p.pop_back();
  return p;
}

// `value` with ~, $HOME and variables assigned earlier expanded; empty when anything else is in it ($(...),
// ${X:-y}, a variable not known).
std::optional<std::string> expand_path(const std::string& value,
                                       const std::map<std::string, std::string>& vars) {
  std::string out;
  std::size_t i = 0;
  if (value == "~" || text::starts_with(value, "~/")) {
    auto home = vars.find("HOME");
    if (home == vars.end()) return std::nullopt;
    out = home->second;
    i = 1;
  }
  while (i < value.size()) {
    char c = value[i];
    if (c == '`' || c == '*' || c == '?') return std::nullopt;
    if (c != '$') {
      out += c;
      ++i;
      continue;
    }
    std::string name;
    if (i + 1 < value.size() && value[i + 1] == '{') {
      auto close = value.find('}', i + 2);
      if (close == std::string::npos) return std::nullopt;
      name = value.substr(i + 2, close - i - 2);
      i = close + 1;
    } else {
      std::size_t j = i + 1;
      while (j < value.size() && (std::isalnum(static_cast<unsigned char>(value[j])) || value[j] == '_'))
        ++j;
      name = value.substr(i + 1, j - i - 1);
      i = j;
    }
    auto it = vars.find(name);
    if (name.empty() || it == vars.end()) return std::nullopt;
    out += it->second;
  }
  return out;
}

// A folder as a setting names it: absolute and expanded, else empty (not judged).
std::string folder_of(const std::optional<std::string>& expanded) {
  if (!expanded || expanded->empty() || (*expanded)[0] != '/') return {};
  return strip_slashes(*expanded);
}

class Gatherer {
public:
  Gatherer(SystemView& view, PathFacts& out) : view_(view), out_(out) {}

  void add(const std::string& variable, const std::string& entry, const std::string& resolved, Vendor by_name,
           const std::string& origin) {
    Vendor stack = stack_of(resolved.empty() ? entry : resolved);
    if (stack == Vendor::other) stack = stack_of(entry);
    if (stack == Vendor::other) stack = by_name;
    if (stack == Vendor::other) return;
    PathSetting s;
    s.variable = variable;
    s.entry = entry;
    s.resolved = resolved;
    s.stack = stack;
    s.origin = origin;
    if (!resolved.empty()) {
      auto st = view_.stat(resolved);
      s.exists = st && st->type == FileType::dir;
    }
    out_.settings.push_back(std::move(s));
  }

  void from_environment(const std::map<std::string, std::string>& env) {
    for (const char* var : {"PATH", "LD_LIBRARY_PATH"})
      if (auto it = env.find(var); it != env.end())
        for (const auto& entry : text::split(it->second, ':'))
          add(var, entry, entry[0] == '/' ? strip_slashes(entry) : std::string(), Vendor::other,
              std::string("env ") + var);
    for (const char* var : k_pointer_vars)
      if (auto it = env.find(var); it != env.end() && !it->second.empty())
        add(var, it->second, it->second[0] == '/' ? strip_slashes(it->second) : std::string(),
            stack_of_var(var), std::string("env ") + var);
  }

  void from_ld_so_conf() {
    std::vector<std::string> files = {"/etc/ld.so.conf"};
    if (auto names = view_.list_dir("/etc/ld.so.conf.d"))
      for (const auto& name : *names)
        if (text::ends_with(name, ".conf")) files.push_back("/etc/ld.so.conf.d/" + name);
    for (const auto& file : files) {
      auto content = view_.read_file(file);
      if (!content) continue;
      out_.files.push_back(file);
      for (const auto& d : parse::ld_so_conf(*content, file).dirs)
        add("ld.so.conf", d.path, d.path[0] == '/' ? strip_slashes(d.path) : std::string(), Vendor::other,
            file_source(file, d.line));
    }
  }

  void from_profiles(const std::string& home) {
    ShellProfiles profiles = read_shell_profiles(view_, home);
    out_.not_read = std::move(profiles.not_read);
    for (const auto& profile_file : profiles.files) {
      const std::string& file = profile_file.path;
      out_.files.push_back(file);
      ++out_.profiles_read;
      bool pam_env = profile_file.format == ConfigFormat::pam_env; // nothing expanded
      auto profile = profile_assignments(profile_file);
      std::map<std::string, std::string> vars;
      if (!home.empty()) vars["HOME"] = home;
      for (const auto& a : profile.assignments) {
        out_.assignments.push_back({a.name, file, a.line});
        std::string origin = file_source(file, a.line);
        if (is_search_path_var(a.name)) {
          for (const auto& entry : a.path_entries())
            add(a.name, entry,
                folder_of(pam_env ? std::optional<std::string>(entry) : expand_path(entry, vars)),
                Vendor::other, origin);
          continue;
        }
        auto value = pam_env ? std::optional<std::string>(a.value) : expand_path(a.value, vars);
        if (is_pointer_var(a.name) && !a.value.empty())
          add(a.name, a.value, folder_of(value), stack_of_var(a.name), origin);
        if (value)
          vars[a.name] = *value;
        else
          vars.erase(a.name);
      }
    }
  }

private:
  SystemView& view_;
  PathFacts& out_;
};

// The folder a path ends up in: trailing slashes dropped, links of the folder itself followed.
std::string resolve_dir(SystemView& view, const std::string& path) {
  std::string p = strip_slashes(path);
  if (auto target = final_link_target(view, p)) return strip_slashes(*target);
  return p;
}

// ".../bin/nvcc" -> "...": the toolkit folder a compiler belongs to (its link followed first).
std::string toolkit_of_program(SystemView& view, const std::string& program) {
  std::string real = program;
  if (auto target = final_link_target(view, program)) real = *target;
  auto slash = real.find_last_of('/');
  std::string bin = slash == std::string::npos ? real : real.substr(0, slash);
  if (text::ends_with(bin, "/bin")) bin = bin.substr(0, bin.size() - 4);
  return bin.empty() ? "/" : bin;
}

StackPointer make_pointer(SystemView& view, const std::string& what, const std::string& path) {
  StackPointer p;
  p.what = what;
  p.path = path;
  p.resolved = path.empty() || path[0] != '/' ? path : resolve_dir(view, path);
  auto st = p.resolved.empty() ? std::nullopt : view.stat(p.resolved);
  p.exists = st && st->type == FileType::dir;
  return p;
}

void cuda_pointers(SystemView& view, const EnvFacts& env, const ToolkitFacts& tk, PathFacts& out) {
  auto known = [&](const std::string& dir) -> Fact<std::string> {
    for (const auto& c : tk.cuda)
      if (c.path == dir && c.version) return c.version;
    return cuda_version_at(view, dir);
  };
  if (tk.nvcc_path) {
    StackPointer p = make_pointer(view, "nvcc on PATH", toolkit_of_program(view, *tk.nvcc_path));
    p.path = *tk.nvcc_path;
    p.version = tk.nvcc_version ? tk.nvcc_version : known(p.resolved);
    out.cuda.push_back(std::move(p));
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (auto it = env.all.find(var); it != env.all.end() && !it->second.empty()) {
      StackPointer p = make_pointer(view, var, it->second);
      if (p.exists) p.version = known(p.resolved);
      out.cuda.push_back(std::move(p));
    }
  if (tk.cuda_default_link || view.exists("/usr/local/cuda")) {
    StackPointer p = make_pointer(view, "/usr/local/cuda", "/usr/local/cuda");
    if (p.exists) p.version = known(p.resolved);
    out.cuda.push_back(std::move(p));
  }
}

void rocm_pointers(SystemView& view, const EnvFacts& env, const ToolkitFacts& tk, PathFacts& out) {
  auto known = [&](const std::string& dir) -> Fact<std::string> {
    for (const auto& r : tk.rocm)
      if ((r.path == dir || (r.distribution_package && dir == "/usr")) && r.version) return r.version;
    return rocm_version_at(view, dir);
  };
  auto add = [&](const std::string& what, const std::string& path) {
    StackPointer p = make_pointer(view, what, path);
    if (p.exists) p.version = known(p.resolved);
    out.rocm.push_back(std::move(p));
  };
  if (tk.rocm_default_link || view.exists("/opt/rocm")) add("/opt/rocm", "/opt/rocm");
  for (const char* var : {"ROCM_PATH", "ROCM_HOME", "HIP_PATH"})
    if (auto it = env.all.find(var); it != env.all.end() && !it->second.empty()) add(var, it->second);
  if (tk.hipcc_path) {
    StackPointer p = make_pointer(view, "hipcc on PATH", toolkit_of_program(view, *tk.hipcc_path));
    p.path = *tk.hipcc_path;
    if (p.exists) p.version = known(p.resolved);
    out.rocm.push_back(std::move(p));
  }
  // /opt/rocm-6.2.0/bin on PATH, /opt/rocm-6.2.0/lib on LD_LIBRARY_PATH: the tree they name.
  for (const auto& [var, entries] :
       {std::pair{"PATH", &env.path_entries}, std::pair{"LD_LIBRARY_PATH", &env.ld_library_path_entries}}) {
    std::vector<std::string> roots;
    for (const auto& e : *entries) {
      if (!text::starts_with(e, "/opt/rocm")) continue;
      std::string root = e.substr(0, e.find('/', 5));
      if (std::find(roots.begin(), roots.end(), root) == roots.end()) roots.push_back(root);
    }
    for (const auto& root : roots)
      add(std::string(var) + " entry", root);
  }
}

} // namespace

void collect_stack_paths(SystemView& view, const EnvFacts& env, const ToolkitFacts& toolkits,
                         PathFacts& out) {
  Gatherer g(view, out);
  g.from_environment(env.all);
  g.from_ld_so_conf();
  g.from_profiles(user_home(view));
  cuda_pointers(view, env, toolkits, out);
  rocm_pointers(view, env, toolkits, out);
}

} // namespace gpudoctor
