// The python3 interpreters a user may be using, and the PyTorch each imports, read from torch/version.py
// without importing torch (which takes seconds and can hang on a broken driver).
#include <algorithm>
#include <future>

#include "collect/collectors.hpp"
#include "collect/pyenv_shim.hpp"
#include "parse/parsers.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

namespace gpudoctor {

namespace {

// Prints what sys.path the interpreter imports from; the user's environment (PYTHONPATH, site) applies.
constexpr const char* k_sys_path_script =
    "import sys, json; print(json.dumps({'executable': sys.executable, 'version': '%d.%d.%d' % "
    "sys.version_info[:3], 'prefix': sys.prefix, 'path': sys.path}))";

struct Candidate {
  std::string role;
  std::string program; // a path, or "python3" to resolve on PATH
  std::string via;     // how a shim was resolved, for the report
};

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
    return build;
  }
  return std::nullopt;
}

PythonEnv inspect(SystemView& view, const CollectOptions& opt, const Candidate& c, ToolRun& run) {
  PythonEnv env;
  env.role = c.role;
  env.executable = c.program;
  env.via = c.via;
  CommandSpec spec{"python-env@" + c.program, {c.program, "-c", k_sys_path_script}, opt.python_timeout};
  env.command_key = spec.key;
  auto r = view.run(spec);
  run = tool_run_of(r, spec);
  run.program = c.program;
  if (!r.ok()) {
    env.error = r.timed_out ? "timed out after " + std::to_string(spec.timeout.count()) + " ms"
                            : "failed: " + text::trim(r.err).substr(0, 200);
    run.failure = env.error;
    return env;
  }
  auto j = parse_json(text::trim(r.out));
  if (!j || !j->is_object()) {
    env.error = "printed no sys.path";
    return env;
  }
  if (auto exe = json_string(*j, "executable"); exe && !exe->empty()) env.executable = *exe;
  if (auto v = json_string(*j, "version")) env.version = {*v, "cmd " + spec.key};
  if (auto it = j->find("path"); it != j->end() && it->is_array())
    for (const auto& p : *it)
      if (p.is_string()) env.sys_path.push_back(p.get<std::string>());
  env.torch = find_torch(view, env.sys_path);
  return env;
}

std::vector<Candidate> candidates(SystemView& view, const CollectOptions& opt) {
  std::vector<Candidate> out;
  for (const auto& p : opt.extra_pythons) out.push_back({"--python", p, ""});
  if (auto on_path = find_on_path(view, "python3")) {
    if (auto shim = resolve_pyenv_shim(view, *on_path, "python3"))
      out.push_back({"PATH", shim->interpreter, *on_path + " is a pyenv shim for " + shim->version + " (" + shim->how + ")"});
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

void collect_python(SystemView& view, const CollectOptions& opt, PythonFacts& python, std::vector<ToolRun>& tools) {
  auto list = candidates(view, opt);
  std::vector<ToolRun> runs(list.size());
  std::vector<std::future<PythonEnv>> futures;
  for (std::size_t i = 0; i < list.size(); ++i)
    futures.push_back(std::async(std::launch::async, [&, i] { return inspect(view, opt, list[i], runs[i]); }));
  for (std::size_t i = 0; i < futures.size(); ++i) {
    PythonEnv env = futures[i].get();
    // The same interpreter reached two ways (PATH and VIRTUAL_ENV, say) is reported once, under its first role.
    bool duplicate = std::any_of(python.envs.begin(), python.envs.end(), [&](const PythonEnv& e) {
      return e.error.empty() && env.error.empty() && e.executable == env.executable;
    });
    if (!duplicate) python.envs.push_back(std::move(env));
    if (runs[i].found) tools.push_back(runs[i]);
  }
}

} // namespace gpudoctor
