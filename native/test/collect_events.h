#pragma once
// An event sink that keeps every event, for tests that inspect what a decode streamed.
#include <utility>
#include <vector>

#include "decode/events.h"

namespace sctest {

struct Collect final : saccade::EventSink {
  std::vector<saccade::Event> events;
  void emit(saccade::Event&& e) override { events.push_back(std::move(e)); }
  int count(saccade::Event::Type t) const {
    int n = 0;
    for (const saccade::Event& e : events) n += e.type == t;
    return n;
  }
};

}  // namespace sctest
