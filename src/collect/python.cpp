// The python3 interpreters a user may be using, and the PyTorch each imports, read from torch/version.py
// without importing torch (which takes seconds and can hang on a broken driver).
#include "collect/collectors.hpp"
#include "collect/pyenv_shim.hpp"
#include "parse/parsers.hpp"
#include "system/root_exec.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <future>
#include <memory>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

// Asks the interpreter for its search path without running `site` (-S): .pth files may import arbitrary
// code (some import torch itself, or hang on a broken driver), so gpudoctor reads them instead (read_pth).
// site.venv() applies pyvenv.cfg as site would; it also calls addsitepackages(), which would execute the
// venv's .pth files, so that is replaced by a no-op first (the venv's site-packages is still reported by
// getsitepackages()). Output, one item per line: executable, version, the site folders in site's order
// (user site first), a separator, then sys.path as the interpreter set it up.
// As root the interpreter also runs isolated (-I: no PYTHON* variable, no working folder on sys.path, which
// could hand `import site` a planted site.py); what the caller's PYTHONNOUSERSITE and user base say of the
// user site is then passed as the script's two arguments, and PYTHONPATH is added by gpudoctor (isolated).
constexpr const char* k_sys_path_script =
    "import sys, site, os\n"
    "site.addsitepackages = lambda known_paths, *args, **kwargs: known_paths\n"
    "site.venv(set())\n"
    "if sys.flags.isolated:\n"
    "    if sys.argv[2]: site.USER_BASE = sys.argv[2]\n"
    "    enabled = lambda: not sys.argv[1] and os.geteuid() == os.getuid() and os.getegid() == os.getgid()\n"
    "else:\n"
    "    enabled = site.check_enableusersite\n"
    "user = enabled() if site.ENABLE_USER_SITE is None else site.ENABLE_USER_SITE\n"
    "dirs = [site.getusersitepackages()] if user else []\n"
    "print(sys.executable); print('%d.%d.%d' % sys.version_info[:3])\n"
    "print('\\n'.join(dirs + site.getsitepackages())); print('--'); print('\\n'.join(sys.path))\n";

// The path lines of a .pth file: not comments, not `import` lines (site executes those), relative to `dir`.
std::vector<std::string> read_pth(const std::string& dir, const std::string& content) {
  std::vector<std::string> out;
  for (const auto& raw : text::lines(content)) {
    std::string line = text::trim(raw);
    if (line.empty() || line[0] == '#' || text::starts_with(line, "import ") ||
        text::starts_with(line, "import\t"))
      continue;
    out.push_back(line[0] == '/' ? line : dir + "/" + line);
  }
  return out;
}

// sys.path as site would have built it: the interpreter's own entries, then each existing site folder
// followed by the folders its .pth files add (in file name order).
std::vector<std::string> full_sys_path(SystemView& view, const std::vector<std::string>& base,
                                       const std::vector<std::string>& site_dirs) {
  std::vector<std::string> path = base;
  auto add = [&](const std::string& p) {
    if (std::find(path.begin(), path.end(), p) == path.end()) path.push_back(p);
  };
  for (const auto& dir : site_dirs) {
    auto names = view.list_dir(dir);
    if (!names) continue;
    add(dir);
    for (const auto& name : *names) {
      if (!text::ends_with(name, ".pth")) continue;
      if (auto content = view.read_file(dir + "/" + name))
        for (const auto& p : read_pth(dir, *content))
          if (view.exists(p)) add(p);
    }
  }
  return path;
}

struct Candidate {
  std::string role;
  std::string program; // a path, or "python3" to resolve on PATH
  std::string via;     // how a shim was resolved, for the report
};

// Who installed torch into `site` (pip, uv, conda), from its dist-info's INSTALLER file: a plain wheel and a
// conda package carry different arch lists under the same version.
std::string installer_of(SystemView& view, const std::string& site, const std::string& version) {
  auto text = view.read_file(site + "/torch-" + version + ".dist-info/INSTALLER");
  if (!text) return {};
  return text::trim(text->substr(0, text->find('\n')));
}

