// Binding a recipe's parameters from the facts, the inventory and the version choice.
#include "fix/params.hpp"
#include "fix/plan.hpp"
#include "util/linear_regex.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace gpudoctor::fix {

std::string mirror_url(const std::string& url, const std::string& mirror) {
  if (mirror.empty()) return url;
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  auto path = url.find('/', scheme + 3);
  std::string base = mirror;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  return base + (path == std::string::npos ? "/" : url.substr(path));
}

namespace {

std::string run_user(const Facts& facts) {
  const auto& id = facts.permissions.identity;
  if (id.uid == 0)
    if (auto it = facts.env.all.find("SUDO_USER");
        it != facts.env.all.end() && !it->second.empty() && it->second != "root")
      return it->second;
  return id.user;
}

// Secure Boot on a machine (not a container, whose kernel is the host's): kernel modules must be signed by a
// key the firmware trusts.
bool secure_boot(const Facts& facts) {
  return !facts.os.in_container && facts.boot.secure_boot && *facts.boot.secure_boot == "enabled";
}

// Every vendor's keep globs: what no purge or autoremove may take (kernels, dkms, Mesa, firmware).
std::vector<std::string> keep_globs(const Stacks& stacks) {
  std::vector<std::string> out;
  for (const auto& v : stacks.vendors)
    for (const auto& g : v.keep)
      if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
  return out;
}

void bind_stack(Params& p, const StackInventory& inv, const VendorStack& stack, const Stacks& stacks,
                bool migrating) {
  p.set("stack.packages", inv.packages);
  p.set("stack.held", inv.held);
  p.set("stack.replacements", inv.replacements);
  p.set("stack.versionlocks", inv.versionlocks);
  p.set("stack.keep", keep_globs(stacks));
  p.set("stack.device_nodes", stack.device_nodes);
  p.set("stack.services", stack.services);
  p.set("stack.user_caches", inv.user_caches);
  p.set("stack.container_edits", inv.container_edits);
  p.set("stack.cdi", inv.cdi);
  p.set("stack.config_packages", inv.config_packages);
  p.set("stack.dkms", inv.dkms);
  p.set("stack.trees", inv.trees);
  p.set("stack.alternatives", inv.alternatives);
  p.set("stack.sources", inv.sources);
  p.set("stack.source_edits", inv.source_edits);
  p.set("stack.hosts", inv.hosts);
  p.set("stack.keyrings", inv.keyrings);
  p.set("stack.pins", inv.pins);
  p.set("stack.ld_conf", inv.ld_conf);
  p.set("stack.modprobe", inv.modprobe);
  p.set("stack.icd", inv.icd);
  // A migration also drops the GPU selection: its indices and UUIDs name GPUs that leave the machine.
  p.set("stack.vars_re", migrating && !stacks.device_selection_vars.empty()
                             ? stack.profile_vars + "|" + stacks.device_selection_vars
                             : stack.profile_vars);
  p.set("stack.paths_re", stack.profile_paths);
}

// Repository URLs as apt compares them (gd_repo_id): no scheme, no trailing slash.
std::string repo_id(const std::string& url) {
  auto scheme = url.find("://");
  std::string id = scheme == std::string::npos ? url : url.substr(scheme + 3);
  while (!id.empty() && id.back() == '/')
    id.pop_back();
  return id;
}

// Where the vendor's repositories come from: the mirror (whose sources replace the vendor's), or the vendor.
void bind_repo_origin(Params& p, const std::vector<std::string>& vendor_urls, const std::string& mirror) {
  p.set("install.mirror", mirror);
  p.set("install.vendor_repo", mirror.empty() && !vendor_urls.empty() ? vendor_urls.front() : "");
  std::vector<std::string> ids;
  if (!mirror.empty())
    for (const auto& u : vendor_urls)
      ids.push_back(repo_id(u));
  p.set("install.vendor_repo_ids", ids);
}

// EPEL (DKMS and other dependencies) and the distribution's builder repository (CRB; PowerTools on 8),
// which NVIDIA's and AMD's guides enable on the RHEL family: Rocky and AlmaLinux ship epel-release in their
// extras, RHEL takes it from Fedora's URL and enables CodeReady Builder with subscription-manager. Fedora
// needs neither (its own repositories hold DKMS).
void bind_rhel_extras(Params& p, const OsKey& os) {
  std::string epel, crb;
  if (os.family == Family::rhel && os.base_id == "rhel") {
    std::string major = text::version_prefix(os.base_version, 1);
    if (os.id == "rhel") {
      epel = fmt::format("https://dl.fedoraproject.org/pub/epel/epel-release-latest-{}.noarch.rpm", major);
      crb = fmt::format("codeready-builder-for-rhel-{}-x86_64-rpms", major);
    } else {
      epel = "epel-release";
      crb = major == "8" ? "powertools" : "crb";
    }
  }
  p.set("install.epel", epel);
  p.set("install.crb", crb);
}

// NVIDIA's nvidia-driver module stream (580-open, 535-dkms): only RHEL 8 and 9 have module streams (RHEL 10
// dropped modularity, Fedora did with 39).
std::string nvidia_driver_stream(const OsKey& os, int branch, bool open_modules) {
  std::string major = text::version_prefix(os.base_version, 1);
  if (os.family != Family::rhel || os.base_id != "rhel" || (major != "8" && major != "9")) return "";
  return fmt::format("{}-{}", branch, open_modules ? "open" : "dkms");
}

// What the plan says about held packages of the stack it installs (left from an earlier install): apt keeps
// them at their version, so the install may fail there; the script names them again if it does.
void hold_notes(const StackInventory& incoming, std::vector<std::string>& notes) {
  if (!incoming.held.empty())
    notes.push_back(
        fmt::format("held with apt-mark hold: {}, of the stack this plan installs: apt keeps them at "
                    "their version, so the install may fail; release them (apt-mark unhold) if it does",
                    text::join(incoming.held, ", ")));
}

// Whether an apt Package: pattern (apt_preferences(5): a name, a glob, or /regex/, an unanchored ERE) names
// NAME. The pattern is the machine's text: matched linearly (util/linear_regex), never by a backtracking
// regex. The anchors pins use most (`/^cuda-/`, `/-dev$/`) at the ends of the whole expression bound the
// match there; one elsewhere (or a regex LinearRegex refuses) names nothing.
bool pin_names(const std::string& pattern, const std::string& name) {
  if (pattern.size() > 2 && pattern.front() == '/' && pattern.back() == '/') {
    std::string body = pattern.substr(1, pattern.size() - 2);
    bool from_start = body.starts_with('^');
    if (from_start) body.erase(0, 1);
    bool to_end = body.ends_with('$') && !body.ends_with("\\$");
    if (to_end) body.pop_back();
    auto re = LinearRegex::compile(fmt::format("{}({}){}", from_start ? "" : ".*", body, to_end ? "" : ".*"));
    return re && re->full_match(name);
  }
  return text::glob_match(pattern, name);
}

// What the plan says about the admin's apt pins that apply to what it installs: apt may refuse the install or
// take another version, and the script then stops before anything is removed, naming the pin again. A
// "Package: *" stanza counts only when it forbids (a negative priority).
void pin_notes(const Inventory& inv, const std::vector<std::string>& installs,
               std::vector<std::string>& notes) {
  for (const auto& pin : inv.apt_pins) {
    std::vector<std::string> hit;
    bool forbids = text::starts_with(text::trim(pin.priority), "-");
    for (const auto& pattern : text::split(pin.packages, ' '))
      for (const auto& name : installs)
        if ((pattern == "*" ? forbids : pin_names(pattern, name)) &&
            std::find(hit.begin(), hit.end(), name) == hit.end())
          hit.push_back(name);
    if (!hit.empty())
      notes.push_back(
          fmt::format("an admin's apt pin in {} (Package: {}; Pin: {}; Pin-Priority: {}) applies to "
                      "{}, which this plan installs: apt may refuse them or take another version; "
                      "the script then stops before anything is removed and names the pin",
                      pin.file, pin.packages, pin.pin, pin.priority, text::join(hit, ", ")));
  }
}

// Kept packages (package, who needs it) grouped by who needs them, in the order of that name.
std::map<std::string, std::vector<std::string>>
by_needer(const std::vector<std::pair<std::string, std::string>>& kept) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [pkg, user] : kept)
    out[user].push_back(pkg);
  return out;
}

