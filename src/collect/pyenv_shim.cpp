#include "collect/pyenv_shim.hpp"

#include "util/text.hpp"

namespace gpudoctor {

namespace {

// The first version named in a pyenv version file (one or more names, whitespace separated, '#' comments).
std::optional<std::string> first_version(const std::string& content) {
  for (const auto& raw : text::lines(content)) {
    std::string line = text::trim(raw);
    if (line.empty() || line[0] == '#') continue;
    auto words = text::split(line, ' ');
    if (!words.empty()) return text::trim(words[0]);
  }
  return std::nullopt;
}

// pyenv's order: PYENV_VERSION, then .python-version in the working folder and its parents, then the
// global $PYENV_ROOT/version (pyenv-version-name, pyenv-version-file).
std::optional<std::pair<std::string, std::string>> selected_version(SystemView& view,
                                                                    const std::string& root) {
  if (auto v = view.env("PYENV_VERSION"); v && !text::trim(*v).empty()) {
    auto names = text::split(text::trim(*v), ':');
    if (names.size() != 1) return std::nullopt; // several versions: pyenv searches them, leave it to pyenv
    return std::pair{names[0], std::string("PYENV_VERSION")};
  }
  std::string dir = view.env("PYENV_DIR").value_or(view.env("PWD").value_or(""));
  while (!dir.empty() && dir[0] == '/') {
    std::string file = (dir == "/" ? "" : dir) + "/.python-version";
    if (auto content = view.read_file(file)) {
      auto v = first_version(*content);
      if (!v) return std::nullopt;
      return std::pair{*v, file};
    }
    if (dir == "/") break;
    auto slash = dir.find_last_of('/');
    dir = slash == 0 ? "/" : dir.substr(0, slash);
  }
  std::string global = root + "/version";
  if (auto content = view.read_file(global)) {
    auto v = first_version(*content);
    if (v) return std::pair{*v, global};
  }
  return std::nullopt; // pyenv falls back to "system"
}

} // namespace

std::optional<ShimTarget> resolve_pyenv_shim(SystemView& view, const std::string& path,
                                             const std::string& program) {
  // pyenv's shims live in $PYENV_ROOT/shims; anything else may be the interpreter itself (megabytes that a
  // bundle would otherwise carry).
  if (!text::contains(path, "/shims/")) return std::nullopt;
  auto script = view.read_file(path);
  if (!script || script->size() > 4096 || !text::starts_with(*script, "#!")) return std::nullopt;
  if (!text::contains(*script, "pyenv\" exec \"$program\"") &&
      !text::contains(*script, "pyenv exec \"$program\""))
    return std::nullopt;
  std::string root;
  for (const auto& line : text::lines(*script)) {
    std::string t = text::trim(line);
    if (!text::starts_with(t, "export PYENV_ROOT=")) continue;
    root = t.substr(18);
    if (root.size() >= 2 && root.front() == '"' && root.back() == '"') root = root.substr(1, root.size() - 2);
  }
  if (root.empty() || root[0] != '/' || text::contains(root, "$")) return std::nullopt;
  if (auto env_root = view.env("PYENV_ROOT"); env_root && *env_root != root) return std::nullopt;
  auto version = selected_version(view, root);
  if (!version || version->first == "system" || text::contains(version->first, "/")) return std::nullopt;
  std::string interpreter = root + "/versions/" + version->first + "/bin/" + program;
  auto st = view.stat(interpreter);
  if (!st || st->type != FileType::file) return std::nullopt;
  return ShimTarget{interpreter, version->first, version->second};
}

} // namespace gpudoctor
