// The fix engine's events for a person at a terminal: what goes on on stdout, between the steps' own output;
// what went wrong through the diagnostics edge on stderr; the questions on stdin, asked only of a terminal.
#include "app/fix_frontend.hpp"
#include "app/terminal_text.hpp"
#include "fix/plan.hpp"
#include "fix/render.hpp"
#include "fix/script_text.hpp"
#include "system/terminal.hpp"
#include "util/diagnostics.hpp"
#include "util/escape.hpp"
#include "util/overloaded.hpp"
#include "util/text.hpp"

#include <iostream>
#include <unistd.h>

#include <fmt/format.h>

namespace gpudoctor {

namespace {

using escape::one_line;
namespace ev = fix::event;

std::string quoted_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words)
    out += (out.empty() ? "" : " ") + shell_quote(w);
  return out;
}

const char* package_why(ev::PackageCommand::Why why) {
  using Why = ev::PackageCommand::Why;
  switch (why) {
  case Why::dpkg_recover:
    return "dpkg was interrupted; it finishes first, or apt would refuse the rest";
  case Why::from_cache:
    return "The runs removed packages; they come back from the cache";
  case Why::auto_marks:
    return "apt had installed some of them as dependencies; so marked again";
  case Why::selections:
    return "Their dpkg selection is install again, as before the runs";
  case Why::purge_installed:
    return "The runs installed packages; they go";
  case Why::holds:
    return "The runs released holds; they are held again";
  case Why::versionlock:
    return "A run removed a version lock; it is back";
  case Why::module_stream:
    return "A run changed a dnf module stream; it is as it was";
  }
  return "";
}

void out(const std::string& text) {
  print_fitted(text);
}

void step_failed(const ev::StepFailed& e) {
  using Left = ev::StepFailed::Left;
  std::string text =
      fmt::format("\ngpudoctor: step {} failed (exit status {}); nothing after it ran.\n  Journal: {}\n",
                  one_line(e.step), e.status, one_line(e.journal));
  std::string cmds;
  for (const auto& c : e.commands)
    cmds += fmt::format("    {}\n", c);
  switch (e.left) {
  case Left::rolled_back:
  case Left::stopped:
    text +=
        fmt::format("  {}: the machine is as it was before. Once the cause is fixed (the output above says "
                    "what failed), start it again:\n",
                    e.left == Left::stopped ? "The script stopped before it changed anything"
                                            : "The script put back what this run had changed");
    break;
  case Left::unfinished:
    text += fmt::format("  The migration is unfinished ({} of {} steps done). Once the cause is fixed (the "
                        "output above says what failed), go on with it; or put the machine back as it was "
                        "before the migration:\n",
                        e.done, e.total);
    break;
  case Left::failed:
    text += "  Once the cause is fixed (the output above says what failed), run it again; or put back what "
            "this run changed:\n";
    break;
  }
  diag::block(text + cmds);
}

void nothing_to_undo(const ev::NothingToUndo& e) {
  using Why = ev::NothingToUndo::Why;
  switch (e.why) {
  case Why::stopped:
  case Why::rolled_back:
    out(fmt::format("{} {} when it failed: nothing to undo.\n", one_line(e.what),
                    e.why == Why::stopped ? "had changed nothing" : "put back what it had changed"));
    return;
  case Why::no_run:
    out(fmt::format("No run of {} is in the journal {}: nothing to undo.\n", one_line(e.what),
                    one_line(e.journal)));
    return;
  case Why::no_entries:
    out(fmt::format("The journal {} has nothing of {} {}: nothing to undo.\n", one_line(e.journal),
                    e.runs.size() == 1 ? "run" : "runs", one_line(text::join(e.runs, ", "))));
    return;
  }
}