// The distribution's builds of the stack an install replaces: purged by the install's own step, just before
// it (the vendors' repositories reuse the distribution's names, so the two would mix), and what stays.
void bind_replaced(Params& p, const StackInventory& inv, const Facts& facts, const OsKey& os,
                   const std::string& incoming, std::vector<std::string>& notes) {
  // NAME=VERSION: the check after the step tells the distribution's build from the vendor's of that name.
  std::vector<std::string> specs;
  for (const auto& name : inv.distribution) {
    auto it = facts.packages.installed.find(name);
    specs.push_back(it == facts.packages.installed.end() ? name : name + "=" + it->second);
  }
  p.set("install.replaced", specs);
  if (!inv.distribution.empty())
    notes.push_back(fmt::format(
        "{}'s own builds installed here ({}), told by their Maintainer and Version, are purged by the "
        "step that installs {}, just before it (what it installs is downloaded first, as the purge leaves "
        "the machine): the vendor's repository reuses their names and files, so the two are never mixed; "
        "a failed install puts them back, and so does gpudoctor undo",
        os.name, text::join(inv.distribution, ", "), incoming));
  for (const auto& [user, pkgs] : by_needer(inv.distribution_kept))
    notes.push_back(fmt::format(
        "kept: {}'s {}, which {} needs (it is no part of the stack); the install stops before it changes "
        "anything if {} cannot be installed beside them",
        os.name, text::join(pkgs, ", "), user, incoming));
}

