// The fix engine's events (fix/events.hpp) as a driver reads them (--events json): every event has a name of
// its own and one line, a value from a record cannot break the line or reach a terminal as a control, and
// --events json is refused without --yes.
#include "app/fix_frontend.hpp"
#include "fix/plan.hpp"

#include <set>
#include <string>
#include <variant>
#include <vector>

#include <doctest/doctest.h>

using namespace gpudoctor;
namespace ev = gpudoctor::fix::event;

namespace {

// One event of every kind, in the variant's order.
std::vector<fix::Event> one_of_each(const fix::Plan& plan) {
  return {
      ev::PlanReady{plan},
      ev::MigrationNotClosed{"nvidia", "migrate-1", "gpudoctor undo"},
      ev::MigrationContinues{"nvidia", "migrate-1", "step a failed, 1 of 3 steps done"},
      ev::FixContinues{"install-rocm", "install-rocm-1", "step b failed, 1 of 3 steps done"},
      ev::MigrationComplete{"nvidia", "migrate-1", "gpudoctor migrate --finish"},
      ev::OptionsIgnored{{"--driver 570"}},
      ev::Resuming{"migrate-1", "rebooting after step b, 2 of 3 steps done"},
      ev::StepsLeft{"migrate-1", {"c"}},
      ev::StepStarting{"c", 3, 3},
      ev::StepDone{"c"},
      ev::RebootNeeded{"b", "gpudoctor migrate --resume"},
      ev::StepFailed{ev::StepFailed::Left::unfinished,
                     "c",
                     1,
                     "/var/log/gpudoctor/migrate-1.journal",
                     2,
                     3,
                     {"gpudoctor migrate --resume", "gpudoctor undo"}},
      ev::AllRan{3, "/var/log/gpudoctor/migrate-1.journal", "gpudoctor undo", true,
                 "gpudoctor migrate --finish", "/var/cache/gpudoctor/migrate-1", "3.2 GiB"},
      ev::NothingToResume{"migrate-1", "gpudoctor migrate --finish"},
      ev::FinishedAlready{"migrate-1"},
      ev::CacheFreed{"migrate-1", "finished", "3.2 GiB", "/var/cache/gpudoctor/migrate-1", "j", "b"},
      ev::RecordNotSaved{"cannot write /var/lib/gpudoctor/migration.json: No space left on device"},
      ev::UndoneAlready{"fix-1"},
      ev::NothingToUndo{ev::NothingToUndo::Why::no_entries, "fix-1", "j", {"r1"}},
      ev::KeptFileRefused{ev::KeptFileRefused::Kind::backup, "/etc/x", "/home/a/x", "r1", "not root's"},
      ev::Undoing{"fix-1", {"r2", "r1"}},
      ev::FileRestored{"/etc/x", false, "No space left on device"},
      ev::CreatedRemoved{"/etc/y"},
      ev::PackageCommand{ev::PackageCommand::Why::from_cache, {"apt-get", "install", "/c/a.deb"}, "", true},
      ev::PackageCommandFailed{100},
      ev::ReinstallByName{"apt-get install", {"rocm-core=6.4.1"}},
      ev::TreeNotRestored{"/opt/rocm-6.4.1"},
      ev::GroupAdded{"alice", "render"},
      ev::PipChanged{"torch 2.7.1+rocm6.3 -> 2.7.1+cu128"},
      ev::ServiceStopped{"nvidia-persistenced"},
      ev::Undone{"fix-1"}};
}

} // namespace

TEST_CASE("fix events: every kind has a name of its own and is one JSON line") {
  fix::Plan plan;
  plan.id = "purge-rocm";
  plan.steps.push_back({});
  plan.steps.back().id = "purge-rocm.packages";
  plan.steps.back().root = true;
  auto events = one_of_each(plan);
  REQUIRE(events.size() == std::variant_size_v<fix::Event>);
  std::set<std::string> names;
  for (std::size_t i = 0; i < events.size(); ++i) {
    CHECK(events[i].index() == i); // one of each, none left out
    Json j = event_json(events[i]);
    REQUIRE(j.contains("event"));
    names.insert(j["event"].get<std::string>());
    std::string line = dump_json(j, -1);
    CHECK(line.find('\n') == std::string::npos);
    auto back = parse_json(line);
    REQUIRE(back.has_value());
    CHECK(*back == j);
  }
  CHECK(names.size() == events.size());
}

TEST_CASE("fix events: the facts a driver needs are fields, not prose") {
  fix::Plan plan;
  plan.id = "migrate-to-nvidia";
  plan.steps.push_back({});
  plan.steps.back().id = "install-nvidia.driver";
  plan.steps.back().reboot = true;
  Json p = event_json(ev::PlanReady{plan});
  CHECK(p["plan"]["id"] == "migrate-to-nvidia");
  CHECK(p["plan"]["steps"][0]["id"] == "install-nvidia.driver");
  CHECK(p["plan"]["steps"][0]["reboot"] == true);

  Json f = event_json(ev::StepFailed{ev::StepFailed::Left::rolled_back,
                                     "prepare.downloads",
                                     100,
                                     "j",
                                     0,
                                     9,
                                     {"gpudoctor migrate --to nvidia --apply"}});
  CHECK(f["event"] == "step-failed");
  CHECK(f["left"] == "rolled-back");
  CHECK(f["status"] == 100);
  CHECK(f["commands"] == Json::array({"gpudoctor migrate --to nvidia --apply"}));

  Json r = event_json(ev::RebootNeeded{"install-nvidia.driver", "gpudoctor migrate --resume"});
  CHECK(r["event"] == "reboot-needed");
  CHECK(r["continue_command"] == "gpudoctor migrate --resume");
}

TEST_CASE("fix events: a hostile value stays one line with no control in it") {
  // A file name from a journal: its newline and escape are JSON escapes, DEL and C1 controls too.
  std::string line = dump_json(event_json(ev::FileRestored{"/etc/a\n\x1b[31mb\x7f\xc2\x9b", true, ""}), -1);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find('\x1b') == std::string::npos);
  CHECK(line.find('\x7f') == std::string::npos);
  CHECK(line.find("\xc2\x9b") == std::string::npos);
  auto back = parse_json(line);
  REQUIRE(back.has_value());
  CHECK((*back)["file"] == "/etc/a\n\x1b[31mb\x7f\xc2\x9b");
}

TEST_CASE("fix events: --events json asks nothing, so it needs --yes") {
  auto refused = events_refusal(EventsFormat::json, false);
  REQUIRE(refused);
  CHECK(refused->exit == Exit::usage);
  CHECK(refused->message == "--events json asks nothing: give --yes with it");
  CHECK_FALSE(events_refusal(EventsFormat::json, true));
  CHECK_FALSE(events_refusal(EventsFormat::text, false));
}
