#include "fix/apply_state.hpp"

#include "fix/script_text.hpp"
#include "util/escape.hpp"
#include "util/utc_time.hpp"

#include <algorithm>
#include <ctime>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor::fix {

namespace {

constexpr int k_format = 2;

const std::vector<std::string_view> k_statuses = {"running", "reboot",      "failed", "done",
                                                  "stopped", "rolled-back", "undone", "finished"};

std::expected<std::vector<std::string>, std::string> id_list(const Json& doc, const char* key) {
  std::vector<std::string> out;
  auto it = doc.find(key);
  if (it == doc.end()) return out;
  if (!it->is_array()) return std::unexpected(fmt::format("{} is not a list", key));
  for (const auto& v : *it) {
    if (!v.is_string() || !valid_id(v.get<std::string>()))
      return std::unexpected(fmt::format("{} holds {}, which is no id", key, escape::one_line(v.dump())));
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::string string_or(const Json& doc, const char* key, const std::string& fallback = {}) {
  return json_string(doc, key).value_or(fallback);
}

// "migrate-to-nvidia" -> "nvidia" (0.1.0's records name the target only in the plan id).
std::string target_in_plan_id(const std::string& plan) {
  constexpr std::string_view prefix = "migrate-to-";
  return plan.starts_with(prefix) ? plan.substr(prefix.size()) : std::string();
}

} // namespace

bool valid_id(std::string_view id) {
  if (id.empty() || id.size() > 128 || id.front() == '.') return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

std::string ApplyRecord::progress() const {
  std::string failed = status == "failed" && !failed_step.empty()
                           ? fmt::format("step {} failed, ", failed_step)
                       : status == "reboot" ? std::string("stopped for the reboot, ")
                                            : std::string();
  return fmt::format("{}{} of {} steps done", failed, done.size(), steps.size());
}

Json record_to_json(const ApplyRecord& r) {
  Json j = Json::object();
  j["format"] = k_format;
  j["kind"] = r.kind;
  j["plan"] = r.plan;
  if (r.kind == "migration") j["target"] = r.target;
  j["script_id"] = r.script_id;
  j["runs"] = r.runs;
  j["status"] = r.status;
  if (!r.failed_step.empty()) j["failed_step"] = r.failed_step;
  j["steps"] = r.steps;
  j["done"] = r.done;
  j["family"] = r.family;
  j["needs_root"] = r.needs_root;
  j["gpudoctor"] = r.version;
  return j;
}

Json pointer_to_json(const ApplyRecord& r) {
  Json j = Json::object();
  j["format"] = k_format;
  j["kind"] = r.kind;
  j["pointer"] = true;
  j["script_id"] = r.script_id;
  return j;
}

std::expected<ApplyRecord, std::string> record_from_json(const Json& doc) {
  if (!doc.is_object()) return std::unexpected("not a JSON object");
  ApplyRecord r;
  auto format = json_int(doc, "format");
  r.from_0_1 = !format;
  if (format && *format != k_format)
    return std::unexpected(fmt::format("format {} (this gpudoctor reads 2 and 0.1.0's)", *format));
  r.kind = string_or(doc, "kind");
  if (r.kind == "migrate") r.kind = "migration"; // 0.1.0
  if (r.kind != "fix" && r.kind != "migration")
    return std::unexpected(fmt::format("kind {} (fix or migration)", escape::one_line(r.kind)));
  r.script_id = string_or(doc, "script_id");
  if (!valid_id(r.script_id))
    return std::unexpected(fmt::format("script id {} is no id", escape::one_line(r.script_id)));
  r.pointer = json_bool(doc, "pointer").value_or(false);
  if (r.pointer) return r;
  r.plan = string_or(doc, "plan");
  r.target = r.kind == "migration" ? string_or(doc, "target", target_in_plan_id(r.plan)) : std::string();
  if (r.kind == "migration" && r.target != "nvidia" && r.target != "amd")
    return std::unexpected(fmt::format("migration target {} (nvidia or amd)", escape::one_line(r.target)));
  if (r.from_0_1) {
    // 0.1.0: one run, and the paths of its script and journal, which are not read: the ids make them.
    std::string run = string_or(doc, "run");
    if (!valid_id(run)) return std::unexpected(fmt::format("run id {} is no id", escape::one_line(run)));
    r.runs = {run};
  } else {
    auto runs = id_list(doc, "runs");
    if (!runs) return std::unexpected(runs.error());
    r.runs = std::move(*runs);
  }
  auto steps = id_list(doc, "steps");
  auto done = id_list(doc, "done");
  if (!steps || !done) return std::unexpected(!steps ? steps.error() : done.error());
  r.steps = std::move(*steps);
  r.done = std::move(*done);
  r.status = string_or(doc, "status", "running");
  if (std::find(k_statuses.begin(), k_statuses.end(), r.status) == k_statuses.end())
    return std::unexpected(fmt::format("status {}", escape::one_line(r.status)));
  r.failed_step = string_or(doc, "failed_step");
  if (!r.failed_step.empty() && !valid_id(r.failed_step))
    return std::unexpected(fmt::format("failed step {} is no id", escape::one_line(r.failed_step)));
  r.family = string_or(doc, "family", "debian");
  if (r.family != "debian" && r.family != "rhel")
    return std::unexpected(fmt::format("family {}", escape::one_line(r.family)));
  r.needs_root = json_bool(doc, "needs_root").value_or(false);
  r.version = string_or(doc, "gpudoctor");
  return r;
}

std::string gpudoctor_command(std::string_view args, const std::string& root) {
  if (root.empty()) return fmt::format("gpudoctor {}", args);
  return fmt::format("gpudoctor {} --root {}", args, shell_quote(root));
}

MigrationGate migration_gate(const std::optional<ApplyRecord>& migration, const std::string& target,
                             const std::string& root) {
  using Action = MigrationGate::Action;
  if (!migration || migration->closed()) return {Action::start, "", {}};
  const ApplyRecord& m = *migration;
  if (m.unfinished() && m.target == target) return {Action::resume, "", {}};
  if (m.unfinished())
    return {Action::refuse,
            fmt::format("a migration to {} is unfinished on this machine ({}: {}). A machine has one "
                        "migration at a time: go on with it, or put the machine back as it was before it, "
                        "first:",
                        m.target, m.script_id, m.progress()),
            {gpudoctor_command("migrate --resume", root), gpudoctor_command("undo", root)}};
  if (m.target == target) return {Action::complete, "", {}};
  return {Action::refuse,
          fmt::format("the migration to {} ({}) is done but not finished: its undo cache is kept until it "
                      "is. After a good boot, finish it; or put the machine back as it was before it; then "
                      "migrate to {}:",
                      m.target, m.script_id, target),
          {gpudoctor_command("migrate --finish", root), gpudoctor_command("undo", root)}};
}

std::optional<Failure> fix_refusal(const std::optional<ApplyRecord>& migration, const std::string& fix,
                                   bool acts_on_packages, const std::string& root) {
  if (!migration || !migration->unfinished() || !acts_on_packages) return std::nullopt;
  return Failure{
      Exit::usage,
      fmt::format("a migration to {} is unfinished on this machine ({}: {}), and fix {} installs or "
                  "removes packages, which would change what the migration and its undo rely on. "
                  "Go on with the migration, or put the machine back as it was before it, first:",
                  migration->target, migration->script_id, migration->progress(), fix),
      {gpudoctor_command("migrate --resume", root), gpudoctor_command("undo", root)}};
}

std::optional<Failure> unfinished_fix_refusal(const std::optional<ApplyRecord>& last, const std::string& what,
                                              const std::string& root) {
  if (!last || last->kind != "fix" || last->pointer || !last->unfinished()) return std::nullopt;
  // 0.1.0's record cannot be run again (its paths were not kept): undo only.
  bool rerun = !last->from_0_1;
  std::vector<std::string> commands;
  if (rerun) commands.push_back(gpudoctor_command(fmt::format("fix {} --apply", last->plan), root));
  commands.push_back(gpudoctor_command("undo", root));
  return Failure{
      Exit::usage,
      fmt::format("fix {} is unfinished on this machine ({}: {}{}), and {} would replace its record, "
                  "which {}. {}",
                  last->plan, last->script_id, last->progress(), rerun ? "" : ", recorded by gpudoctor 0.1.0",
                  what, rerun ? "undo and a rerun go on from" : "undo goes on from",
                  rerun ? "Go on with it, or put the machine back as it was before it, first:"
                        : "Put the machine back as it was before it first:"),
      commands};
}

std::string new_run_id(const std::vector<std::string>& taken) {
  std::string base = fmt::format("{}-{}", utc::format(std::time(nullptr), "%Y%m%dT%H%M%SZ"), ::getpid());
  std::string id = base;
  for (int n = 2; std::find(taken.begin(), taken.end(), id) != taken.end(); ++n)
    id = fmt::format("{}.{}", base, n);
  return id;
}

} // namespace gpudoctor::fix