// On the RHEL family an installed NVIDIA driver of another flavour or branch conflicts with the new one (its
// kmod package), so dnf refuses the plain install: the driver's step switches it as NVIDIA's driver
// installation guide does ("Switching between Driver Module Flavors"), and may remove or change only the
// NVIDIA packages installed now (the plan names them; the script checks dnf's transaction first).
void bind_driver_switch(Params& p, const StackInventory& present, const OsKey& os, const std::string& stream,
                        const std::string& meta, std::vector<std::string>& notes) {
  std::vector<std::string> erasable =
      os.family == Family::rhel ? present.packages : std::vector<std::string>{};
  p.set("install.driver_switch", erasable);
  if (erasable.empty()) return;
  std::string command = stream.empty() ? "dnf install --allowerasing " + meta
                                       : "dnf module switch-to nvidia-driver:" + stream + " --allowerasing";
  notes.push_back(fmt::format(
      "NVIDIA's packages are installed ({}): the driver's step switches them as NVIDIA's driver installation "
      "guide does ({}), after dnf's transaction shows that it removes or changes none but those; their RPMs "
      "are downloaded first, so gpudoctor undo puts them back at their versions",
      text::join(erasable, ", "), command));
}

std::expected<void, std::string> bind_nvidia_install(Params& p, const OsKey& os, const PlanContext& ctx,
                                                     std::vector<std::string>& notes) {
  auto c = choose_nvidia(ctx.facts, ctx.kb, ctx.stacks, ctx.options.versions);
  if (!c) return std::unexpected(c.error());
  auto dir = Stacks::for_os(ctx.stacks.nvidia_repo_dirs, os.base_id, os.base_version);
  if (!dir) return std::unexpected("NVIDIA has no CUDA repository gpudoctor knows for " + os.name);
  auto key = ctx.stacks.key("nvidia", family_name(os.family));
  if (!key)
    return std::unexpected("fixes/stacks.yaml has no NVIDIA signing key for " + family_name(os.family));
  std::string repo = "https://developer.download.nvidia.com/compute/cuda/repos/" + dir->value + "/x86_64/";
  std::string key_url = key->url;
  if (auto at = key_url.find("{dir}"); at != std::string::npos) key_url.replace(at, 5, dir->value);
  std::string branch = std::to_string(c->branch);
  std::string meta = c->open_modules ? "nvidia-open" : "cuda-drivers";
  std::vector<std::string> driver;
  std::string stream;
  if (os.family == Family::rhel) {
    driver = {meta};
    stream = nvidia_driver_stream(os, c->branch, c->open_modules);
  } else if (c->branch >= 590) {
    driver = {"nvidia-driver-pinning-" + branch, meta};
  } else {
    driver = {meta + "-" + branch};
  }
  std::string suffix = c->cuda;
  std::replace(suffix.begin(), suffix.end(), '.', '-');
  p.set("install.cuda", c->cuda);
  p.set("install.cuda_home", "/usr/local/cuda-" + c->cuda);
  p.set("install.driver_branch", branch);
  p.set("install.driver_flavour", c->open_modules ? "open" : "proprietary");
  p.set("install.driver_packages", driver);
  p.set("install.driver_stream", stream);
  p.set("install.toolkit_packages", std::vector<std::string>{"cuda-toolkit-" + suffix});
  p.set("install.repo_url", mirror_url(repo, ctx.options.mirror));
  p.set("install.key_url", mirror_url(key_url, ctx.options.mirror));
  bind_repo_origin(p, {repo}, ctx.options.mirror);
  if (secure_boot(ctx.facts))
    c->notes.push_back(
        "Secure Boot is on (mokutil --sb-state): the driver comes from NVIDIA's repository as a DKMS module, "
        "signed with DKMS's key, which the plan enrolls as a Machine Owner Key (mokutil --import; you "
        "confirm "
        "it at the MOK screen of the next boot) and the module is checked loaded after the reboot. The other "
        "consistent way, Ubuntu's archive driver throughout with its signed prebuilt "
        "linux-modules-nvidia-<branch>-<flavour> packages (Ubuntu kernels only, never mixed with NVIDIA's "
        "repository), is not what this plan does");
  bind_rhel_extras(p, os);
  const StackInventory& present = ctx.inventory.of("nvidia");
  bind_driver_switch(p, present, os, stream, meta, c->notes);
  bind_replaced(p, present, ctx.facts, os, fmt::format("NVIDIA's driver {}", branch), c->notes);
  hold_notes(present, c->notes);
  std::vector<std::string> installs = driver;
  installs.push_back("cuda-toolkit-" + suffix);
  pin_notes(ctx.inventory, installs, c->notes);
  if (dir->uncertain) c->notes.push_back("NVIDIA's repository folder " + dir->value + " is not confirmed");
  if (key->uncertain) c->notes.push_back("the signing key URL " + key_url + " is not confirmed");
  notes.insert(notes.end(), c->notes.begin(), c->notes.end());
  return {};
}

