#include "fix/choose.hpp"

#include "util/text.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace gpudoctor::fix {

namespace {

bool has(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

std::string sm_name(int sm) {
  return "sm_" + std::to_string(sm);
}

// Compute capabilities of the NVIDIA GPUs whose model the tables know.
std::vector<int> nvidia_sms(const Facts& facts) {
  std::vector<int> out;
  for (const auto& gpu : facts.gpus)
    if (gpu.vendor == Vendor::nvidia)
      if (auto sm = sm_number(gpu.arch())) out.push_back(*sm);
  return out;
}

// The first CUDA release that builds for `sm` (the row of the nearest known capability at or below it).
std::optional<std::string> first_cuda_for(const Stacks& stacks, int sm) {
  std::optional<ArchFirst> best;
  for (const auto& r : stacks.cuda_arch_first)
    if (r.sm <= sm && (!best || r.sm > best->sm)) best = r;
  if (!best) return std::nullopt;
  return best->first_cuda;
}

// Why CUDA `cuda` cannot build for `sm`, or "" when it can.
std::string cuda_arch_problem(const Stacks& stacks, const std::string& cuda, int sm) {
  if (auto first = first_cuda_for(stacks, sm); first && text::compare_versions(cuda, *first) < 0)
    return "CUDA " + cuda + " cannot build for " + sm_name(sm) + ": that needs CUDA " + *first + " or newer";
  auto major = text::to_int(text::version_prefix(cuda, 1));
  for (const auto& r : stacks.cuda_major_min_arch)
    if (major && r.cuda_major == *major && sm < r.min_sm)
      return "CUDA " + std::to_string(r.cuda_major) + " no longer builds for compute capability below " +
             sm_name(r.min_sm) + ", and this GPU is " + sm_name(sm) + " (use CUDA 12)";
  return {};
}

std::string gpu_names(const Facts& facts, Vendor v) {
  std::vector<std::string> names;
  for (const auto& gpu : facts.gpus)
    if (gpu.vendor == v)
      names.push_back(gpu.display_name() + (gpu.arch().empty() ? "" : " (" + gpu.arch() + ")"));
  return text::join(names, ", ");
}

struct Flavour {
  bool open = true;
  std::string note;
};

// The kernel-module flavour for every NVIDIA GPU, from the table driver.module-flavour judges by
// (knowledge/health.yaml nvidia_module_flavours); a GPU without a row falls back to its compute capability
// (the open modules need Turing, sm_75, or later).
std::expected<Flavour, std::string> module_flavour_for(const Facts& facts, const Knowledge& kb, int branch) {
  std::string needs_open, needs_proprietary; // the first GPU that decides each way
  for (const auto& gpu : facts.gpus) {
    if (gpu.vendor != Vendor::nvidia || !gpu.model) continue;
    std::string who = fmt::format("{} ({})", gpu.display_name(), gpu.model->family);
    if (const auto* row = kb.health.module_flavour(*gpu.model)) {
      if (row->open == "unsupported" && needs_proprietary.empty()) needs_proprietary = who;
      if (row->proprietary == "unsupported" && needs_open.empty()) needs_open = who;
    } else if (auto sm = sm_number(gpu.arch()); sm && *sm < 75 && needs_proprietary.empty()) {
      needs_proprietary = who;
    }
  }
  if (!needs_open.empty() && !needs_proprietary.empty())
    return std::unexpected(
        fmt::format("no kernel-module flavour drives both {} (the open modules only) and {} "
                    "(the proprietary modules only): install on machines of one kind",
                    needs_open, needs_proprietary));
  if (!needs_proprietary.empty())
    return Flavour{false, fmt::format("proprietary kernel modules: the open modules do not drive {}",
                                      needs_proprietary)};
  if (!needs_open.empty())
    return Flavour{
        true,
        fmt::format("open kernel modules: {} needs them (the proprietary ones do not drive it)", needs_open)};
  // The default changed with R560 (knowledge health.yaml DRV-README-560): a note about it must fit the
  // branch.
  if (branch >= 560)
    return Flavour{true, "open kernel modules: NVIDIA's default since R560, for Turing (sm_75) and later"};
  return Flavour{true, fmt::format("open kernel modules, for Turing (sm_75) and later (R{} has them; before "
                                   "R560 NVIDIA's default was the proprietary modules)",
                                   branch)};
}

// The lowest long-lived branch (production or long-term support) from `min` on, with its kind; `min` itself
// when none is listed there (a new-feature branch).
std::pair<int, std::string> long_lived_branch(const Stacks& stacks, int min) {
  const BranchKind* best = nullptr;
  for (const auto& k : stacks.nvidia_branch_kinds)
    if (k.branch >= min && (!best || k.branch < best->branch)) best = &k;
  if (!best) return {min, ""};
  return {best->branch, best->kind};
}

// The wheel index chosen for these GPUs: the index and the CUDA of its wheels.
struct TorchIndex {
  std::string index, cuda;
  std::string torch; // the newest release on it
  bool uncertain = false;
};

// The arch names (sm_XX) of the NVIDIA GPUs whose model the tables know.
std::vector<std::string> nvidia_arches(const Facts& facts) {
  std::vector<std::string> out;
  for (const auto& gpu : facts.gpus)
    if (gpu.vendor == Vendor::nvidia && sm_number(gpu.arch())) out.push_back(gpu.arch());
  return out;
}

// The PyTorch CUDA index with the newest release whose CUDA `driver` runs (minor-version compatibility
// included) and whose wheels (those of the newest release on it: what `pip install torch` gets there) run on
// every GPU (knowledge pytorch_wheels.yaml, arch_rule); `preferred` wins when it qualifies.
std::optional<TorchIndex> torch_index_for(const Knowledge& kb, const std::string& driver,
                                          const std::vector<std::string>& arches,
                                          const std::string& preferred) {
  std::vector<TorchIndex> ok;
  for (const TorchWheelRow* w : kb.newest_torch_wheels()) {
    if (!w->is_cuda()) continue;
    if (auto runs = kb.driver_runs_cuda(driver, w->cuda); !runs || !*runs) continue;
    if (std::any_of(arches.begin(), arches.end(),
                    [&](const std::string& a) { return !arch_rule::list_runs_on(w->arches, a); }))
      continue;
    TorchIndex t{w->variant, w->cuda, w->torch, w->uncertain};
    if (t.index == preferred) return t;
    ok.push_back(t);
  }
  // The newest PyTorch first (an index that stopped at an older release gives an older torch), then CUDA.
  std::sort(ok.begin(), ok.end(), [](const auto& a, const auto& b) {
    if (int c = text::compare_versions(a.torch, b.torch); c != 0) return c > 0;
    return text::compare_versions(a.cuda, b.cuda) > 0;
  });
  if (ok.empty()) return std::nullopt;
  return ok.front();
}

int branch_of(const std::string& driver) {
  auto v = text::to_int(text::version_prefix(driver, 1));
  return v ? static_cast<int>(*v) : 0;
}

} // namespace

std::expected<OsKey, std::string> os_key(const Facts& facts, const Knowledge& kb) {
  OsKey os;
  os.id = facts.os.id ? *facts.os.id : "";
  os.version = facts.os.version_id ? *facts.os.version_id : "";
  os.name = facts.os.pretty_name ? *facts.os.pretty_name : os.id + " " + os.version;
  os.codename = facts.os.codename ? *facts.os.codename : "";
  auto like = [&](const char* what) { return os.id == what || has(facts.os.id_like, what); };
  if (os.id.empty()) return std::unexpected("the OS is unknown (no /etc/os-release was read)");
  if (like("ubuntu")) {
    os.family = Family::debian;
    os.ubuntu = true;
    os.base_id = "ubuntu";
    os.base_version = os.version;
    if (os.id != "ubuntu") {
      if (facts.repos.ubuntu_codename) os.codename = *facts.repos.ubuntu_codename;
      auto row = kb.distro_by_codename("ubuntu", os.codename);
      if (!row)
        return std::unexpected(os.name + " names no Ubuntu release gpudoctor knows (UBUNTU_CODENAME)");
      os.base_version = row->version;
    }
  } else if (like("debian")) {
    os.family = Family::debian;
    os.base_id = "debian";
    os.base_version = text::version_prefix(os.version, 1);
  } else if (like("rhel") || like("fedora") || like("centos")) {
    os.family = Family::rhel;
    // Fedora itself has its own vendor repositories (NVIDIA's fedoraNN); its rebuilds (ID_LIKE="fedora") are
    // RHEL's.
    os.base_id = os.id == "fedora" ? "fedora" : "rhel";
    os.base_version = os.version;
  } else {
    return std::unexpected("gpudoctor's recipes are for the Debian and RHEL families; this is " + os.name);
  }
  return os;
}

std::expected<NvidiaChoice, std::string> choose_nvidia(const Facts& facts, const Knowledge& kb,
                                                       const Stacks& stacks, const VersionRequest& req) {
  NvidiaChoice c;
  std::vector<int> sms = nvidia_sms(facts);
  std::string gpus = gpu_names(facts, Vendor::nvidia);
  if (facts.count(Vendor::nvidia) == 0)
    c.notes.push_back(
        "no NVIDIA GPU is in the machine and --gpu did not name the incoming card: gpudoctor assumed a card "
        "of Turing (sm_75) or later, which the chosen CUDA release and the open kernel modules drive; name "
        "the card with --gpu (\"RTX 3090\", or its PCI id such as 10de:2204) to choose for it");
  else if (sms.empty())
    c.notes.push_back("the tables do not know the compute capability of " + gpus +
                      ": versions not checked against it");
  auto problem_for = [&](const std::string& cuda) {
    for (int sm : sms)
      if (auto p = cuda_arch_problem(stacks, cuda, sm); !p.empty()) return p;
    return std::string{};
  };

  // The release picked from the table, and why a newer recommended one was not (what it cannot build for).
  std::optional<CudaInstallRow> chosen_row;
  std::string newer_left_out;
  if (!req.cuda.empty()) {
    if (!kb.min_driver_for_cuda(req.cuda))
      return std::unexpected("CUDA " + req.cuda + " is not in the knowledge tables");
    if (auto p = problem_for(req.cuda); !p.empty()) return std::unexpected(p + " (" + gpus + ")");
    c.cuda = text::version_prefix(req.cuda, 2);
  } else {
    std::vector<CudaInstallRow> rows = stacks.cuda_installs;
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return a.recommended != b.recommended ? a.recommended : text::compare_versions(a.cuda, b.cuda) > 0;
    });
    for (const auto& r : rows) {
      std::string problem = problem_for(r.cuda);
      if (problem.empty()) {
        c.cuda = r.cuda;
        chosen_row = r;
        break;
      }
      if (r.recommended && newer_left_out.empty()) newer_left_out = problem;
    }
    if (c.cuda.empty()) return std::unexpected("no CUDA release gpudoctor installs builds for " + gpus);
  }

  auto min = kb.min_driver_for_cuda(c.cuda);
  if (!min) return std::unexpected("the knowledge tables have no minimum driver for CUDA " + c.cuda);
  c.branch = branch_of(min->min_driver);
  std::string branch_why; // why the branch is not the minimum's
  if (req.driver.empty()) {
    auto [branch, kind] = long_lived_branch(stacks, c.branch);
    if (kind.empty())
      branch_why = ", a short-lived new-feature branch: NVIDIA lists no production or long-term support "
                   "branch from it on";
    else if (branch != c.branch)
      branch_why = fmt::format("; R{} is a short-lived new-feature branch, R{} the first of NVIDIA's {} "
                               "branches from there",
                               c.branch, branch, kind);
    else
      branch_why = fmt::format(", NVIDIA's {} branch", kind);
    c.branch = branch;
  }
  if (!req.driver.empty()) {
    int branch = branch_of(req.driver);
    if (branch <= 0) return std::unexpected("--driver " + req.driver + " is not a driver branch or version");
    std::string probe = text::contains(req.driver, ".") ? req.driver : req.driver + ".9999";
    if (auto runs = kb.driver_runs_cuda(probe, c.cuda); runs && !*runs)
      return std::unexpected(
          "driver " + req.driver + " cannot run CUDA " + c.cuda + ": it needs " + min->min_driver +
          " or newer (or a driver of the same CUDA major under minor-version compatibility)");
    if (auto row = kb.driver_branch(std::to_string(branch) + ".0"))
      for (int sm : sms)
        if (auto first = first_cuda_for(stacks, sm);
            first && text::compare_versions(row->max_cuda, *first) < 0)
          return std::unexpected("driver " + req.driver + " supports CUDA up to " + row->max_cuda + ", and " +
                                 sm_name(sm) + " (" + gpus + ") needs CUDA " + *first + " or newer");
    if (branch < c.branch)
      c.notes.push_back("driver " + std::to_string(branch) + " runs CUDA " + c.cuda +
                        " through minor-version compatibility only (features that need a newer driver fail)");
    c.branch = branch;
  }
  // Recommended rows are the CUDA releases of PyTorch's stable wheel indexes (fixes/stacks.yaml).
  std::string why_cuda =
      !req.cuda.empty() ? " (--cuda)"
      : chosen_row && chosen_row->recommended
          ? fmt::format(" (the release of PyTorch's {} wheels, the newest of those gpudoctor recommends that "
                        "builds for {}{})",
                        chosen_row->torch_index, gpus.empty() ? std::string("any GPU") : gpus,
                        newer_left_out.empty() ? "" : ": " + newer_left_out)
          : " (the newest gpudoctor installs that builds for " +
                (gpus.empty() ? std::string("any GPU") : gpus) + ")";
  c.notes.insert(c.notes.begin(),
                 "CUDA " + c.cuda + why_cuda + " with driver branch " + std::to_string(c.branch) +
                     (req.driver.empty()
                          ? " (CUDA " + c.cuda + " needs " + min->min_driver + " or newer" + branch_why + ")"
                          : " (--driver)"));
  auto flavour = module_flavour_for(facts, kb, c.branch);
  if (!flavour) return std::unexpected(flavour.error());
  c.open_modules = flavour->open;
  c.notes.push_back(flavour->note);

  std::string preferred;
  for (const auto& r : stacks.cuda_installs)
    if (r.cuda == c.cuda) preferred = r.torch_index;
  // The branch's newest driver stands for the one that gets installed.
  if (auto t = torch_index_for(kb, std::to_string(c.branch) + ".9999", nvidia_arches(facts), preferred)) {
    c.torch_index = t->index;
    c.notes.push_back("PyTorch from the " + t->index + " wheel index: the newest whose CUDA driver " +
                      std::to_string(c.branch) + " runs and whose wheels build for these GPUs");
    if (t->uncertain)
      c.notes.push_back("the arch list of PyTorch's " + t->index + " wheels is not confirmed");
  } else {
    c.notes.push_back("no PyTorch CUDA wheel index in the tables builds for " + gpus +
                      ": PyTorch is not reinstalled");
  }
  return c;
}

