// The front ends of the fix engine's events (fix/events.hpp): a person at a terminal (progress on stdout,
// problems on stderr, questions answered on stdin), or a driver reading JSON lines (--events json): one
// object per event on stdout, the steps' own output moved to stderr, no question asked (--yes is required).
#pragma once

#include "app/commands.hpp"
#include "fix/events.hpp"
#include "util/json.hpp"

#include <memory>
#include <optional>
#include <string>

namespace gpudoctor {

std::unique_ptr<fix::Frontend> terminal_frontend();
std::unique_ptr<fix::Frontend> json_lines_frontend();
std::unique_ptr<fix::Frontend> make_frontend(EventsFormat format);

// Runs `act` with the front end `format` names, then tells it how `act` ended (the JSON lines' "end").
template <class Act> Outcome drive(EventsFormat format, Act&& act) {
  auto ui = make_frontend(format);
  Outcome outcome = act(*ui);
  ui->end(outcome);
  return outcome;
}

// --events json answers no question: it needs --yes (exit 2 without it, before anything runs).
std::optional<Failure> events_refusal(EventsFormat format, bool yes);

// One event as its JSON line holds it: {"event": "step-failed", "step": ..., ...} (docs/fixes.md, "Events").
Json event_json(const fix::Event& e);

} // namespace gpudoctor