std::expected<void, std::string> bind_amd_install(Params& p, const OsKey& os, const PlanContext& ctx,
                                                  std::vector<std::string>& notes) {
  if (os.base_id == "fedora")
    return std::unexpected(
        "AMD publishes no ROCm repository for Fedora, which packages ROCm itself (rocm-hip, rocm-opencl, "
        "rocminfo, ... from Fedora's repositories): gpudoctor installs AMD's repositories only, so it does "
        "not "
        "install ROCm on " +
        os.name);
  auto c = choose_amd(ctx.facts, ctx.kb, ctx.stacks, os, ctx.options.versions);
  if (!c) return std::unexpected(c.error());
  auto key = ctx.stacks.key("amd", family_name(os.family));
  if (!key) return std::unexpected("fixes/stacks.yaml has no AMD signing key for " + family_name(os.family));
  const RocmInstallRow& r = c->install;
  std::string amdgpu, rocm, graphics, codename;
  if (os.family == Family::debian) {
    codename = os.ubuntu ? os.codename : "";
    if (!os.ubuntu)
      if (auto row = Stacks::for_os(ctx.stacks.amd_apt_codenames, os.base_id, os.base_version))
        codename = row->value;
    if (codename.empty())
      return std::unexpected("gpudoctor does not know which AMD apt suite serves " + os.name);
    amdgpu = "https://repo.radeon.com/amdgpu/" + r.amdgpu_dir + "/ubuntu";
    rocm = "https://repo.radeon.com/rocm/apt/" + r.apt_dir;
    if (!r.graphics_dir.empty()) graphics = "https://repo.radeon.com/graphics/" + r.graphics_dir + "/ubuntu";
  } else {
    std::string major = text::version_prefix(os.base_version, 1);
    amdgpu = "https://repo.radeon.com/amdgpu/" + r.amdgpu_dir + "/el/" + os.base_version + "/main/x86_64/";
    rocm = "https://repo.radeon.com/rocm/el" + major + "/" + r.apt_dir + "/main";
    // One tree per EL minor release (ROCM-EL-7): the RHEL releases of this ROCm release's OS list
    // (rocm.yaml), the machine's by os-release's VERSION_ID. "rocky 9" in that list does not make a 9.5 tree.
    if (!r.graphics_dir.empty()) {
      std::vector<std::string> published;
      if (auto rel = ctx.kb.rocm_release(r.rocm))
        for (const auto& entry : rel->os)
          if (text::starts_with(entry, "rhel ")) published.push_back(entry.substr(5));
      if (std::ranges::find(published, os.base_version) == published.end())
        return std::unexpected(
            fmt::format("AMD publishes ROCm {}'s graphics repository (which its packages need) for EL {} "
                        "only, not for {} (EL {}): update the system to one of those releases, or choose an "
                        "older ROCm with --rocm",
                        r.rocm, text::join(published, ", "), os.name, os.base_version));
      graphics =
          "https://repo.radeon.com/graphics/" + r.graphics_dir + "/el/" + os.base_version + "/main/x86_64/";
    }
  }
  // Under Secure Boot an out-of-tree amdgpu-dkms would need a Machine Owner Key; the kernel's own amdgpu is
  // signed with it (ROCm's --no-dkms path, ROCM-INST).
  bool dkms = !secure_boot(ctx.facts);
  p.set("install.amdgpu_dkms", dkms ? "yes" : "");
  if (!dkms)
    c->notes.push_back(
        "Secure Boot is on (mokutil --sb-state): ROCm without amdgpu-dkms (ROCm's --no-dkms path), on the "
        "distribution kernel's in-tree amdgpu, which is signed with the kernel and needs no Machine Owner "
        "Key; "
        "that kernel must be new enough for the GPU");
  p.set("install.rocm", r.rocm);
  p.set("install.amdgpu_dir", r.amdgpu_dir);
  p.set("install.amdgpu_url", mirror_url(amdgpu, ctx.options.mirror));
  p.set("install.rocm_url", mirror_url(rocm, ctx.options.mirror));
  p.set("install.graphics_url", graphics.empty() ? "" : mirror_url(graphics, ctx.options.mirror));
  p.set("install.codename", codename);
  p.set("install.key_url", mirror_url(key->url, ctx.options.mirror));
  std::vector<std::string> vendor_urls = {amdgpu, rocm};
  if (!graphics.empty()) vendor_urls.push_back(graphics);
  bind_repo_origin(p, vendor_urls, ctx.options.mirror);
  bind_rhel_extras(p, os);
  bind_replaced(p, ctx.inventory.of("amd"), ctx.facts, os, "AMD's ROCm " + r.rocm, c->notes);
  hold_notes(ctx.inventory.of("amd"), c->notes);
  pin_notes(ctx.inventory,
            dkms ? std::vector<std::string>{"amdgpu-dkms", "rocm"} : std::vector<std::string>{"rocm"},
            c->notes);
  notes.insert(notes.end(), c->notes.begin(), c->notes.end());
  return {};
}

