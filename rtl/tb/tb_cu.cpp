// Bench of hmtt_cu: config-space events, BEGIN/END gating, trace_on_reset.
#include <doctest/doctest.h>

#include <random>

#include "tb_common.h"

using namespace hmtt;

TEST_CASE("hmtt_cu: config accesses become events, BEGIN/END gate references") {
  for (int on_reset = 0; on_reset < 2; ++on_reset) {
    tb::Bench<Vhmtt_cu> b;
    const std::uint32_t base = 0x7F800000, size = 8u << 20;
    b.dut->cfg_base_i = base;
    b.dut->cfg_size_i = size;
    b.dut->trace_on_reset_i = on_reset;
    b.dut->ref_valid_i = 0;
    b.reset();
    std::mt19937_64 rng(3 + on_reset);
    int state = 0;  // 0 unset, 1 on, 2 off
    struct Want {
      bool valid = false, event = false, write = false;
      std::uint32_t data = 0;
      std::uint64_t time = 0;
    } want;
    std::uint64_t events = 0, refs = 0, gated = 0;
    for (std::uint64_t cyc = 0; cyc < 30000; ++cyc) {
      const bool valid = rng() % 3 != 0;
      std::uint32_t a;
      const unsigned kind = static_cast<unsigned>(rng() % 10);
      if (kind == 0) a = base;                  // BEGIN
      else if (kind == 1) a = base + 0x40;      // END
      else if (kind == 2) a = base + 0x1000 + 0x40 * static_cast<std::uint32_t>(rng() % 5000) + (rng() & 63);
      else if (kind == 3) a = base + size + static_cast<std::uint32_t>(rng() % 4096);  // just above
      else if (kind == 4) a = base - 64;                                                // just below
      else a = static_cast<std::uint32_t>(rng() % base);
      const bool w = rng() & 1;
      b.dut->ref_valid_i = valid;
      b.dut->ref_write_i = w;
      b.dut->ref_addr_i = a;
      b.dut->ref_time_i = cyc;
      b.settle();
      CHECK(b.dut->item_valid_o == want.valid);
      if (want.valid) {
        CHECK(b.dut->item_event_o == want.event);
        CHECK(b.dut->item_write_o == want.write);
        CHECK(b.dut->item_data_o == want.data);
        CHECK(b.dut->item_time_o == want.time);
      }
      want = Want{};
      if (valid) {
        const bool in_cfg = a >= base && a - base < size;
        if (in_cfg) {
          const std::uint32_t index = (a - base) >> 6;
          want = Want{true, true, w, index, cyc};
          ++events;
          if (index == 0) state = 1;
          if (index == 1) state = 2;
        } else {
          const bool tracing = state == 0 ? on_reset != 0 : state == 1;
          if (tracing) {
            want = Want{true, false, w, a, cyc};
            ++refs;
          } else {
            ++gated;
          }
        }
      }
      b.edge();
    }
    CHECK(events > 5000);
    CHECK(refs > 5000);
    CHECK(gated > 1000);
  }
}
