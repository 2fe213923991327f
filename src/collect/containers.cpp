// Docker and the NVIDIA Container Toolkit: `docker info --format '{{json .}}'` (its Runtimes), daemon.json
// (what `nvidia-ctk runtime configure` writes), and the toolkit's own configuration.
#include "collect/collectors.hpp"
#include "system/config_files.hpp"
#include "util/json.hpp"
#include "util/text.hpp"

#include <algorithm>

namespace gpudoctor {

namespace {

std::vector<std::string> runtime_names(const Json& doc, const char* key) {
  std::vector<std::string> names;
  if (!doc.is_object()) return names;
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_object()) return names;
  for (const auto& [name, value] : it->items())
    names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

void read_docker_info(const CommandResult& r, ContainerFacts& out) {
  // The daemon not answering still prints a JSON document (client part, "ServerErrors") on many versions.
  auto doc = parse_json(text::trim(r.out));
  if (doc && doc->is_object()) {
    out.runtimes = runtime_names(*doc, "Runtimes");
    out.default_runtime = json_string(*doc, "DefaultRuntime").value_or("");
    if (auto errors = doc->find("ServerErrors");
        errors != doc->end() && errors->is_array() && !errors->empty())
      if ((*errors)[0].is_string()) out.docker_info_error = (*errors)[0].get<std::string>();
  }
  out.docker_info_ok = r.ok() && doc && out.docker_info_error.empty() && json_string(*doc, "ServerVersion");
  if (!out.docker_info_ok && out.docker_info_error.empty()) {
    std::string said = text::trim(r.err.empty() ? r.out : r.err);
    auto lines = text::lines(said);
    out.docker_info_error = lines.empty() ? "docker info failed" : text::trim(lines.front()).substr(0, 300);
  }
}

} // namespace

void collect_containers(SystemView& view, const CollectOptions& opt, const PackageFacts& packages,
                        ContainerFacts& out, std::vector<ToolRun>& tools) {
  auto docker = find_on_path(view, "docker");
  if (docker) {
    out.docker_installed = true;
    out.docker_evidence = *docker + " (on PATH)";
  } else {
    for (const char* name : {"docker-ce", "docker.io", "moby-engine", "docker-ce-cli"})
      if (auto v = packages.version_of(name)) {
        out.docker_installed = true;
        out.docker_evidence = packages.source + ": " + name + " " + *v;
        break;
      }
  }
  // The system daemon's first, then rootless Docker's: the first that exists is the one judged.
  for (const auto& file : config_paths(ConfigUse::docker_daemon, user_home(view))) {
    auto content = view.read_file(file);
    if (!content) continue;
    out.daemon_json_source = file;
    if (auto doc = parse_json(*content)) out.daemon_json_runtimes = runtime_names(*doc, "runtimes");
    break;
  }
  out.nvidia_toolkit_config = view.exists("/etc/nvidia-container-runtime/config.toml") ||
                              find_on_path(view, "nvidia-container-runtime").has_value() ||
                              find_on_path(view, "nvidia-ctk").has_value();
  if (!out.docker_installed) return;
  // `docker info` costs 100+ ms and 20+ MiB (a Go client); with no daemon socket it can only fail.
  bool daemon = view.env("DOCKER_HOST").has_value() || view.exists("/run/docker.sock") ||
                view.exists("/var/run/docker.sock");
  if (auto runtime_dir = view.env("XDG_RUNTIME_DIR"); runtime_dir && !runtime_dir->empty())
    daemon = daemon || view.exists(*runtime_dir + "/docker.sock"); // rootless Docker
  if (!daemon) {
    out.docker_info_error =
        "not run: no Docker daemon socket (/run/docker.sock, $XDG_RUNTIME_DIR/docker.sock), no DOCKER_HOST";
    return;
  }
  CommandSpec spec = keyed_command_spec(KeyedCommand::docker_info_json, opt.tool_timeout);
  auto r = view.run(spec);
  if (!r.found) return;
  ToolRun run = tool_run_of(r, spec);
  run.program = "docker";
  if (!r.timed_out) read_docker_info(r, out);
  tools.push_back(std::move(run));
}

} // namespace gpudoctor
