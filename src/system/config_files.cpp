#include "system/config_files.hpp"

#include "util/text.hpp"

#include <array>

namespace gpudoctor {

namespace {

using F = ConfigFormat;

// bash(1) INVOCATION: a login shell reads /etc/profile, then the first of ~/.bash_profile, ~/.bash_login,
// ~/.profile; an interactive one ~/.bashrc (Debian's /etc/bash.bashrc first). zsh(1) STARTUP/SHUTDOWN FILES:
// zshenv always, zprofile and zlogin for a login, zshrc when interactive; Debian and Ubuntu build zsh with
// /etc/zsh as its folder, Fedora and RHEL with /etc. pam_env.conf(5): /etc/environment. NCCL's environment
// variables page (docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html): ~/.nccl.conf, then
// /etc/nccl.conf. pip's configuration page (pip.pypa.io/en/stable/topics/configuration): the user's
// ~/.config/pip/pip.conf and legacy ~/.pip/pip.conf, the site's /etc/pip.conf and /etc/xdg/pip/pip.conf.
// conda's .condarc (docs.conda.io, "Using the .condarc conda configuration file"). Docker's daemon.json
// (docs.docker.com/reference/cli/dockerd, rootless: ~/.config/docker) and the CLI's ~/.docker/config.json.
constexpr std::string_view k_bash = "bash(1), INVOCATION";
constexpr std::string_view k_zsh = "zsh(1), STARTUP/SHUTDOWN FILES";
constexpr std::string_view k_nccl = "NCCL user guide, Environment Variables";
constexpr std::string_view k_pip = "pip documentation, Configuration";

using U = ConfigUse;

constexpr std::array k_config_files = {
    ConfigFile{"/.bashrc", true, U::profile, F::shell, true, k_bash},
    ConfigFile{"/.profile", true, U::profile, F::shell, true, k_bash},
    ConfigFile{"/.bash_profile", true, U::profile, F::shell, true, k_bash},
    ConfigFile{"/.bash_login", true, U::profile, F::shell, true, k_bash},
    ConfigFile{"/.zshenv", true, U::profile, F::shell, true, k_zsh},
    ConfigFile{"/.zprofile", true, U::profile, F::shell, true, k_zsh},
    ConfigFile{"/.zshrc", true, U::profile, F::shell, true, k_zsh},
    ConfigFile{"/.zlogin", true, U::profile, F::shell, true, k_zsh},
    ConfigFile{"/etc/profile", false, U::profile, F::shell, true, k_bash},
    ConfigFile{"/etc/bash.bashrc", false, U::profile, F::shell, true, "Debian's bash: README.Debian"},
    ConfigFile{"/etc/profile.d/*.sh", false, U::profile, F::shell, true,
               "/etc/profile of Debian, Ubuntu, RHEL"},
    ConfigFile{"/etc/zsh/zshenv", false, U::profile, F::shell, true, k_zsh},
    ConfigFile{"/etc/zsh/zprofile", false, U::profile, F::shell, true, k_zsh},
    ConfigFile{"/etc/zsh/zshrc", false, U::profile, F::shell, true, k_zsh},
    ConfigFile{"/etc/zsh/zlogin", false, U::profile, F::shell, true, k_zsh},
    ConfigFile{"/etc/zshenv", false, U::profile, F::shell, true, k_zsh},
    ConfigFile{"/etc/zprofile", false, U::profile, F::shell, true, k_zsh},
    ConfigFile{"/etc/zshrc", false, U::profile, F::shell, true, k_zsh},
    ConfigFile{"/etc/zlogin", false, U::profile, F::shell, true, k_zsh},
    ConfigFile{"/etc/environment", false, U::profile, F::pam_env, true, "pam_env.conf(5)"},
    ConfigFile{"/.nccl.conf", true, U::nccl, F::nccl, true, k_nccl},
    ConfigFile{"/etc/nccl.conf", false, U::nccl, F::nccl, true, k_nccl},
    ConfigFile{"/etc/pip.conf", false, U::pip, F::ini, false, k_pip},
    ConfigFile{"/etc/xdg/pip/pip.conf", false, U::pip, F::ini, false, k_pip},
    ConfigFile{"/.config/pip/pip.conf", true, U::pip, F::ini, false, k_pip},
    ConfigFile{"/.pip/pip.conf", true, U::pip, F::ini, false, k_pip},
    ConfigFile{"/.condarc", true, U::conda, F::ini, false, "conda documentation: the .condarc file"},
    ConfigFile{"/etc/docker/daemon.json", false, U::docker_daemon, F::json, false,
               "dockerd(8): daemon configuration file"},
    ConfigFile{"/.config/docker/daemon.json", true, U::docker_daemon, F::json, false,
               "dockerd(8): rootless mode"},
    ConfigFile{"/.docker/config.json", true, U::docker_cli, F::json, false, "docker(1): configuration files"},
    ConfigFile{"/etc/csh.cshrc", false, U::csh, F::shell, false, "csh(1): startup and shutdown"},
    ConfigFile{"/etc/csh.login", false, U::csh, F::shell, false, "csh(1): startup and shutdown"},
};

} // namespace

std::span<const ConfigFile> config_files() {
  return k_config_files;
}

std::optional<ConfigFolder> config_folder(const ConfigFile& row) {
  auto star = row.path.find("/*");
  if (star == std::string_view::npos) return std::nullopt;
  return ConfigFolder{row.path.substr(0, star), row.path.substr(star + 2)};
}

std::string in_home(const std::string& home, const ConfigFile& row) {
  std::string_view base = home;
  while (base.size() > 1 && base.back() == '/')
    base.remove_suffix(1);
  return std::string(base == "/" ? "" : base) + std::string(row.path);
}

std::vector<std::string> config_paths(ConfigUse use, const std::string& home) {
  std::vector<std::string> out;
  for (const auto& row : k_config_files)
    if (row.use == use && !config_folder(row) && (!row.in_home || !home.empty()))
      out.push_back(row.in_home ? in_home(home, row) : std::string(row.path));
  return out;
}

const ConfigFile* config_folder_of(std::string_view rel) {
  std::string path = "/" + std::string(rel);
  for (const auto& row : k_config_files)
    if (auto folder = config_folder(row);
        folder && !row.in_home && text::starts_with(path, std::string(folder->folder) + "/"))
      return &row;
  return nullptr;
}

const ConfigFile* config_file_of(std::string_view rel) {
  std::string path = "/" + std::string(rel);
  for (const auto& row : k_config_files) {
    if (auto folder = config_folder(row)) {
      std::string_view name = std::string_view(path).substr(path.find_last_of('/') + 1);
      std::string_view dir = std::string_view(path).substr(0, path.find_last_of('/'));
      if (!row.in_home && dir == folder->folder && text::ends_with(name, folder->suffix)) return &row;
      continue;
    }
    if (row.in_home ? text::ends_with(path, row.path) : path == row.path) return &row;
  }
  return nullptr;
}

} // namespace gpudoctor