std::optional<TorchBuild> find_torch(SystemView& view, const std::vector<std::string>& sys_path) {
  for (const auto& entry : sys_path) {
    if (entry.empty() || entry[0] != '/') continue;
    std::string file = entry + "/torch/version.py";
    auto text = view.read_file(file);
    if (!text) continue;
    auto parsed = parse::torch_version_py(*text);
    if (!parsed) continue;
    TorchBuild build;
    build.version = parsed->version;
    build.cuda = parsed->cuda;
    build.hip = parsed->hip;
    build.location = entry + "/torch";
    build.source = file;
    build.installer = installer_of(view, entry, build.version);
    return build;
  }
  return std::nullopt;
}

// The user base site would take from the caller's environment: PYTHONUSERBASE, else ~/.local (from HOME;
// empty: the interpreter's account's home).
std::string user_base(SystemView& view) {
  if (auto base = view.env("PYTHONUSERBASE"); base && !base->empty()) return *base;
  if (auto home = view.env("HOME"); home && !home->empty()) return *home + "/.local";
  return {};
}

// The site folders an answer of k_sys_path_script names (the lines between the version and "--").
std::vector<std::string> answered_site_dirs(const std::string& out) {
  auto lines = text::lines(out);
  auto separator = std::find(lines.begin(), lines.end(), "--");
  if (lines.size() < 3 || separator == lines.end() || separator - lines.begin() < 2) return {};
  return {lines.begin() + 2, separator};
}

// What the interpreter's answer depends on besides its program, argv and caller (system/run_cache.hpp):
// pyvenv.cfg beside it or one folder up (site.venv reads it), the Python variables and HOME (the user
// site), and its site folders (a venv or package made or removed there). The packages in them, .pth files
// included, are read fresh every run (full_sys_path, find_torch).
const std::shared_ptr<const RunCacheRule>& interpreter_cache_rule() {
  static const auto rule = [] {
    auto r = std::make_shared<RunCacheRule>();
    r->beside_program = {"pyvenv.cfg"};
    r->key_env = {"PYTHON*", "HOME"};
    r->watched = answered_site_dirs;
    return std::shared_ptr<const RunCacheRule>(std::move(r));
  }();
  return rule;
}

// The command that asks `program` for its sys.path: isolated as root (k_sys_path_script).
CommandSpec sys_path_command(SystemView& view, const CollectOptions& opt, const std::string& program) {
  CommandSpec spec{"python-env@" + program, {program, "-S"}, opt.python_timeout};
  bool isolated = running_as_root();
  if (isolated) spec.argv.push_back("-I");
  spec.argv.insert(spec.argv.end(), {"-c", k_sys_path_script});
  if (isolated)
    spec.argv.insert(spec.argv.end(), {view.env("PYTHONNOUSERSITE").value_or(""), user_base(view)});
  spec.as_owner_when_untrusted = true; // a user's interpreter is asked as that user, never as root
  spec.cache = interpreter_cache_rule();
  return spec;
}

// Whether the interpreter ran isolated (-I before -c in the argv it ran with, as recorded).
bool ran_isolated(const std::vector<std::string>& argv) {
  for (std::size_t i = 1; i < argv.size() && argv[i] != "-c"; ++i)
    if (argv[i] == "-I") return true;
  return false;
}

// What PYTHONPATH puts on sys.path (after the script's folder, before the standard library), for an
// interpreter that ran isolated and so left it out: taken from the caller's variable as recorded.
std::vector<std::string> pythonpath_entries(SystemView& view) {
  std::vector<std::string> out;
  if (auto value = view.env("PYTHONPATH"))
    for (const auto& entry : text::split(*value, ':'))
      if (!entry.empty()) out.push_back(entry);
  return out;
}

