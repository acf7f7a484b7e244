// Bench of hmtt_framer: round-robin over 1-4 links, counts, base_time/flag latched with the first record.
#include <doctest/doctest.h>

#include <random>

#include "tb_common.h"

using namespace hmtt;

TEST_CASE("hmtt_framer routes frame n to link n mod links with its count, base and flag") {
  for (unsigned links = 1; links <= 4; ++links) {
    tb::Bench<Vhmtt_framer> b;
    b.dut->links_i = links;
    b.dut->rec_valid_i = 0;
    b.dut->close_i = 0;
    b.reset();
    std::mt19937_64 rng(links);
    unsigned frame = 0, count = 0;
    std::uint64_t base = 0, cur_base = 0;
    bool flag = false, cur_flag = false;
    for (int cyc = 0; cyc < 20000; ++cyc) {
      const bool rv = rng() % 2;
      const bool cl = rng() % 9 == 0;
      const std::uint64_t rec = rng() & 0xFFFFFFFFFFull;
      cur_base = rng();
      cur_flag = rng() & 1;
      b.dut->rec_valid_i = rv;
      b.dut->rec_i = rec;
      b.dut->close_i = cl;
      b.dut->base_i = cur_base;
      b.dut->flag_i = cur_flag;
      b.settle();
      const unsigned link = frame % links;
      CHECK(b.dut->wr_valid_o == (rv ? 1u << link : 0u));
      if (rv) {
        CHECK(b.dut->wr_rec_o == rec);
        if (count == 0) {
          base = cur_base;
          flag = cur_flag;
        }
        ++count;
      }
      if (cl && count > 0) {
        CHECK(b.dut->close_o == (1u << link));
        CHECK(b.dut->close_count_o == count);
        CHECK(b.dut->close_base_o == base);
        CHECK(b.dut->close_flag_o == flag);
        ++frame;
        count = 0;
      } else {
        CHECK(b.dut->close_o == 0);
      }
      b.edge();
    }
    CHECK(b.dut->frames_o == frame);
    CHECK(frame > 1000);
  }
}
