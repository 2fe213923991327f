#include "fix/apply.hpp"

#include "fix/journal.hpp"
#include "util/atomic_file.hpp"
#include "util/json.hpp"
#include "util/process.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace gpudoctor::fix {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string user_state_home() {
  return env_or("XDG_STATE_HOME", env_or("HOME", "/root") + "/.local/state");
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs argv with this process's terminal and environment; the exit status, 128+N for signal N.
int run_inherited(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = ::fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "gpudoctor: cannot run %s\n", args[0]);
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 127;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 127;
}

bool confirm(const std::string& question) {
  if (!::isatty(STDIN_FILENO)) return false;
  std::printf("%s [y/N] ", question.c_str());
  std::fflush(stdout);
  std::string answer;
  std::getline(std::cin, answer);
  return answer == "y" || answer == "Y" || answer == "yes";
}

std::string new_run_id() {
  char stamp[32];
  std::time_t now = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  return std::string(stamp) + "-" + std::to_string(::getpid());
}

struct Record {
  Json doc;
  std::string path;
  bool save() const {
    auto r = atomic_write(path, dump_json(doc) + "\n", 0600);
    if (!r) std::fprintf(stderr, "gpudoctor: cannot save the state: %s\n", r.error().c_str());
    return r.has_value();
  }
};

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

int run_steps(Record& rec, const ApplyOptions& opt, bool migration) {
  Json& st = rec.doc;
  std::vector<std::string> done = st.value("done", std::vector<std::string>{});
  std::string journal = st.value("journal", "");
  for (const auto& step : st["steps"]) {
    std::string id = step.get<std::string>();
    if (std::find(done.begin(), done.end(), id) != done.end()) continue;
    int status = run_inherited(step_command(st, id, opt));
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
                   id.c_str(), status, journal.c_str(),
                   opt.root.empty() ? "" : (" --root " + opt.root).c_str());
      return 1;
    }
    done.push_back(id);
    st["done"] = done;
    rec.save();
  }
  st["status"] = "done";
  rec.save();
  std::printf("\nAll %zu steps ran. Journal: %s\n`gpudoctor undo` restores the files this run edited.\n",
              done.size(), journal.c_str());
  return 0;
}

} // namespace

std::string state_dir(const std::string& root) {
  if (!root.empty() || ::geteuid() == 0) return root + "/var/lib/gpudoctor";
  return user_state_home() + "/gpudoctor";
}

int apply_plan(const Plan& plan, const Script& script, const ApplyOptions& opt, bool migration) {
  std::printf("%s\n", render_plan_summary(plan).c_str());
  bool needs_root = plan.needs_root();
  bool am_root = ::geteuid() == 0;
  if (!opt.root.empty() && !am_root) {
    std::fprintf(stderr, "gpudoctor: --root runs the steps with chroot, which needs root\n");
    return 2;
  }
  if (needs_root && !am_root && opt.root.empty() &&
      find_program("sudo", env_or("PATH", "/usr/bin:/bin")).empty()) {
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
    std::fprintf(stderr, "gpudoctor: %s\n", w.error().c_str());
    return 3;
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
  if (!rec.save()) return 3;
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
    std::fprintf(stderr, "gpudoctor: no migration to resume (%s)\n", path.c_str());
    return 2;
  }
  Record rec{*doc, path};
  std::string status = rec.doc.value("status", "");
  if (status == "done") {
    std::printf("The migration %s is complete; nothing to resume.\n", rec.doc.value("script_id", "").c_str());
    return 0;
  }
  std::printf("Resuming %s after step %zu of %zu.\n", rec.doc.value("script_id", "").c_str(),
              rec.doc["done"].size(), rec.doc["steps"].size());
  rec.doc["status"] = "running";
  int rc = run_steps(rec, opt, true);
  Record{rec.doc, state_dir(opt.root) + "/last-apply.json"}.save();
  return rc;
}

int undo_last_apply(const std::string& root, bool yes) {
  std::string path = state_dir(root) + "/last-apply.json";
  auto doc = parse_json(read_text(path));
  if (!doc || !doc->is_object()) {
    std::fprintf(stderr, "gpudoctor: no apply to undo (%s)\n", path.c_str());
    return 2;
  }
  Record rec{*doc, path};
  std::string journal = rec.doc.value("journal", ""), run = rec.doc.value("run", "");
  RunEffects fx = run_effects(parse_journal(read_text(journal)), run);
  if (rec.doc.value("status", "") == "undone" || fx.undone) {
    std::printf("The last apply (%s) was undone already.\n", rec.doc.value("script_id", "").c_str());
    return 0;
  }
  if (!fx.found) {
    std::printf("The journal %s has nothing of run %s: nothing to undo.\n", journal.c_str(), run.c_str());
    return 0;
  }
  if (!yes && !confirm("Restore " + std::to_string(fx.backups.size()) + " files and remove " +
                       std::to_string(fx.created.size()) + " that run " + run + " created?")) {
    std::fprintf(stderr, "gpudoctor: nothing was undone%s\n", ::isatty(STDIN_FILENO) ? "" : " (pass --yes)");
    return 2;
  }
  int failures = 0;
  for (auto it = fx.backups.rbegin(); it != fx.backups.rend(); ++it) {
    auto r = atomic_copy(root + it->second, root + it->first);
    std::printf("%s %s\n", r ? "restored" : "could not restore", it->first.c_str());
    if (!r) {
      std::fprintf(stderr, "  %s\n", r.error().c_str());
      ++failures;
    }
  }
  for (const auto& f : fx.created) {
    std::error_code ec;
    if (std::filesystem::remove(root + f, ec)) std::printf("removed %s (the run created it)\n", f.c_str());
  }
  bool rhel = rec.doc.value("family", "") == "rhel";
  if (!fx.purged.empty()) {
    std::string cmd = rhel ? "dnf install" : "apt-get install";
    for (const auto& [name, version] : fx.purged)
      cmd += " " + name + (version.empty() ? "" : (rhel ? "-" : "=") + version);
    std::printf(
        "\nThe run removed packages; this reinstalls them (from their repositories, which the run may have\n"
        "removed too: restored above):\n  %s\n",
        cmd.c_str());
  }
  if (!fx.installed.empty()) {
    std::string cmd = rhel ? "dnf remove" : "apt-get purge";
    for (const auto& name : fx.installed)
      cmd += " " + name;
    std::printf("\nThe run installed packages; this removes them:\n  %s\n", cmd.c_str());
  }
  for (const auto& t : fx.trees)
    std::printf("Not restored (removed without a backup): %s\n", t.c_str());
  for (const auto& [user, group] : fx.groups)
    std::printf("Added %s to %s; to undo: gpasswd -d %s %s\n", user.c_str(), group.c_str(), user.c_str(),
                group.c_str());
  for (const auto& p : fx.pip)
    std::printf("pip: %s\n", p.c_str());
  if (failures) return 1;
  {
    std::ofstream out(journal, std::ios::app);
    char stamp[32];
    std::time_t now = std::time(nullptr);
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    out << stamp << '\t' << run << "\t-\tundone\n";
  }
  rec.doc["status"] = "undone";
  rec.save();
  return 0;
}

} // namespace gpudoctor::fix