PythonEnv inspect(SystemView& view, const CollectOptions& opt, const Candidate& c, ToolRun& run) {
  PythonEnv env;
  env.role = c.role;
  env.executable = c.program;
  env.via = c.via;
  CommandSpec spec = sys_path_command(view, opt, c.program);
  env.command_key = spec.key;
  auto r = view.run(spec);
  run = tool_run_of(r, spec);
  run.program = c.program;
  if (!r.found && !r.untrusted.empty()) {
    env.error = fmt::format("not run as root: {} ({})", r.untrusted.front().path, r.untrusted.front().why);
    return env;
  }
  if (!r.ok()) {
    env.error = r.timed_out ? "timed out after " + std::to_string(spec.timeout.count()) + " ms"
                            : "failed: " + text::trim(r.err).substr(0, 200);
    run.failure = env.error;
    return env;
  }
  if (text::starts_with(text::trim(r.out), "{")) {
    // The first form of this command printed one JSON object; snapshots that hold it are still read.
    auto j = parse_json(text::trim(r.out));
    if (!j || !j->is_object()) {
      env.error = "printed no sys.path";
      return env;
    }
    if (auto exe = json_string(*j, "executable"); exe && !exe->empty()) env.executable = *exe;
    if (auto v = json_string(*j, "version")) env.version = {*v, "cmd " + spec.key};
    if (auto it = j->find("path"); it != j->end() && it->is_array())
      for (const auto& p : *it)
        if (p.is_string() && !p.get<std::string>().empty()) env.sys_path.push_back(p.get<std::string>());
    env.torch = find_torch(view, env.sys_path);
    return env;
  }
  auto lines = text::lines(r.out);
  auto separator = std::find(lines.begin(), lines.end(), "--");
  if (lines.size() < 3 || separator == lines.end() || separator - lines.begin() < 2) {
    env.error = "printed no sys.path";
    return env;
  }
  if (!lines[0].empty()) env.executable = lines[0];
  env.version = {lines[1], "cmd " + spec.key};
  std::vector<std::string> site_dirs = answered_site_dirs(r.out), base(separator + 1, lines.end());
  std::erase(base, std::string());
  if (ran_isolated(r.argv)) {
    auto added = pythonpath_entries(view);
    base.insert(base.begin(), added.begin(), added.end());
  }
  env.sys_path = full_sys_path(view, base, site_dirs);
  env.torch = find_torch(view, env.sys_path);
  return env;
}

std::vector<Candidate> candidates(SystemView& view, const CollectOptions& opt) {
  std::vector<Candidate> out;
  for (const auto& p : opt.extra_pythons)
    out.push_back({"--python", p, ""});
  if (auto on_path = find_on_path(view, "python3")) {
    if (auto shim = resolve_pyenv_shim(view, *on_path, "python3"))
      out.push_back({"PATH", shim->interpreter,
                     *on_path + " is a pyenv shim for " + shim->version + " (" + shim->how + ")"});
    else
      out.push_back({"PATH", "python3", ""});
  }
  for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (auto prefix = view.env(var); prefix && !prefix->empty())
      if (view.exists(*prefix + "/bin/python3")) out.push_back({var, *prefix + "/bin/python3", ""});
  if (view.exists("/usr/bin/python3")) out.push_back({"system", "/usr/bin/python3", ""});
  return out;
}

} // namespace

void collect_python(SystemView& view, const CollectOptions& opt, PythonFacts& python,
                    std::vector<ToolRun>& tools) {
  auto list = candidates(view, opt);
  std::vector<ToolRun> runs(list.size());
  std::vector<std::future<PythonEnv>> futures;
  for (std::size_t i = 0; i < list.size(); ++i)
    futures.push_back(
        std::async(std::launch::async, [&, i] { return inspect(view, opt, list[i], runs[i]); }));
  for (std::size_t i = 0; i < futures.size(); ++i) {
    PythonEnv env = futures[i].get();
    // The same interpreter reached two ways (PATH and VIRTUAL_ENV, say) is reported once, under its first
    // role.
    bool duplicate = std::any_of(python.envs.begin(), python.envs.end(), [&](const PythonEnv& e) {
      return e.error.empty() && env.error.empty() && e.executable == env.executable;
    });
    if (!duplicate) python.envs.push_back(std::move(env));
    if (runs[i].found) tools.push_back(runs[i]);
  }
}

} // namespace gpudoctor
