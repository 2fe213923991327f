// The planner: which steps, with which parameters, for one fix or one migration.
#include "fix/plan.hpp"

#include "fix/incoming_gpu.hpp"
#include "util/linear_regex.hpp"
#include "util/text.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

namespace gpudoctor::fix {

bool Plan::needs_root() const {
  return std::any_of(steps.begin(), steps.end(), [](const PlannedStep& s) { return s.root; });
}

bool Plan::needs_reboot() const {
  return std::any_of(steps.begin(), steps.end(), [](const PlannedStep& s) { return s.reboot; });
}

std::vector<Applicable> applicable_fixes(const RecipeBook& book, const std::vector<Result>& results) {
  std::vector<Applicable> out;
  for (const auto& r : results) {
    if (r.status != Status::warn && r.status != Status::error) continue;
    for (const auto& id : r.fixes) {
      auto it = std::find_if(out.begin(), out.end(), [&](const Applicable& a) { return a.fix == id; });
      if (it == out.end()) it = out.insert(out.end(), Applicable{id, book.find(id), {}});
      it->results.push_back(&r);
    }
  }
  return out;
}

namespace {

bool has_vendor(const Facts& facts, Vendor v) {
  return facts.count(v) > 0;
}

// The vendor a recipe acts on here ("" when the recipe is vendor-neutral).
std::expected<std::string, std::string> resolve_vendor(const Recipe& r, const Facts& facts,
                                                       const std::string& target) {
  if (r.vendor == "amd" || r.vendor == "nvidia" || r.vendor.empty()) return r.vendor;
  if (!target.empty()) return r.vendor == "present" ? target : (target == "amd" ? "nvidia" : "amd");
  bool amd = has_vendor(facts, Vendor::amd), nvidia = has_vendor(facts, Vendor::nvidia);
  if (amd == nvidia)
    return std::unexpected(
        std::string(amd ? "this machine has GPUs of both vendors" : "this machine has no GPU") +
        ": gpudoctor cannot tell which stack " + r.id +
        " is for (use purge-rocm or purge-nvidia, "
        "or migrate --to)");
  if (r.vendor == "present") return std::string(amd ? "amd" : "nvidia");
  return std::string(amd ? "nvidia" : "amd");
}

// The names come from the machine's profiles (unbounded: a 1 MB name is a line of a file), so the match is
// linear (util/linear_regex), never std::regex's recursive backtracking. A pattern that does not compile is
// a recipe bug (tests/unit/test_fix_data.cpp compiles them all): nothing matches.
bool system_sets(const Inventory& inv, const std::string& pattern) {
  auto re = LinearRegex::compile(pattern);
  return re && std::any_of(inv.system_assignments.begin(), inv.system_assignments.end(),
                           [&](const ProfileAssignment& a) { return re->full_match(a.name); });
}

// The variables of the recipe's `unsets` set where gpudoctor ran that no profile it read sets: the profile
// steps leave them, and the plan says where else to look.
void note_variables_from_elsewhere(const Recipe& r, const Facts& facts, std::vector<std::string>& notes) {
  if (r.unsets.empty() || facts.stack_paths.profiles_read == 0) return;
  auto re = LinearRegex::compile(r.unsets);
  if (!re) return; // refused when the recipe was loaded
  for (const auto& [name, value] : facts.env.all) {
    if (!re->full_match(name)) continue; // so only a name of the recipe's pattern reaches the note
    if (std::ranges::any_of(facts.stack_paths.assignments,
                            [&](const VariableOrigin& a) { return a.name == name; }))
      continue;
    std::size_t n = facts.stack_paths.profiles_read;
    std::string none = n == 1 ? "the one profile it read does not set it"
                              : fmt::format("none of the {} profiles it read sets it", n);
    notes.push_back(fmt::format(
        "{0} is set where gpudoctor ran, but {1}: the profile steps leave it. It comes from elsewhere: the "
        "shell that started gpudoctor (unset {0} there), a systemd unit's Environment= (systemctl show -p "
        "Environment <unit>), a job script or the container's environment.",
        name, none));
  }
}

bool include_step(const Step& s, const Params& p, const PlanContext& ctx) {
  if (ctx.options.render_all) return true;
  if (!s.when.empty() &&
      std::none_of(s.when.begin(), s.when.end(), [&](const auto& n) { return p.nonempty(n); }))
    return false;
  if (!s.when_system_sets.empty()) {
    std::string pattern = is_known_param(s.when_system_sets)
                              ? (p.get(s.when_system_sets).empty() ? "" : p.get(s.when_system_sets).front())
                              : s.when_system_sets;
    if (pattern.empty() || !system_sets(ctx.inventory, pattern)) return false;
  }
  return true;
}

std::string describe_gpu(const Gpu& gpu) {
  std::string arch = gpu.arch().empty() ? "" : " (" + gpu.arch() + ")";
  std::string driver = gpu.driver ? ", driver " + *gpu.driver : ", no driver bound";
  return gpu.subject() + ": " + gpu.display_name() + arch + driver;
}

class Builder {
public:
  Builder(const PlanContext& ctx, OsKey os) : m_ctx(ctx), m_os(std::move(os)) {}

