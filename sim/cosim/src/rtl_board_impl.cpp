// One Verilated board variant; compiled once per address map with
// HMTT_VTOP = the Verilated class and HMTT_FACTORY = the factory name.
#include <verilated.h>

#include "hmtt/cosim/rtl_board.h"
#include HMTT_VTOP_HEADER

namespace hmtt::cosim {

namespace {

class Impl final : public RtlBoard {
 public:
  Impl() : ctx_(new VerilatedContext), top_(new HMTT_VTOP(ctx_.get())) {}

  void reset(const RtlSettings& s) override {
    auto& t = *top_;
    t.channel_i = s.channel;
    t.board_id_i = s.board_id;
    t.cfg_base_i = s.cfg_base;
    t.cfg_size_i = s.cfg_size;
    t.trace_on_reset_i = s.trace_on_reset;
    t.links_i = s.links;
    t.rpf_i = s.records_per_frame;
    t.rate_i = s.rate_q16;
    t.clock_khz_i = s.clock_khz;
    std::uint64_t mac = 0;
    for (auto b : s.host_mac) mac = (mac << 8) | b;
    t.host_mac_i = mac;
    t.host_ip_i = s.host_ip;
    t.base_port_i = s.base_port;
    t.su_interval_i = s.su_interval;
    t.rdhpu_interval_i = s.rdhpu_interval;
    t.flush_i = 0;
    t.tx_ready_i = 0xF;
    set_pins(sim::DdrPins{});
    t.clk_i = 0;
    t.rst_ni = 0;
    t.eval();
    for (int i = 0; i < 2; ++i) {
      t.clk_i = 1;
      t.eval();
      t.clk_i = 0;
      t.eval();
    }
    t.rst_ni = 1;
    t.eval();
    now_ = 0;
    for (auto& l : packets) l.clear();
    for (auto& c : cur_) c.clear();
  }

  void cycle(const sim::DdrPins& p) override {
    set_pins(p);
    step();
  }

  void idle(std::uint64_t n) override {
    set_pins(sim::DdrPins{});
    for (std::uint64_t i = 0; i < n; ++i) step();
  }

  void set_flush(bool on) override { top_->flush_i = on; }
  bool drained() override { return top_->drained_o; }
  std::uint64_t now() const override { return now_; }

  RtlCounters counters() override {
    auto& t = *top_;
    RtlCounters c;
    c.commands = t.commands_o;
    c.references = t.references_o;
    c.events = t.events_o;
    c.orphans = t.orphans_o;
    c.dropped = t.dropped_o;
    c.loss_records = t.loss_records_o;
    c.frames = t.frames_o;
    c.high_water = t.high_water_o;
    c.reports = t.reports_o;
    c.reports_lost = t.reports_lost_o;
    c.overrun = t.overrun_o;
    return c;
  }

 private:
  void set_pins(const sim::DdrPins& p) {
    auto& t = *top_;
    t.cs_n_i = p.cs_n & 3;
    t.ras_n_i = p.ras_n;
    t.cas_n_i = p.cas_n;
    t.we_n_i = p.we_n;
    t.ba_i = p.ba;
    t.a_i = p.a;
  }

  void step() {
    auto& t = *top_;
    t.clk_i = 0;
    t.eval();
    const unsigned valid = t.tx_valid_o;
    if (valid) {
      for (unsigned l = 0; l < 4; ++l) {
        if (!((valid >> l) & 1)) continue;
        cur_[l].push_back(static_cast<std::uint8_t>(t.tx_data_o >> (8 * l)));
        ++bytes;
        if ((t.tx_last_o >> l) & 1) {
          packets[l].push_back(std::move(cur_[l]));
          cur_[l].clear();
        }
      }
    }
    t.clk_i = 1;
    t.eval();
    ++now_;
  }

  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<HMTT_VTOP> top_;
  std::array<std::vector<std::uint8_t>, 4> cur_;
  std::uint64_t now_ = 0;
};

}  // namespace

std::unique_ptr<RtlBoard> HMTT_FACTORY() { return std::make_unique<Impl>(); }

}  // namespace hmtt::cosim
