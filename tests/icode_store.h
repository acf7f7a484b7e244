// A test fixture shared by the Chameleon and PSnAP tiers: a store holding `trace`
// and program I-Code events HMTT_EVENT(2) at t = 0 and t = 2500 and HMTT_EVENT(7)
// at t = 1000 (config-space indices 64 + k), plus a FIFO loss at t = 1500, which
// is not an I-Code. With events = false, the store has none.
#pragma once

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "hmtt/reference.h"
#include "hmtt/store/store.h"

namespace hmtt_test {

inline void write_icode_store(const std::string& path, const std::vector<hmtt::Reference>& trace, bool events = true) {
  auto w = hmtt::store::StoreWriter::create(path, hmtt::store::CaptureInfo{});
  REQUIRE(w.ok());
  REQUIRE((*w)->write(trace).ok());
  if (events) {
    std::vector<hmtt::store::Event> ev(4);
    ev[0].time = 0, ev[0].value = 64 + 2;
    ev[1].time = 1000, ev[1].value = 64 + 7;
    ev[2].time = 2500, ev[2].value = 64 + 2;
    ev[3].time = 1500, ev[3].type = hmtt::store::EventType::FifoLoss, ev[3].value = 1;
    REQUIRE((*w)->add_events(ev).ok());
  }
  REQUIRE((*w)->finish().ok());
}

}  // namespace hmtt_test