  // Adds a recipe's steps (and those of the recipes it includes) to the plan.
  std::expected<void, std::string> add(const Recipe& r, const std::string& target, Plan& plan) {
    // A recipe reached twice (listed by a migration and included by another, or a diamond of includes) adds
    // its steps once; a cycle, which the loader refuses, could not recurse here either.
    if (!m_added.insert(r.id).second) return {};
    if (!r.has_steps_for(m_os.family))
      return std::unexpected(r.id + " has no steps for the " + family_name(m_os.family) + " family (" +
                             m_os.name + ")");
    auto vendor = resolve_vendor(r, m_ctx.facts, target);
    if (!vendor) return std::unexpected(vendor.error());
    auto params = bind_params(r, *vendor, m_os, m_ctx, !target.empty(), plan.notes);
    if (!params) return std::unexpected(params.error());
    note_variables_from_elsewhere(r, m_ctx.facts, plan.notes);
    auto what = expand(r.description, *params, true);
    if (!what) return std::unexpected(fmt::format("{}: {}", r.id, what.error()));
    plan.description.push_back(target.empty() && plan.description.empty()
                                   ? text::trim(*what)
                                   : fmt::format("({}) {}", r.id, text::trim(*what)));
    for (const auto& s : r.steps) {
      if (s.body(m_os.family).empty() || !include_step(s, *params, m_ctx)) continue;
      auto title = expand(s.title, *params, true);
      auto body = expand(s.body(m_os.family), *params);
      auto verify = expand(s.verify_for(m_os.family), *params);
      for (const auto* part : {&title, &body, &verify})
        if (!*part) return std::unexpected(fmt::format("{}: {}", r.id, part->error()));
      PlannedStep ps;
      ps.id = r.id + "." + s.id;
      ps.title = text::trim(*title);
      ps.body = std::move(*body);
      ps.verify = std::move(*verify);
      ps.where = s.where;
      ps.root = s.root;
      ps.destructive = s.destructive || std::any_of(s.destructive_when.begin(), s.destructive_when.end(),
                                                    [&](const auto& n) { return params->nonempty(n); });
      ps.reboot = s.reboot;
      ps.stage = s.stage;
      plan.steps.push_back(std::move(ps));
    }
    for (const auto& inc : r.include)
      if (const Recipe* other = m_ctx.book.find(inc))
        if (auto added = add(*other, target, plan); !added) return added;
    return {};
  }

  Plan start(const std::string& kind, const std::string& id, const std::string& title) const {
    Plan plan;
    plan.kind = kind;
    plan.id = id;
    plan.title = title;
    plan.os = m_os;
    plan.source = m_ctx.options.source;
    if (m_ctx.options.check_host) plan.host = m_ctx.facts.hostname;
    if (m_ctx.facts.os.kernel_release) plan.kernel = *m_ctx.facts.os.kernel_release;
    for (const auto& gpu : m_ctx.facts.gpus)
      if (gpu.vendor != Vendor::other) plan.gpus.push_back(describe_gpu(gpu));
    return plan;
  }