void show(const fix::Event& event) {
  std::visit(
      overloaded{
          [](const ev::PlanReady& e) { out(fix::render_plan_summary(e.plan.get()) + "\n"); },
          [](const ev::MigrationNotClosed& e) {
            out(fmt::format(
                "Note: the migration to {} ({}) is not closed; `{}` undoes this fix first, then the "
                "migration.\n",
                one_line(e.target), one_line(e.script_id), e.undo_command));
          },
          [](const ev::MigrationContinues& e) {
            out(fmt::format(
                "A migration to {} is unfinished on this machine ({}: {}): this continues it, with "
                "the plan it was made with.\n",
                one_line(e.target), one_line(e.script_id), one_line(e.progress)));
          },
          [](const ev::FixContinues& e) {
            out(fmt::format(
                "The last apply of fix {} is unfinished on this machine ({}: {}): this goes on with it, with "
                "the script it was made with (its undo then covers every run).\n",
                one_line(e.fix), one_line(e.script_id), one_line(e.progress)));
          },
          [](const ev::MigrationComplete& e) {
            out(fmt::format(
                "The migration to {} ({}) is complete: nothing to do. After a good boot, `{}` frees "
                "its undo cache.\n",
                one_line(e.target), one_line(e.script_id), e.finish_command));
          },
          [](const ev::OptionsIgnored& e) {
            diag::warning("ignored, since the unfinished migration goes on as it was planned: {}",
                          text::join(e.options, ", "));
          },
          [](const ev::Resuming& e) {
            out(fmt::format("Resuming {} ({}).\n", one_line(e.script_id), one_line(e.progress)));
          },
          [](const ev::StepsLeft& e) {
            out(fmt::format("Steps left of {}: {}\n", one_line(e.script_id),
                            one_line(text::join(e.steps, ", "))));
          },
          [](const ev::StepStarting&) {}, // the step's own output says it
          [](const ev::StepDone&) {},
          [](const ev::RebootNeeded& e) {
            out(fmt::format("\nReboot now. After the reboot, `{}` continues where this stopped.\n",
                            e.continue_command));
          },
          [](const ev::StepFailed& e) { step_failed(e); },
          [](const ev::AllRan& e) {
            out(fmt::format("\nAll {} steps ran. Journal: {}\n", e.steps, one_line(e.journal)));
            if (e.migration)
              out(fmt::format(
                  "The migration is done. `{}` puts the machine back as it was before it; after a "
                  "good boot, `{}` frees its undo cache ({} in {}).\n",
                  e.undo_command, e.finish_command, e.cache_size, one_line(e.cache)));
            else
              out(fmt::format("`{}` restores the files this run edited.\n", e.undo_command));
          },
          [](const ev::NothingToResume& e) {
            out(fmt::format(
                "The migration {} is complete; nothing to resume. After a good boot, `{}` frees its "
                "undo cache.\n",
                one_line(e.script_id), e.finish_command));
          },
          [](const ev::FinishedAlready& e) {
            out(fmt::format("The migration {} was finished already.\n", one_line(e.script_id)));
          },
          [](const ev::CacheFreed& e) {
            out(fmt::format(
                "The migration {} is {}: {} freed ({}: its downloads and the old stack's packages "
                "kept for undo). Its journal and backups stay ({}, {}).\n",
                one_line(e.script_id), e.status, e.size, one_line(e.cache), one_line(e.journal),
                one_line(e.backups)));
          },
          [](const ev::RecordNotSaved& e) { diag::error("{}", e.error); },
          [](const ev::UndoneAlready& e) {
            out(fmt::format("The last apply ({}) was undone already.\n", one_line(e.what)));
          },
          [](const ev::NothingToUndo& e) { nothing_to_undo(e); },
          [](const ev::KeptFileRefused& e) {
            if (e.kind == ev::KeptFileRefused::Kind::backup)
              diag::error("not restored: {}: its copy {} is not one of run {}'s backups ({})", e.subject,
                          e.copy, e.run, e.why);
            else
              diag::error("not installed from the cache: {} ({}: {})", e.subject, e.copy, e.why);
          },
          [](const ev::Undoing& e) {
            out(fmt::format("Undoing {}: {} {} (newest first).\n", one_line(e.what),
                            e.runs.size() == 1 ? "run" : "runs", one_line(text::join(e.runs, ", "))));
          },
          [](const ev::FileRestored& e) {
            out(fmt::format("{} {}\n", e.ok ? "restored" : "could not restore", one_line(e.file)));
            if (!e.ok) diag::detail("{}", e.error);
          },
          [](const ev::CreatedRemoved& e) {
            out(fmt::format("removed {} (a run created it)\n", one_line(e.file)));
          },
          [](const ev::PackageCommand& e) {
            if (!e.runs)
              out(fmt::format("\n{}; as root:\n  {}\n", package_why(e.why), quoted_words(e.argv)));
            else
              out(fmt::format("\n{}:\n  {}\n", package_why(e.why),
                              one_line(e.shown.empty() ? quoted_words(e.argv) : e.shown)));
          },
          [](const ev::PackageCommandFailed& e) { diag::error("that failed (exit status {})", e.status); },
          [](const ev::ReinstallByName& e) {
            out(fmt::format(
                "\nThe runs removed packages that are not in the cache; this reinstalls them from "
                "their\nrepositories (restored above, when the runs removed them):\n  {} {}\n",
                e.command, quoted_words(e.packages)));
          },
          [](const ev::TreeNotRestored& e) {
            out(fmt::format("Not restored (removed without a backup): {}\n", one_line(e.tree)));
          },
          [](const ev::GroupAdded& e) {
            out(fmt::format("Added {} to {}; to undo: gpasswd -d {} {}\n", one_line(e.user),
                            one_line(e.group), shell_quote(e.user), shell_quote(e.group)));
          },
          [](const ev::PipChanged& e) { out(fmt::format("pip: {}\n", one_line(e.change))); },
          [](const ev::ServiceStopped& e) {
            out(fmt::format("A run stopped {}; start it again if it should run.\n", one_line(e.service)));
          },
          [](const ev::Undone& e) { out(fmt::format("Undone: {}.\n", one_line(e.what))); },
      },
      event);
}

std::string question_text(const fix::Question& q) {
  namespace qn = fix::question;
  return std::visit(
      overloaded{
          [](const qn::RunPlan& x) { return fmt::format("Run these {} steps?", x.steps); },
          [](const qn::RunLeft& x) { return fmt::format("Run the {} steps left?", x.steps); },
          [](const qn::FreeCache& x) {
            return fmt::format(
                "Free the undo cache of {} ({} in {})? After this, `gpudoctor undo` cannot put "
                "the old stack back.",
                one_line(x.script_id), x.size, one_line(x.cache));
          },
          [](const qn::Undo& x) {
            return fmt::format(
                "Restore {} files, remove {} that the runs created, and put their packages back?", x.restores,
                x.removals);
          },
      },
      q);
}

class TerminalFrontend final : public fix::Frontend {
public:
  void report(const fix::Event& e) override { show(e); }
  fix::Answer ask(const fix::Question& q) override {
    if (!terminal::is_terminal(STDIN_FILENO)) return fix::Answer::cannot_ask;
    out(question_text(q) + " [y/N] ");
    std::fflush(stdout);
    std::string answer;
    std::getline(std::cin, answer);
    return answer == "y" || answer == "Y" || answer == "yes" ? fix::Answer::yes : fix::Answer::no;
  }
};

} // namespace

std::unique_ptr<fix::Frontend> terminal_frontend() {
  return std::make_unique<TerminalFrontend>();
}

std::unique_ptr<fix::Frontend> make_frontend(EventsFormat format) {
  return format == EventsFormat::json ? json_lines_frontend() : terminal_frontend();
}

} // namespace gpudoctor
