// The fix engine's events as JSON lines (--events json), for a driver: one object per event on stdout, each
// {"event": NAME, ...} with the event's facts (docs/fixes.md, "Events"), flushed as it happens; the steps'
// own output goes to stderr, so stdout holds nothing else. No question is asked: the command line gives
// --yes (main refuses --events json without it).
#include "app/fix_frontend.hpp"
#include "fix/plan.hpp"

#include <cstdio>
#include <functional>
#include <string_view>
#include <tuple>

namespace gpudoctor {

namespace {

namespace ev = fix::event;

Json named(std::string_view name) {
  Json j = Json::object();
  j["event"] = name;
  return j;
}

// The value of one fact: strings, lists of them, numbers, flags, the enumerations by their names, a plan by
// its id and steps.
template <class T> Json value(const T& v) {
  return v;
}

Json value(const std::reference_wrapper<const fix::Plan>& plan) {
  Json steps = Json::array();
  for (const auto& s : plan.get().steps)
    steps.push_back({{"id", s.id}, {"root", s.root}, {"destructive", s.destructive}, {"reboot", s.reboot}});
  return {{"id", plan.get().id}, {"steps", std::move(steps)}};
}

Json value(ev::StepFailed::Left left) {
  switch (left) {
  case ev::StepFailed::Left::rolled_back:
    return "rolled-back";
  case ev::StepFailed::Left::stopped:
    return "stopped";
  case ev::StepFailed::Left::unfinished:
    return "unfinished";
  case ev::StepFailed::Left::failed:
    return "failed";
  }
  return "";
}

Json value(ev::NothingToUndo::Why why) {
  switch (why) {
  case ev::NothingToUndo::Why::stopped:
    return "stopped";
  case ev::NothingToUndo::Why::rolled_back:
    return "rolled-back";
  case ev::NothingToUndo::Why::no_run:
    return "no-run";
  case ev::NothingToUndo::Why::no_entries:
    return "no-entries";
  }
  return "";
}

Json value(ev::KeptFileRefused::Kind kind) {
  return kind == ev::KeptFileRefused::Kind::backup ? "backup" : "cached-package";
}

Json value(ev::PackageCommand::Why why) {
  using Why = ev::PackageCommand::Why;
  switch (why) {
  case Why::dpkg_recover:
    return "dpkg-recover";
  case Why::from_cache:
    return "from-cache";
  case Why::auto_marks:
    return "auto-marks";
  case Why::selections:
    return "selections";
  case Why::purge_installed:
    return "purge-installed";
  case Why::holds:
    return "holds";
  case Why::versionlock:
    return "versionlock";
  case Why::module_stream:
    return "module-stream";
  }
  return "";
}

} // namespace

Json event_json(const fix::Event& event) {
  return std::visit(
      [](const auto& e) {
        Json j = named(e.name);
        std::apply([&](const auto&... fact) { ((j[std::string(fact.name)] = value(fact.value)), ...); },
                   e.facts());
        return j;
      },
      event);
}

namespace {

class JsonLinesFrontend final : public fix::Frontend {
public:
  void report(const fix::Event& e) override { write(event_json(e)); }
  fix::Answer ask(const fix::Question&) override { return fix::Answer::cannot_ask; }
  void end(const Outcome& outcome) override {
    Json j = named("end");
    j["exit"] = exit_code(outcome);
    if (!outcome) {
      j["message"] = outcome.error().message;
      j["commands"] = outcome.error().commands;
    }
    write(j);
  }
  bool steps_output_to_stderr() const override { return true; }

private:
  static void write(const Json& j) {
    std::string line = dump_json(j, -1) + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout); // a driver reads each event as it happens, before the next step runs
  }
};

} // namespace

std::optional<Failure> events_refusal(EventsFormat format, bool yes) {
  if (format != EventsFormat::json || yes) return std::nullopt;
  return Failure{Exit::usage, "--events json asks nothing: give --yes with it", {}};
}

std::unique_ptr<fix::Frontend> json_lines_frontend() {
  return std::make_unique<JsonLinesFrontend>();
}

} // namespace gpudoctor