// The Python environments gpudoctor may change (venvs and conda envs, never the system's), the one in use
// first.
std::vector<std::string> pythons_to_change(const Facts& facts) {
  std::vector<std::string> out;
  for (const auto& env : facts.python.envs) {
    const std::string& exe = env.executable;
    // An interpreter that did not answer is only taken when it was named (--python): the script checks it.
    if (exe.empty() || exe.front() != '/' || env.role == "system" || text::starts_with(exe, "/usr/") ||
        text::starts_with(exe, "/bin/") || (!env.error.empty() && env.role != "--python"))
      continue;
    if (std::find(out.begin(), out.end(), exe) == out.end()) out.push_back(exe);
  }
  return out;
}

std::expected<void, std::string> bind_torch(Params& p, const std::string& vendor, const OsKey& os,
                                            const PlanContext& ctx, bool migrating,
                                            std::vector<std::string>& notes) {
  std::string index;
  bool host_driver = ctx.facts.os.in_container && vendor == "nvidia" &&
                     (ctx.facts.nvidia.kernel_module_version || ctx.facts.nvidia.smi_driver_version);
  if (!host_driver &&
      (migrating || !ctx.options.versions.cuda.empty() || !ctx.options.versions.rocm.empty())) {
    if (vendor == "nvidia") {
      auto c = choose_nvidia(ctx.facts, ctx.kb, ctx.stacks, ctx.options.versions);
      if (!c) return std::unexpected(c.error());
      index = c->torch_index;
    } else {
      auto c = choose_amd(ctx.facts, ctx.kb, ctx.stacks, os, ctx.options.versions);
      if (!c) return std::unexpected(c.error());
      index = c->torch_index;
    }
  } else {
    auto t =
        choose_torch_here(ctx.facts, ctx.kb, ctx.stacks, vendor == "nvidia" ? Vendor::nvidia : Vendor::amd);
    if (!t) return std::unexpected(t.error());
    index = t->index;
    notes.push_back("PyTorch index " + index + ": " + t->why);
  }
  auto pythons = pythons_to_change(ctx.facts);
  if (index.empty() || pythons.empty()) {
    if (pythons.empty())
      notes.push_back(
          "no virtual or conda environment is in use: PyTorch is not reinstalled (gpudoctor never "
          "pip-installs into the system Python)");
    return {};
  }
  p.set("torch.python", pythons);
  if (const auto* other = ctx.stacks.vendor(vendor == "nvidia" ? "amd" : "nvidia"))
    p.set("torch.outgoing", other->wheels);
  p.set("torch.user", run_user(ctx.facts));
  p.set("torch.index_url", mirror_url("https://download.pytorch.org/whl/" + index, ctx.options.mirror));
  p.set("torch.tag", index);
  p.set("torch.spec", ctx.options.versions.torch.empty() ? "torch" : "torch==" + ctx.options.versions.torch);
  return {};
}

