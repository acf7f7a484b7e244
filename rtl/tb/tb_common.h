// Shared helpers of the RTL benches (rtl/README.md): clocking a Verilated
// module with clk_i/rst_ni. The Verilator headers are included with hmtt's
// strict warnings relaxed (generated code).
#pragma once

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wold-style-cast"
#pragma GCC diagnostic ignored "-Wconversion"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wcast-align"
#pragma GCC diagnostic ignored "-Woverloaded-virtual"
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
#include <verilated.h>
#include HMTT_TB_HEADER
#pragma GCC diagnostic pop

#include <memory>

namespace hmtt::tb {

template <typename V>
struct Bench {
  std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
  std::unique_ptr<V> dut{new V(ctx.get())};

  // Reset for two cycles; the inputs set before stay applied.
  void reset() {
    dut->clk_i = 0;
    dut->rst_ni = 0;
    dut->eval();
    for (int i = 0; i < 2; ++i) {
      dut->clk_i = 1;
      dut->eval();
      dut->clk_i = 0;
      dut->eval();
    }
    dut->rst_ni = 1;
    dut->eval();
  }
  // Settles the inputs of this cycle (outputs combinational in them are valid after).
  void settle() {
    dut->clk_i = 0;
    dut->eval();
  }
  // Rising edge: ends the cycle.
  void edge() {
    dut->clk_i = 1;
    dut->eval();
    dut->clk_i = 0;
    dut->eval();
  }
};

}  // namespace hmtt::tb