std::expected<AmdChoice, std::string> choose_amd(const Facts& facts, const Knowledge& kb,
                                                 const Stacks& stacks, const OsKey& os,
                                                 const VersionRequest& req) {
  std::vector<std::pair<std::string, std::string>> gpus; // gfx, name
  for (const auto& gpu : facts.gpus)
    if (gpu.vendor == Vendor::amd && !gpu.arch().empty()) gpus.emplace_back(gpu.arch(), gpu.display_name());
  auto supports_os = [&](const RocmReleaseRow& row) {
    return Knowledge::rocm_supports_os(row, os.id, os.version) ||
           Knowledge::rocm_supports_os(row, os.base_id, os.base_version);
  };
  // Why `row` cannot serve these GPUs ("" when at least one is supported); unsupported ones go to notes.
  auto gpu_problem = [&](const RocmInstallRow& r, std::vector<std::string>* notes) -> std::string {
    auto rel = kb.rocm_release(r.rocm);
    if (!rel) return "ROCm " + r.rocm + " is not in the knowledge tables";
    if (gpus.empty()) return {};
    int supported = 0;
    for (const auto& [gfx, name] : gpus) {
      if (has(rel->gfx_targets, gfx)) {
        ++supported;
      } else if (notes) {
        notes->push_back(name + " (" + gfx + ") is not supported by ROCm " + r.rocm +
                         ": ROCm will not use it (hide it with ROCR_VISIBLE_DEVICES if it gets in the way)");
      }
    }
    if (supported > 0) return {};
    return "ROCm " + r.rocm + " supports none of this machine's GPUs (" + gpus.front().first +
           "; it supports " + text::join(rel->gfx_targets, ", ") + ")";
  };

  AmdChoice c;
  if (!req.rocm.empty()) {
    const RocmInstallRow* row = nullptr;
    for (const auto& r : stacks.rocm_installs)
      if (req.rocm == r.rocm || req.rocm == r.apt_dir || text::starts_with(req.rocm, r.rocm + ".")) row = &r;
    if (!row) {
      std::vector<std::string> known;
      for (const auto& r : stacks.rocm_installs)
        known.push_back(r.rocm);
      return std::unexpected("gpudoctor has no repositories for ROCm " + req.rocm + " (it installs " +
                             text::join(known, ", ") + ")");
    }
    if (auto p = gpu_problem(*row, &c.notes); !p.empty()) return std::unexpected(p);
    if (auto rel = kb.rocm_release(row->rocm); rel && !supports_os(*rel))
      c.notes.push_back(os.name + " is not on ROCm " + row->rocm +
                        "'s list of supported releases: it may not work");
    c.install = *row;
  } else {
    std::vector<RocmInstallRow> rows = stacks.rocm_installs;
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.recommended > b.recommended; });
    std::vector<std::string> why;
    for (const auto& r : rows) {
      auto rel = kb.rocm_release(r.rocm);
      std::string p = gpu_problem(r, nullptr);
      if (p.empty() && rel && !supports_os(*rel)) p = "ROCm " + r.rocm + " does not support " + os.name;
      if (!p.empty()) {
        why.push_back(p);
        continue;
      }
      gpu_problem(r, &c.notes);
      c.install = r;
      break;
    }
    if (c.install.rocm.empty()) {
      std::vector<std::string> releases;
      for (const auto& r : rows)
        releases.push_back(r.rocm);
      return std::unexpected("no ROCm release gpudoctor installs (" + text::join(releases, ", ") +
                             ") fits this machine; the newest: " + why.front());
    }
  }
  std::vector<std::string> targets;
  for (const auto& g : gpus)
    targets.push_back(g.first);
  c.notes.insert(c.notes.begin(),
                 "ROCm " + c.install.rocm + " (amdgpu " + c.install.amdgpu_dir + ", PyTorch " +
                     c.install.torch_index + ")" +
                     (req.rocm.empty() ? ": the newest release gpudoctor installs that supports " +
                                             (targets.empty() ? std::string("this OS")
                                                              : text::join(targets, ", ") + " on " + os.name)
                                       : " (--rocm)"));
  if (gpus.empty())
    c.notes.push_back("no AMD GPU with a known gfx target: the release is not checked against a GPU");
  if (c.install.uncertain)
    c.notes.push_back("the repository layout of ROCm " + c.install.rocm + " is not confirmed");
  c.torch_index = c.install.torch_index;
  return c;
}