// Vendor sources that name another release than this OS: file, old word, new word.
std::vector<std::string> codename_edits(const OsKey& os, const PlanContext& ctx) {
  std::vector<std::string> edits;
  auto nv_dir = Stacks::for_os(ctx.stacks.nvidia_repo_dirs, os.base_id, os.base_version);
  for (const auto& s : ctx.facts.repos.sources) {
    if (s.kind != "apt" || !s.release_specific || (s.vendor != "amd" && s.vendor != "nvidia")) continue;
    std::string file = s.origin.substr(0, s.origin.rfind(':'));
    std::string old_word, new_word;
    if (auto at = s.uri.find("/repos/"); s.vendor == "nvidia" && at != std::string::npos && nv_dir) {
      std::string dir = s.uri.substr(at + 7, s.uri.find('/', at + 7) - at - 7);
      if (dir != nv_dir->value) old_word = dir, new_word = nv_dir->value;
    } else if (!s.suite.empty() && s.suite.back() != '/' && os.ubuntu && s.suite != os.codename) {
      old_word = s.suite, new_word = os.codename;
    }
    if (old_word.empty()) continue;
    std::vector<std::string> edit = {file, old_word, new_word};
    if (std::search(edits.begin(), edits.end(), edit.begin(), edit.end()) == edits.end())
      edits.insert(edits.end(), edit.begin(), edit.end());
  }
  return edits;
}