  // The warnings and errors of this machine that offer one of the recipes (the results `gpudoctor fix` lists
  // each fix for).
  void add_why(Plan& plan, const std::vector<const Recipe*>& recipes) const {
    for (const auto& res : m_ctx.results) {
      if (res.status != Status::warn && res.status != Status::error) continue;
      bool ours = std::any_of(recipes.begin(), recipes.end(), [&](const Recipe* r) {
        return std::find(res.fixes.begin(), res.fixes.end(), r->id) != res.fixes.end();
      });
      if (ours)
        plan.why.push_back(res.id + " (" + status_name(res.status) +
                           (res.subject.empty() ? "" : ", " + res.subject) + "): " + res.message);
    }
  }

private:
  const PlanContext& m_ctx;
  std::set<std::string> m_added; // the recipes whose steps are in the plan
  OsKey m_os;
};

// The facts the script's code holds as words (GD_FOR_HOST, ...): bash cannot hold a NUL byte.
std::expected<Plan, std::string> without_nul(Plan plan) {
  const std::pair<const char*, const std::string*> words[] = {{"host name", &plan.host},
                                                              {"kernel release", &plan.kernel},
                                                              {"OS id", &plan.os.id},
                                                              {"OS version", &plan.os.version}};
  for (const auto& [what, value] : words)
    if (value->find('\0') != std::string::npos)
      return std::unexpected(fmt::format("the {} has a NUL byte, which a script cannot hold", what));
  return plan;
}

// Stages: the prepare steps first (sources, keys, holds), then the download step when the plan installs or
// removes anything (every later install downloaded before the first removal), then the other steps in recipe
// order, with the cleanup steps moved to just before the reboot (after the installs: what the new stack needs
// is no orphan).
void arrange(Plan& plan, const Step& download) {
  std::vector<PlannedStep> prepare, main, cleanup, after;
  for (auto& s : plan.steps)
    (s.stage == "prepare"        ? prepare
     : s.stage == "cleanup"      ? cleanup
     : s.stage == "after-reboot" ? after
                                 : main)
        .push_back(std::move(s));
  // The download serves the prepare steps' installs and the removals (a plan whose only prepare step is a
  // key, enroll-mok, installs nothing).
  bool installs = std::any_of(main.begin(), main.end(), [](const PlannedStep& s) {
    return text::contains(s.body, "gd_install_packages");
  });
  bool needs_download =
      (!prepare.empty() && installs) ||
      std::any_of(main.begin(), main.end(), [](const PlannedStep& s) { return s.destructive; });
  plan.steps = std::move(prepare);
  if (needs_download)
    plan.steps.push_back({"prepare." + download.id, download.title, download.run, download.verify,
                          download.where, download.root, download.destructive, download.reboot, "prepare"});
  auto reboot = std::find_if(main.begin(), main.end(),
                             [](const PlannedStep& s) { return s.id.starts_with("reboot."); });
  main.insert(reboot, std::make_move_iterator(cleanup.begin()), std::make_move_iterator(cleanup.end()));
  main.insert(main.end(), std::make_move_iterator(after.begin()), std::make_move_iterator(after.end()));
  plan.steps.insert(plan.steps.end(), std::make_move_iterator(main.begin()),
                    std::make_move_iterator(main.end()));
}

std::string gpu_list(const Facts& facts, Vendor v) {
  std::vector<std::string> names;
  for (const auto& gpu : facts.gpus)
    if (gpu.vendor == v) names.push_back(gpu.display_name());
  return text::join(names, ", ");
}

const char* stack_name(Vendor v) {
  return v == Vendor::amd ? "ROCm" : "NVIDIA";
}

// Inside a container the host owns the driver and the kernel: a recipe that needs a reboot (a driver, DKMS,
// the kernel's settings) is the host's to run.
std::expected<void, std::string> refuse_in_container(const Recipe& r, const RecipeBook& book,
                                                     const Facts& facts) {
  if (!facts.os.in_container) return {};
  std::vector<const Recipe*> todo = {&r};
  for (const auto& inc : r.include)
    if (const Recipe* other = book.find(inc)) todo.push_back(other);
  for (const Recipe* x : todo)
    if (std::any_of(x->steps.begin(), x->steps.end(), [](const Step& s) { return s.reboot; }))
      return std::unexpected(fmt::format(
          "this is a container ({}): the host owns the driver and the kernel, and {} changes them (it needs "
          "a reboot); run it on the host, and in here use the host's driver (gpudoctor migrate shows the "
          "container path)",
          facts.os.container_evidence, r.id));
  return {};
}

// What a migration inside a container says instead of installing a driver: the host's part, the image's.
// The image's release is the one the plan would install (`release`: "CUDA 13.0", "ROCm 7.2"; empty when
// none fits).
std::vector<std::string> container_notes(Vendor to, const PlanContext& ctx, const OsKey& os) {
  std::string release;
  if (to == Vendor::nvidia) {
    if (auto c = choose_nvidia(ctx.facts, ctx.kb, ctx.stacks, ctx.options.versions)) release = c->cuda;
  } else if (auto c = choose_amd(ctx.facts, ctx.kb, ctx.stacks, os, ctx.options.versions)) {
    release = c->install.rocm;
  }
  std::vector<std::string> notes;
  notes.push_back(fmt::format(
      "this is a container ({}): the host owns the driver; this plan installs no kernel headers, DKMS "
      "module or driver, never reboots, and leaves the old stack's packages of the image; it swaps the "
      "PyTorch wheels in the environments here",
      ctx.facts.os.container_evidence));
  for (const auto& c : ctx.stacks.container_paths) {
    if (c.vendor != (to == Vendor::nvidia ? "nvidia" : "amd")) continue;
    std::string image = c.image;
    for (const char* slot : {"<CUDA>", "<ROCM>"})
      if (auto at = image.find(slot); at != std::string::npos && !release.empty())
        image.replace(at, std::string_view(slot).size(), release);
    notes.push_back(fmt::format("the container path: the host runs the {} driver; build the image from {} "
                                "and run it with {}{}",
                                to == Vendor::nvidia ? "NVIDIA" : "amdgpu", image, c.run_flags,
                                c.cdi.empty() ? "" : ", or through CDI with " + c.cdi));
  }
  return notes;
}

// A migration purges the old stack: refused while a GPU that needs it stays in the machine.
std::expected<void, std::string> refuse_purging_present_gpu(Vendor to, const PlanContext& ctx) {
  Vendor old = to == Vendor::nvidia ? Vendor::amd : Vendor::nvidia;
  if (ctx.facts.count(old) == 0 || ctx.facts.count(to) == 0 || ctx.options.remove_present_stack) return {};
  return std::unexpected(fmt::format(
      "this machine has GPUs of both vendors, and the {} stack this migration removes is the one of {}, "
      "which stays in the machine. To keep both stacks, install the {} one beside it: gpudoctor fix {}; to "
      "remove the {} stack all the same, add --remove-stack-of-present-gpu",
      stack_name(old), gpu_list(ctx.facts, old), stack_name(to),
      to == Vendor::nvidia ? "install-nvidia" : "install-rocm", stack_name(old)));
}

// The facts the versions are chosen from: the machine's, with --gpu's card in place of its vendor's GPUs;
// what the plan says of the match (a family of models) goes to `notes`.
std::expected<std::optional<Facts>, std::string> facts_for_choice(Vendor to, const PlanContext& ctx,
                                                                  std::vector<std::string>& notes) {
  if (ctx.options.incoming_gpu.empty()) return std::nullopt;
  auto incoming = incoming_gpu(ctx.kb, ctx.options.incoming_gpu, to);
  if (!incoming) return std::unexpected(incoming.error());
  if (!incoming->note.empty()) notes.push_back(incoming->note);
  return with_incoming_gpu(ctx.facts, incoming->gpu);
}

void dedupe(std::vector<std::string>& list) {
  std::vector<std::string> out;
  for (auto& s : list)
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
  list = std::move(out);
}

} // namespace

std::expected<Plan, std::string> plan_fix(const std::string& id, const PlanContext& ctx) {
  const Recipe* r = ctx.book.find(id);
  if (!r) return std::unexpected("no recipe for fix " + id);
  if (auto refused = refuse_in_container(*r, ctx.book, ctx.facts); !refused)
    return std::unexpected(refused.error());
  auto os = os_key(ctx.facts, ctx.kb);
  if (!os) return std::unexpected(os.error());
  std::optional<Facts> chosen;
  std::vector<std::string> match_notes;
  if (!ctx.options.incoming_gpu.empty()) {
    if (r->vendor != "nvidia" && r->vendor != "amd")
      return std::unexpected("--gpu names the card to install for: it goes with fix install-nvidia, fix "
                             "install-rocm and migrate");
    auto f = facts_for_choice(r->vendor == "nvidia" ? Vendor::nvidia : Vendor::amd, ctx, match_notes);
    if (!f) return std::unexpected(f.error());
    chosen = std::move(*f);
  }
  PlanContext cctx{
      chosen ? *chosen : ctx.facts, ctx.kb, ctx.stacks, ctx.book, ctx.inventory, ctx.results, ctx.options};
  Builder b(cctx, *os);
  Plan plan = b.start("fix", id, r->title);
  plan.notes = match_notes;
  plan.gpus.clear();
  for (const auto& gpu : ctx.facts.gpus)
    if (gpu.vendor != Vendor::other) plan.gpus.push_back(describe_gpu(gpu));
  if (auto added = b.add(*r, "", plan); !added) return std::unexpected(added.error());
  arrange(plan, ctx.book.download_step);
  b.add_why(plan, {r});
  dedupe(plan.notes);
  return without_nul(std::move(plan));
}

std::expected<Plan, std::string> plan_migration(const std::string& to, const PlanContext& ctx) {
  const Migration* m = ctx.book.migration(to);
  if (!m) return std::unexpected("gpudoctor migrates --to nvidia or --to amd, not " + to);
  auto os = os_key(ctx.facts, ctx.kb);
  if (!os) return std::unexpected(os.error());
  Vendor target = to == "nvidia" ? Vendor::nvidia : Vendor::amd,
         old = to == "nvidia" ? Vendor::amd : Vendor::nvidia;
  bool container = ctx.facts.os.in_container;
  if (!container)
    if (auto refused = refuse_purging_present_gpu(target, ctx); !refused)
      return std::unexpected(refused.error());
  std::vector<std::string> match_notes;
  auto chosen = facts_for_choice(target, ctx, match_notes);
  if (!chosen) return std::unexpected(chosen.error());
  PlanContext cctx{
      *chosen ? **chosen : ctx.facts, ctx.kb, ctx.stacks, ctx.book, ctx.inventory, ctx.results, ctx.options};
  // The old vendor's card is in and none of the new one's: the reboot is a power-off to swap them.
  if (!container && ctx.facts.count(target) == 0 && ctx.facts.count(old) > 0) {
    cctx.options.swap_in = ctx.options.incoming_gpu.empty()
                               ? std::string(target == Vendor::nvidia ? "the NVIDIA card" : "the AMD card")
                               : gpu_list(cctx.facts, target);
    cctx.options.swap_out = gpu_list(ctx.facts, old);
  }
  Builder b(cctx, *os);
  Plan plan =
      b.start("migrate", "migrate-to-" + to,
              std::string("Move this machine to ") + (to == "nvidia" ? "NVIDIA (CUDA)" : "AMD (ROCm)"));
  plan.gpus.clear();
  for (const auto& gpu : ctx.facts.gpus)
    if (gpu.vendor != Vendor::other) plan.gpus.push_back(describe_gpu(gpu));
  if (!ctx.options.incoming_gpu.empty())
    plan.notes.push_back(
        fmt::format("the versions are chosen for the incoming {} (--gpu)", gpu_list(cctx.facts, target)));
  plan.notes.insert(plan.notes.end(), match_notes.begin(), match_notes.end());
  if (container) {
    auto notes = container_notes(target, cctx, *os);
    plan.notes.insert(plan.notes.end(), notes.begin(), notes.end());
  }
  if (ctx.options.remove_present_stack && ctx.facts.count(old) > 0 && ctx.facts.count(target) > 0)
    plan.notes.push_back(fmt::format("--remove-stack-of-present-gpu: the {} stack goes although {} stays in "
                                     "the machine; it will not work until a stack for it is installed",
                                     stack_name(old), gpu_list(ctx.facts, old)));
  std::vector<const Recipe*> recipes;
  for (const auto& id : m->recipes) {
    // In a container only the user space of the environments changes (the wheels): the rest is the host's
    // or the image's.
    if (container && id != "torch-reinstall") continue;
    const Recipe* r = ctx.book.find(id);
    if (!r) return std::unexpected("fixes/migrate.yaml names no recipe " + id);
    recipes.push_back(r);
    if (auto added = b.add(*r, to, plan); !added) return std::unexpected(added.error());
  }
  if (!container)
    plan.notes.push_back(fmt::format("install before remove: the {} driver and its module (for the running "
                                     "kernel and the kernel that boots "
                                     "next, checked with modinfo -k) are installed before anything of the {} "
                                     "stack is removed, so a failed "
                                     "DKMS build leaves the old stack as it was; every install is simulated "
                                     "first, and one that would remove "
                                     "a package stops before it changes anything",
                                     target == Vendor::nvidia ? "NVIDIA" : "amdgpu", stack_name(old)));
  arrange(plan, ctx.book.download_step);
  plan.must_pass = m->must_pass;
  // In a container the host's driver decides the driver's checks; the environments' are this plan's.
  if (container)
    std::erase_if(plan.must_pass,
                  [](const std::string& id) { return !id.starts_with("torch.") && !id.starts_with("env."); });
  Params post;
  post.set("post.checks", text::join(plan.must_pass, ","));
  post.set("post.gpudoctor", ctx.options.gpudoctor);
  const Step& s = ctx.book.check_step;
  auto run = expand(s.run, post);
  auto verify = expand(s.verify, post);
  if (!run || !verify)
    return std::unexpected(fmt::format("fixes/migrate.yaml: {}", run ? verify.error() : run.error()));
  plan.steps.push_back({"migrate." + s.id, s.title, std::move(*run), std::move(*verify), s.where, s.root,
                        s.destructive, s.reboot, ""});
  b.add_why(plan, recipes);
  dedupe(plan.notes);
  return without_nul(std::move(plan));
}

} // namespace gpudoctor::fix