std::expected<TorchChoice, std::string> choose_torch_here(const Facts& facts, const Knowledge& kb,
                                                          const Stacks& stacks, Vendor vendor) {
  if (vendor == Vendor::nvidia) {
    std::string driver = facts.nvidia.kernel_module_version ? *facts.nvidia.kernel_module_version
                         : facts.nvidia.smi_driver_version  ? *facts.nvidia.smi_driver_version
                                                            : "";
    if (driver.empty())
      return std::unexpected("no NVIDIA driver is loaded: install one first (fix install-nvidia)");
    auto t = torch_index_for(kb, driver, nvidia_arches(facts), "");
    if (!t)
      return std::unexpected("no PyTorch CUDA wheel index in the tables fits driver " + driver +
                             " and these GPUs");
    std::vector<std::string> arches = nvidia_arches(facts);
    return TorchChoice{
        t->index,
        fmt::format("PyTorch {} for CUDA {}, the newest release whose CUDA driver {} runs "
                    "(minor-version compatibility included) and whose wheels carry code for {}{}",
                    t->torch, t->cuda, driver, arches.empty() ? "these GPUs" : text::join(arches, ", "),
                    t->uncertain ? " (its arch list is not confirmed)" : "")};
  }
  std::string installed;
  for (const auto& r : facts.toolkits.rocm)
    if (r.version && (installed.empty() || text::compare_versions(*r.version, installed) > 0))
      installed = *r.version;
  for (const auto& r : stacks.rocm_installs)
    if (!installed.empty() && (text::starts_with(installed, r.rocm + ".") || installed == r.rocm ||
                               text::version_prefix(installed, 2) == text::version_prefix(r.rocm, 2)))
      return TorchChoice{r.torch_index, "ROCm " + installed + " is installed"};
  for (const auto& r : stacks.rocm_installs) {
    auto rel = kb.rocm_release(r.rocm);
    for (const auto& gpu : facts.gpus)
      if (rel && gpu.vendor == Vendor::amd && has(rel->gfx_targets, gpu.arch()))
        return TorchChoice{r.torch_index, "the newest ROCm build for " + gpu.arch() +
                                              " (a ROCm wheel brings its own ROCm libraries)"};
  }
  return std::unexpected("no ROCm release in the tables supports this machine's AMD GPUs");
}

} // namespace gpudoctor::fix