// The CUDA toolkit env-cuda-paths names: the newest installed one the loaded driver runs.
std::string cuda_target(const PlanContext& ctx) {
  std::string driver = ctx.facts.nvidia.kernel_module_version ? *ctx.facts.nvidia.kernel_module_version : "";
  std::string best, best_version;
  for (const auto& c : ctx.facts.toolkits.cuda) {
    if (!c.version || c.path == "/usr/local/cuda") continue;
    if (!driver.empty())
      if (auto runs = ctx.kb.driver_runs_cuda(driver, *c.version); runs && !*runs) continue;
    if (best.empty() || text::compare_versions(*c.version, best_version) > 0)
      best = c.path, best_version = *c.version;
  }
  return best;
}

// env.cuda-stubs' folders named in ld.so.conf files: the files (origin "file:line"), and an ERE of the
// folders themselves (escaped literals) for gd_clean_ld_conf.
void bind_cuda_stubs(Params& p, const Facts& facts) {
  std::vector<std::string> files, dirs;
  for (const auto& d : facts.host.loader_dirs) {
    if (d.origin.empty() || d.origin[0] != '/' || !text::ends_with(d.dir, "/stubs")) continue;
    std::string file = d.origin.substr(0, d.origin.rfind(':'));
    if (std::ranges::find(files, file) == files.end()) files.push_back(file);
    std::string re;
    for (char c : d.dir) {
      if (std::string_view(".[]()*+?{}|^$\\").find(c) != std::string_view::npos) re += '\\';
      re += c;
    }
    if (std::ranges::find(dirs, re) == dirs.end()) dirs.push_back(re);
  }
  p.set("cuda.stubs_ld_conf", files);
  p.set("cuda.stubs_re", text::join(dirs, "|"));
}

std::string list_of(const std::vector<std::string>& names) {
  return text::join(names, ", ");
}

// What the plan should say about a purge: what stays and why, what comes in its place, what it stops for.
void purge_notes(const StackInventory& inv, const std::string& vendor, const PlanOptions& opt,
                 std::vector<std::string>& notes) {
  std::string stack = vendor == "amd" ? "ROCm" : "NVIDIA";
  for (const auto& [user, pkgs] : by_needer(inv.kept))
    notes.push_back("kept: " + list_of(pkgs) + ", which " + user + " needs; " + user +
                    " is not part of the " + stack +
                    " stack and removing them would remove it (gpudoctor check says the same: "
                    "stack.both-vendors)");
  if (!inv.held.empty())
    notes.push_back("held with apt-mark hold: " + list_of(inv.held) +
                    (opt.unhold ? ": released before the purge (--unhold; gpudoctor undo holds them again)"
                                : ": the script stops before changing anything; make the plan with --unhold "
                                  "(or run the script with --unhold) to release them"));
  if (!inv.versionlocks.empty())
    notes.push_back("dnf version locks removed with the packages: " + list_of(inv.versionlocks));
  if (!inv.replacements.empty())
    notes.push_back("the distribution's " + list_of(inv.replacements) + " come in the same transaction as " +
                    (vendor == "amd" ? "AMD" : "NVIDIA") +
                    "'s own builds of them go, so what needs them (a "
                    "desktop) keeps working");
  if (!inv.orphans.empty())
    notes.push_back(
        "apt would then autoremove " + list_of(inv.orphans) +
        ": the cleanup step purges exactly what this purge orphaned, never a kernel, dkms or Mesa");
  if (!inv.container_edits.empty() || !inv.cdi.empty())
    notes.push_back(
        "NVIDIA's runtime leaves Docker's and containerd's configuration and its CDI specs go; Docker "
        "and containerd read it when they restart (the reboot)");
  notes.insert(notes.end(), inv.notes.begin(), inv.notes.end());
}

