#include "fix/apply.hpp"

#include "fix/apply_state.hpp"
#include "fix/script_text.hpp"
#include "system/process.hpp"
#include "util/atomic_file.hpp"
#include "util/escape.hpp"
#include "util/json.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <unistd.h>

namespace gpudoctor::fix {

namespace {

std::string new_run_id() {
  char stamp[32];
  std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  return std::string(stamp) + "-" + std::to_string(::getpid());
}

// The command that runs one step of the script.
std::vector<std::string> step_command(const Json& st, const std::string& step, const ApplyOptions& opt) {
  std::vector<std::string> argv;
  std::string root = st.value("root", "");
  if (!root.empty()) {
    argv = {"chroot", root};
  } else if (st.value("needs_root", false) && ::geteuid() != 0) {
    argv = {"sudo"};
  }
  argv.push_back("bash");
  argv.push_back(st.value("script", ""));
  argv.insert(argv.end(), {"--step", step, "--run-id", st.value("run", ""), "--no-reboot"});
  if (opt.any_host) argv.push_back("--any-host");
  return argv;
}

} // namespace

int run_attached(const std::vector<std::string>& command, const std::string& root) {
  std::vector<std::string> argv;
  if (!root.empty()) argv = {"chroot", root};
  argv.insert(argv.end(), command.begin(), command.end());
  return run_foreground(argv);
}

namespace {

int run_steps(Record& rec, const ApplyOptions& opt, bool migration) {
  Json& st = rec.doc;
  std::vector<std::string> done = st.value("done", std::vector<std::string>{});
  std::string journal = st.value("journal", "");
  for (const auto& step : st["steps"]) {
    std::string id = step.get<std::string>();
    if (std::find(done.begin(), done.end(), id) != done.end()) continue;
    int status = run_foreground(step_command(st, id, opt));
    if (status == 100) {
      st["status"] = "reboot";
      rec.save();
      std::printf("\nReboot now. After the reboot, %s continues where this stopped.\n",
                  migration ? "`gpudoctor migrate --resume`" : "running the script again");
      return 0;
    }
    if (status != 0) {
      st["status"] = "failed";
      st["failed_step"] = id;
      rec.save();
      std::fprintf(stderr,
                   "\ngpudoctor: step %s failed (exit status %d); nothing after it ran.\n"
                   "  Journal: %s\n  `gpudoctor undo%s` restores the files this run edited.\n",
                   escape::one_line(id).c_str(), status, escape::one_line(journal).c_str(),
                   opt.root.empty() ? "" : (" --root " + shell_quote(opt.root)).c_str());
      return 1;
    }
    done.push_back(id);
    st["done"] = done;
    rec.save();
  }
  st["status"] = "done";
  rec.save();
  std::printf("\nAll %zu steps ran. Journal: %s\n`gpudoctor undo` restores the files this run edited.\n",
              done.size(), escape::one_line(journal).c_str());
  return 0;
}

} // namespace

int apply_plan(const Plan& plan, const Script& script, const ApplyOptions& opt, bool migration) {
  std::printf("%s\n", render_plan_summary(plan).c_str());
  bool needs_root = plan.needs_root();
  bool am_root = ::geteuid() == 0;
  if (!opt.root.empty() && !am_root) {
    std::fprintf(stderr, "gpudoctor: --root runs the steps with chroot, which needs root\n");
    return 2;
  }
  if (needs_root && !am_root && opt.root.empty() && !have_sudo()) {
    std::fprintf(stderr,
                 "gpudoctor: these steps need root and sudo is not installed: run gpudoctor as root\n");
    return 2;
  }
  if (!opt.yes && !confirm("Run these " + std::to_string(plan.steps.size()) + " steps" +
                           (needs_root && !am_root ? " (sudo asks for root per step)" : "") + "?")) {
    std::fprintf(stderr, "gpudoctor: nothing was run%s\n",
                 ::isatty(STDIN_FILENO) ? "" : " (not a terminal: pass --yes)");
    return 2;
  }
  std::string dir = state_dir(opt.root);
  std::string in_root = opt.root.empty() ? dir : dir.substr(opt.root.size());
  std::string script_path = in_root + "/scripts/" + script.id + ".sh";
  if (auto w = atomic_write(opt.root + script_path, script.text, 0700); !w) {
    std::fprintf(stderr, "gpudoctor: %s\n", escape::one_line(w.error()).c_str());
    return 2;
  }
  bool script_as_root = needs_root || am_root || !opt.root.empty();
  std::string log_dir = script_as_root ? "/var/log/gpudoctor" : user_state_home() + "/gpudoctor/log";
  Record rec{Json::object(), dir + (migration ? "/migrate.json" : "/last-apply.json")};
  Json& st = rec.doc;
  st["kind"] = plan.kind;
  st["plan"] = plan.id;
  st["script_id"] = script.id;
  st["script"] = script_path;
  st["root"] = opt.root;
  st["journal"] = (script_as_root ? opt.root : std::string()) + log_dir + "/" + script.id + ".journal";
  st["family"] = family_name(plan.os.family);
  st["needs_root"] = needs_root;
  st["run"] = new_run_id();
  st["status"] = "running";
  st["steps"] = Json::array();
  for (const auto& s : plan.steps)
    st["steps"].push_back(s.id);
  st["done"] = Json::array();
  if (!rec.save()) return 2;
  if (migration) {
    Record last{st, dir + "/last-apply.json"};
    last.save();
  }
  int status = run_steps(rec, opt, migration);
  if (migration) Record{rec.doc, dir + "/last-apply.json"}.save();
  return status;
}

int resume_migration(const ApplyOptions& opt) {
  std::string path = state_dir(opt.root) + "/migrate.json";
  auto doc = parse_json(read_text(path));
  if (!doc || !doc->is_object()) {
    std::fprintf(stderr, "gpudoctor: no migration to resume (%s)\n", escape::one_line(path).c_str());
    return 2;
  }
  Record rec{*doc, path};
  std::string status = rec.doc.value("status", "");
  if (status == "done") {
    std::printf("The migration %s is complete; nothing to resume.\n",
                escape::one_line(rec.doc.value("script_id", "")).c_str());
    return 0;
  }
  std::printf("Resuming %s after step %zu of %zu.\n",
              escape::one_line(rec.doc.value("script_id", "")).c_str(), rec.doc["done"].size(),
              rec.doc["steps"].size());
  rec.doc["status"] = "running";
  int rc = run_steps(rec, opt, true);
  Record{rec.doc, state_dir(opt.root) + "/last-apply.json"}.save();
  return rc;
}

} // namespace gpudoctor::fix
