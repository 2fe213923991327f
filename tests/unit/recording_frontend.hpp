// A front end of the fix engine for tests: keeps every event, answers every question as it was told, and
// counts the questions. The tests drive the engine through it and look at what it reported, not at prose.
#pragma once

#include "fix/events.hpp"

#include <cstddef>
#include <vector>

namespace gpudoctor::test {

struct RecordingFrontend final : fix::Frontend {
  std::vector<fix::Event> events;
  std::vector<fix::Question> questions;
  fix::Answer answer = fix::Answer::no;

  void report(const fix::Event& e) override { events.push_back(e); }
  fix::Answer ask(const fix::Question& q) override {
    questions.push_back(q);
    return answer;
  }

  // The events of type E, in order.
  template <class E> std::vector<E> all() const {
    std::vector<E> out;
    for (const auto& e : events)
      if (const E* x = std::get_if<E>(&e)) out.push_back(*x);
    return out;
  }
};

} // namespace gpudoctor::test