// The key DKMS signs the driver's module with here and its certificate (knowledge secure_boot.yaml): by the
// installed dkms's version (unknown: the distribution's newest) and the distribution as dkms names it.
void bind_signing_key(Params& p, const PlanContext& ctx) {
  const OsFacts& os = ctx.facts.os;
  const ModuleSigningRow* row = ctx.kb.module_signing_for(
      "dkms", ctx.facts.packages.version_of("dkms").value_or(""), os.id ? *os.id : "", os.id_like);
  p.set("boot.mok_key", row ? row->key : "");
  p.set("boot.mok_certificate", row ? row->certificate : "");
  p.set("boot.mok_maker", row ? row->made_by : "none");
}

} // namespace

std::expected<Params, std::string> bind_params(const Recipe& recipe, const std::string& vendor,
                                               const OsKey& os, const PlanContext& ctx, bool migrating,
                                               std::vector<std::string>& notes) {
  Params p;
  p.set("family", family_name(os.family));
  p.set("os.ubuntu", os.ubuntu ? "yes" : "");
  p.set("os.rhel", os.family == Family::rhel ? "yes" : "");
  p.set("opt.unhold", ctx.options.unhold ? "yes" : "");
  p.set("opt.stop_gpu_users", ctx.options.stop_gpu_users ? "yes" : "");
  p.set("boot.mok", secure_boot(ctx.facts) ? "yes" : "");
  p.set("boot.mok_reboot", secure_boot(ctx.facts) && ctx.options.swap_in.empty() ? "yes" : "");
  p.set("boot.module", vendor == "amd" ? "amdgpu" : "nvidia");
  bind_signing_key(p, ctx);
  p.set("swap.card", ctx.options.swap_in);
  p.set("swap.old", ctx.options.swap_out);
  p.set("reboot.plain", ctx.options.swap_in.empty() ? "yes" : "");
  p.set("user", run_user(ctx.facts));
  p.set("homes", ctx.inventory.homes);
  if (vendor == "amd" || vendor == "nvidia")
    if (const auto* stack = ctx.stacks.vendor(vendor))
      bind_stack(p, ctx.inventory.of(vendor), *stack, ctx.stacks, migrating);
  if (text::starts_with(recipe.id, "purge-") && (vendor == "amd" || vendor == "nvidia"))
    purge_notes(ctx.inventory.of(vendor), vendor, ctx.options, notes);
  if (recipe.id == "install-nvidia")
    if (auto r = bind_nvidia_install(p, os, ctx, notes); !r) return std::unexpected(r.error());
  if (recipe.id == "install-rocm")
    if (auto r = bind_amd_install(p, os, ctx, notes); !r) return std::unexpected(r.error());
  if (recipe.id == "torch-reinstall")
    if (auto r = bind_torch(p, vendor, os, ctx, migrating, notes); !r) return std::unexpected(r.error());
  if (recipe.id == "repo-fix-codename") p.set("repo.codename_edits", codename_edits(os, ctx));
  if (recipe.id == "env-cuda-paths") {
    p.set("cuda.target", cuda_target(ctx));
    bind_cuda_stubs(p, ctx.facts);
  }
  p.set("ctk.repo_url", mirror_url("https://nvidia.github.io/libnvidia-container", ctx.options.mirror));
  p.set("ctk.key_url", mirror_url("https://nvidia.github.io/libnvidia-container/gpgkey", ctx.options.mirror));
  return p;
}

} // namespace gpudoctor::fix
