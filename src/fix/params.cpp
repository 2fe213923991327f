#include "fix/params.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

namespace gpudoctor::fix {

const std::vector<ParamInfo>& param_catalogue() {
  static const std::vector<ParamInfo> params = {
      {"family", "distribution family: debian or rhel"},
      {"os.ubuntu", "\"yes\" on Ubuntu and its derivatives, else empty"},
      {"os.rhel", "\"yes\" in the RHEL family, else empty"},
      {"opt.unhold",
       "\"yes\" when the plan was made with --unhold (held packages of the stack are released)"},
      {"opt.stop_gpu_users", "\"yes\" with --stop-gpu-users (processes using the old GPU are stopped)"},
      {"boot.mok",
       "\"yes\" when Secure Boot is on (not in a container): DKMS modules need a Machine Owner Key enrolled"},
      {"boot.mok_reboot",
       "\"yes\" with boot.mok unless the plan powers off to swap the card (that boot shows the MOK screen)"},
      {"boot.module", "the kernel module the Secure Boot check looks for after the reboot (nvidia, amdgpu)"},
      {"boot.mok_key",
       "the key DKMS signs modules with on this distribution and dkms version (knowledge secure_boot.yaml); "
       "empty where that dkms signs nothing"},
      {"boot.mok_certificate", "the certificate of boot.mok_key, the one mokutil --import enrolls"},
      {"boot.mok_maker",
       "who makes boot.mok_key when it is missing: dkms (openssl), update-secureboot-policy (Ubuntu), none"},
      {"swap.card",
       "migrate: the card that comes in when the old vendor's card is still in the machine, else empty"},
      {"swap.old", "migrate: the cards that go out (with swap.card)"},
      {"reboot.plain", "\"yes\" unless the reboot is a power-off to swap the card (swap.card)"},
      {"install.amdgpu_dkms",
       "\"yes\" when amdgpu-dkms is installed (not under Secure Boot: the in-tree amdgpu)"},
      {"user", "the user the fix is for (who ran gpudoctor; SUDO_USER under sudo)"},
      {"homes", "home folders whose shell profiles are cleaned: every login user's, or the user's", true},
      {"stack.packages",
       "what a purge removes: the vendor's installed packages and their dependents of the stack (explicit "
       "names)",
       true},
      {"stack.held", "of those, the held ones (apt-mark hold)", true},
      {"stack.replacements",
       "the distribution's packages installed in place of the vendor's (Mesa for AMD's)", true},
      {"stack.versionlocks", "dnf versionlock entries of the packages the purge removes", true},
      {"stack.keep",
       "globs of the packages never removed (kernels, dkms, Mesa, firmware: every vendor's keep)", true},
      {"stack.device_nodes", "ERE of the device files whose users must stop before the purge"},
      {"stack.services", "systemd units stopped before the purge (nvidia-persistenced, the Fabric Manager)",
       true},
      {"stack.user_caches",
       "folders below the homes only the stack uses (.cache/miopen), where some home has one", true},
      {"stack.container_edits",
       "Docker/containerd files to rewrite without the vendor's runtime: file, old, new "
       "(base64), repeated",
       true},
      {"stack.cdi", "the vendor's CDI specs", true},
      {"stack.config_packages", "its removed packages whose configuration files are left (dpkg state rc)",
       true},
      {"stack.dkms", "its DKMS modules, as module/version", true},
      {"stack.trees", "its folders: /opt/rocm-X, /usr/local/cuda-X, the /opt/rocm link, DKMS trees", true},
      {"stack.alternatives", "its update-alternatives groups (rocm, cuda, ...)", true},
      {"stack.sources", "package-source files holding only its repositories", true},
      {"stack.source_edits", "package-source files with lines for its repositories among others", true},
      {"stack.hosts", "its repository hosts (repo.radeon.com, developer.download.nvidia.com, ...)", true},
      {"stack.keyrings", "its repository signing keys", true},
      {"stack.pins", "apt preference files pinning its repositories", true},
      {"stack.ld_conf", "ld.so.conf.d files naming its folders", true},
      {"stack.modprobe", "modprobe.d files about its kernel modules only", true},
      {"stack.icd", "its OpenCL and Vulkan loader files", true},
      {"stack.vars_re", "ERE of the variable names its shell-profile settings use"},
      {"stack.paths_re", "ERE of its folders as profiles name them"},
      {"install.cuda", "the CUDA release to install (13.0)"},
      {"install.cuda_home", "its folder (/usr/local/cuda-13.0)"},
      {"install.driver_branch", "the NVIDIA driver branch to install (580)"},
      {"install.driver_flavour", "open or proprietary kernel modules"},
      {"install.driver_packages", "the driver packages (nvidia-open-580, cuda-drivers-535, ...)", true},
      {"install.driver_stream", "RHEL 8 and 9: the nvidia-driver module stream (580-open), else empty"},
      {"install.driver_switch",
       "RHEL family: the NVIDIA packages installed, which the driver's switch of flavour or branch may "
       "remove "
       "or change (NVIDIA's dnf module switch-to / dnf install --allowerasing)",
       true},
      {"install.epel",
       "RHEL family but Fedora: EPEL's epel-release package (or its URL on RHEL), else empty"},
      {"install.crb", "RHEL family but Fedora: the builder repository to enable (crb, powertools, RHEL's "
                      "codeready-builder-for-rhel-N-x86_64-rpms), else empty"},
      {"install.toolkit_packages", "the toolkit packages (cuda-toolkit-13-0)", true},
      {"install.replaced",
       "the distribution's builds of the stack (by Maintainer and Version) the install's step purges "
       "first",
       true},
      {"install.repo_url", "NVIDIA's repository folder for this OS (or the mirror's)"},
      {"install.mirror", "the --mirror URL, else empty"},
      {"install.vendor_repo", "the vendor's own repository URL when no mirror is used, else empty"},
      {"install.vendor_repo_ids", "the vendor's repositories (URL without scheme) a mirror's sources replace",
       true},
      {"install.key_url", "the vendor repository's signing key URL (or the mirror's)"},
      {"install.rocm", "the ROCm release to install (7.2)"},
      {"install.amdgpu_dir", "its amdgpu driver repository folder (30.30)"},
      {"install.amdgpu_url", "AMD's amdgpu repository URL for it (or the mirror's)"},
      {"install.rocm_url", "AMD's ROCm repository URL (or the mirror's)"},
      {"install.graphics_url", "AMD's graphics repository URL (ROCm 7), else empty"},
      {"install.codename", "the release name AMD's apt repositories are used with here (jammy, noble)"},
      {"torch.python", "the virtual and conda environments' pythons (the one in use first)", true},
      {"torch.outgoing", "pip distributions (globs) of the other vendor's PyTorch that go with it", true},
      {"torch.user", "the user owning that environment"},
      {"torch.index_url",
       "the PyTorch wheel index (https://download.pytorch.org/whl/cu130, or the mirror's)"},
      {"torch.tag", "the local version tag of its wheels (cu130, rocm7.2)"},
      {"torch.spec", "what to install: torch, or torch==VERSION with --torch"},
      {"repo.codename_edits", "vendor source files naming another release: file, old, new (repeated)", true},
      {"ctk.repo_url", "NVIDIA's container-toolkit repository (or the mirror's)"},
      {"ctk.key_url", "its signing key URL"},
      {"cuda.target", "the CUDA toolkit folder env-cuda-paths names everywhere"},
      {"cuda.stubs_ld_conf", "ld.so.conf files naming a CUDA stubs folder (env.cuda-stubs)", true},
      {"cuda.stubs_re", "ERE of those stubs folders, as literal paths"},
      {"post.checks", "the check ids that must pass after a migration, comma-separated"},
      {"post.gpudoctor", "the absolute path of the gpudoctor that wrote the script (its check step runs it)"},
  };
  return params;
}

bool is_known_param(const std::string& name) {
  const auto& all = param_catalogue();
  return std::any_of(all.begin(), all.end(), [&](const ParamInfo& p) { return name == p.name; });
}

bool is_list_param(const std::string& name) {
  const auto& all = param_catalogue();
  return std::any_of(all.begin(), all.end(), [&](const ParamInfo& p) { return name == p.name && p.list; });
}

const std::vector<std::string>& Params::get(const std::string& name) const {
  static const std::vector<std::string> none;
  auto it = m_values.find(name);
  return it == m_values.end() ? none : it->second;
}

std::vector<std::string> placeholders(const std::string& text) {
  std::vector<std::string> out;
  for (std::size_t at = text.find("{{"); at != std::string::npos; at = text.find("{{", at + 2)) {
    auto end = text.find("}}", at + 2);
    if (end == std::string::npos) break;
    std::string name = text.substr(at + 2, end - at - 2);
    if (!name.empty() && name[0] == '!') name.erase(0, 1);
    out.push_back(name);
  }
  return out;
}

std::expected<std::string, std::string> expand(const std::string& text, const Params& params,
                                               bool raw_everywhere) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    auto at = text.find("{{", pos);
    auto end = at == std::string::npos ? std::string::npos : text.find("}}", at + 2);
    if (end == std::string::npos) {
      out += text.substr(pos);
      return out;
    }
    out += text.substr(pos, at - pos);
    std::string name = text.substr(at + 2, end - at - 2);
    bool raw = !name.empty() && name[0] == '!';
    if (raw) name.erase(0, 1);
    const auto& words = params.get(name);
    std::string value;
    for (const auto& w : words) {
      if (!value.empty()) value += ' ';
      if (!raw_everywhere && w.find('\0') != std::string::npos)
        return std::unexpected(fmt::format("the value of {} has a NUL byte, which bash cannot hold", name));
      if (raw && !raw_everywhere)
        if (auto bad = unsafe_for_raw(w); !bad.empty())
          return std::unexpected(
              fmt::format("the value of {} (\"{}\") has a '{}', which a script may not hold unquoted", name,
                          script_comment(w), script_comment(bad)));
      value += raw || raw_everywhere ? w : shell_quote(w);
    }
    if (words.empty() && !raw && !raw_everywhere && !is_list_param(name)) value = "''";
    out += value;
    pos = end + 2;
  }
}

} // namespace gpudoctor::fix
