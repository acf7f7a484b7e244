// hmtt sim: a workload through the memory-controller model (SystemC) and one
// board per channel, to a pcap file per link or UDP datagrams to 127.0.0.1.
//
//   workload -> ControllerSimulation -> command bus per channel -> board -> frames -> pcap / UDP
//
// The board is the bit-exact C++ model (hmtt_board) when this build has it.
// Without it, the verb falls back to a ground-truth framer: frames encoded by
// hmtt::wire::FrameEncoder straight from the controller's issued READ/WRITEs.
// That is NOT a board (no DSMU, no FIFO, no losses); the output says so.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "hmtt/progress.h"
#include "hmtt/sim/controller_simulation.h"
#include "hmtt/sim/workload.h"
#include "hmtt/wire/ethernet.h"
#include "hmtt/wire/frame.h"
#include "verb.h"

#if __has_include("hmtt/tracefmt/reader.h")
#include "hmtt/tracefmt/reader.h"
#define HMTT_SIM_HAS_TRACEFMT 1
#else
#define HMTT_SIM_HAS_TRACEFMT 0
#endif

#if __has_include("hmtt/board/board_model.h")
#include "hmtt/board/board_model.h"
#define HMTT_SIM_HAS_BOARD 1
#else
#define HMTT_SIM_HAS_BOARD 0
#endif

#if HMTT_SIM_HAS_BOARD && __has_include("hmtt/cosim/cosim.h")
#include "hmtt/cosim/cosim.h"
#define HMTT_SIM_HAS_RTL 1
#else
#define HMTT_SIM_HAS_RTL 0
#endif

namespace {

using namespace hmtt;

struct SimOptions {
  std::string standard = "ddr2-400";
  std::string map = "open-page";
  std::string policy = "open";
  unsigned ranks = 1;
  unsigned channels = 1;
  unsigned burst_length = 8;
  unsigned queue_depth = 32;
  std::string workload = "appendix-a";
  std::string replay;                    // a trace file or store to replay instead of a workload
  std::string cycles_per_tick = "1";     // replay: request time = reference time x N/D
  bool replay_config_space = false;      // replay: the trace's config-space accesses are I-Codes
  std::string config_base;               // config space base address ("" = the top 8 MiB)
  std::uint64_t requests = 100000;
  std::uint32_t unit = 64;
  std::uint64_t seed = 1;
  std::uint32_t gap = 0;
  std::uint64_t on_cycles = 20000;
  std::uint64_t off_cycles = 80000;
  std::uint64_t events_every = 1000;
  bool no_begin_end = false;
  unsigned links = 1;
  double link_mbps = 0;  // 0: unlimited
  std::size_t fifo = 16384;
  std::uint32_t su_interval = 0;     // Statistic Unit interval in board cycles (0: off)
  std::uint32_t rdhpu_interval = 0;  // RDHPU interval in board cycles (0: off)
  unsigned hot_k = 8;                // RDHPU hot-page entries
  std::string out_prefix;
  std::string ground_truth;  // CSV of every READ/WRITE the controller issued
  int udp_port = 0;
  double udp_mbps = 1000;  // pace each link's datagrams to this rate (0: as fast as possible)
  bool rtl = false;
  bool check = false;
  bool ground_truth_frames = false;
  bool json = false;
};

// One board watching one channel's command bus, as the verb drives it.
class BoardPort {
 public:
  virtual ~BoardPort() = default;
  virtual Status consume(std::span<const sim::BusCycle> bus, std::span<const sim::IssuedAccess> truth) = 0;
  virtual Status finish() = 0;
  virtual bool has_frame() const = 0;
  virtual wire::EncodedFrame pop_frame() = 0;
  virtual bool needs_ground_truth() const = 0;
  std::uint64_t references = 0, events = 0, dropped = 0, loss_records = 0, orphans = 0;
  std::uint64_t reports = 0, reports_lost = 0;
};

// Fallback: frames from the ground truth. Not a board model (no DSMU, no FIFO).
class GroundTruthFramer final : public BoardPort {
 public:
  static Result<std::unique_ptr<BoardPort>> create(const wire::EncoderConfig& ec, sim::ConfigSpace space) {
    auto enc = wire::FrameEncoder::create(ec);
    if (!enc.ok()) return enc.error();
    return std::unique_ptr<BoardPort>(new GroundTruthFramer(std::move(*enc), space));
  }
  Status consume(std::span<const sim::BusCycle>, std::span<const sim::IssuedAccess> truth) override {
    for (const auto& a : truth) {
      if (a.config_space) {
        const std::uint32_t index = space_.index_of(a.address);
        HMTT_TRY(enc_.add_event(a.cycle, index, a.write));
        ++events;
        if (index == sim::ConfigSpace::kBegin) enc_.set_tracing(tracing_ = true);
        if (index == sim::ConfigSpace::kEnd) enc_.set_tracing(tracing_ = false);
      } else if (tracing_) {
        HMTT_TRY(enc_.add_reference(a.cycle, a.address, a.write));
        ++references;
      }
    }
    return {};
  }
  Status finish() override {
    enc_.flush();
    return {};
  }
  bool has_frame() const override { return enc_.has_frame(); }
  wire::EncodedFrame pop_frame() override { return enc_.pop_frame(); }
  bool needs_ground_truth() const override { return true; }

 private:
  GroundTruthFramer(wire::FrameEncoder enc, sim::ConfigSpace space) : enc_(std::move(enc)), space_(space) {}
  wire::FrameEncoder enc_;
  sim::ConfigSpace space_;
  bool tracing_ = true;
};

#if HMTT_SIM_HAS_BOARD
// The bit-exact C++ board model.
class CppBoard final : public BoardPort {
 public:
  static Result<std::unique_ptr<BoardPort>> create(const board::BoardConfig& bc) {
    auto m = board::BoardModel::create(bc);
    if (!m.ok()) return m.error();
    return std::unique_ptr<BoardPort>(new CppBoard(std::move(*m)));
  }
  Status consume(std::span<const sim::BusCycle> bus, std::span<const sim::IssuedAccess>) override {
    HMTT_TRY(model_.consume(bus));
    sync();
    return {};
  }
  Status finish() override {
    HMTT_TRY(model_.finish());
    sync();
    return {};
  }
  bool has_frame() const override { return model_.has_frame(); }
  wire::EncodedFrame pop_frame() override { return model_.pop_frame(); }
  bool needs_ground_truth() const override { return false; }

 private:
  explicit CppBoard(board::BoardModel m) : model_(std::move(m)) {}
  void sync() {
    const auto& c = model_.counters();
    references = c.references;
    events = c.events;
    dropped = c.dropped;
    loss_records = c.loss_records;
    orphans = c.orphans;
    reports = c.reports;
    reports_lost = c.reports_lost;
  }
  board::BoardModel model_;
};
#endif

#if HMTT_SIM_HAS_RTL
// The board's RTL (rtl/hmtt_board_top.v) under Verilator, clocked every command
// cycle (idle ones included); its Ethernet packets are unwrapped back into
// frames, which the link outputs wrap again (byte-identical: the co-simulation
// tier checks RTL packets against the model's).
class RtlBoardPort final : public BoardPort {
 public:
  static Result<std::unique_ptr<BoardPort>> create(const board::BoardConfig& bc) {
    if (bc.fifo_depth != board::kDefaultFifoDepth || bc.burst_bytes != 1472)
      return make_error("--rtl: the RTL board is built with a 16384-entry FIFO (--fifo 16384)");
    const bool units = bc.units.any();
    if (units) {
      // The model's checks of the units' settings (report sizes against the frame, --hot-k range).
      auto check = board::BoardModel::create(bc);
      if (!check.ok()) return make_error("--rtl: " + check.error().message);
      if (bc.units.rdhpu_interval != 0 && bc.units.hot_k != cosim::kRtlHotK)
        return make_error("--rtl: the RTL board's RDHPU is built with " + std::to_string(cosim::kRtlHotK) +
                          " hot pages (--hot-k " + std::to_string(cosim::kRtlHotK) + ")");
    }
    auto rb = cosim::make_rtl_board(bc.map.text(), units);
    if (!rb.ok()) return make_error("--rtl: " + rb.error().message);
    const cosim::RtlSettings s = cosim::rtl_settings(bc);
    if (s.cfg_base != bc.config_base || s.cfg_size != bc.config_size)
      return make_error("--rtl: the config space must lie below 4 GiB");
    auto port = std::unique_ptr<RtlBoardPort>(new RtlBoardPort(std::move(*rb)));
    port->units_ = bc.units;
    port->rtl_->reset(s);
    return std::unique_ptr<BoardPort>(std::move(port));
  }
  Status consume(std::span<const sim::BusCycle> bus, std::span<const sim::IssuedAccess>) override {
    for (const auto& bc : bus) {
      if (bc.cycle > rtl_->now()) rtl_->idle(bc.cycle - rtl_->now());
      rtl_->cycle(bc.pins);
      last_cycle_ = bc.cycle;
    }
    return collect();
  }
  Status finish() override {
    if (units_.any()) {
      // With the online units, flush_i rises when every command's inputs have reached them: the last
      // command + 3 (+ the RDHPU stack's 128), as the model's finish() (docs/board.md 13).
      const std::uint64_t end = last_cycle_ + 3 + (units_.rdhpu_interval != 0 ? board::kBoardRdhpuDepth : 0);
      if (end > rtl_->now()) rtl_->idle(end - rtl_->now());
    } else {
      rtl_->idle(8);
    }
    rtl_->set_flush(true);
    for (std::uint64_t guard = 0; !rtl_->drained(); ++guard) {
      rtl_->idle(64);
      HMTT_TRY(collect());
      if (guard > 200000) return make_error("--rtl: the board did not drain after the flush");
    }
    rtl_->idle(64);
    return collect();
  }
  bool has_frame() const override { return !frames_.empty(); }
  wire::EncodedFrame pop_frame() override {
    wire::EncodedFrame f = std::move(frames_.front());
    frames_.pop_front();
    return f;
  }
  bool needs_ground_truth() const override { return false; }

 private:
  explicit RtlBoardPort(std::unique_ptr<cosim::RtlBoard> rtl) : rtl_(std::move(rtl)) {}
  Status collect() {
    const cosim::RtlCounters c = rtl_->counters();
    if (c.overrun)
      return make_error("--rtl: link buffer overrun at board cycle " + std::to_string(rtl_->now()) +
                        " (more than the links carry: lower the rate with --link-mbps)");
    for (std::uint8_t l = 0; l < 4; ++l) {
      auto& q = rtl_->packets[l];
      while (!q.empty()) {
        auto payload = wire::udp_payload(q.front(), true);
        if (!payload.ok()) return make_error("--rtl: link " + std::to_string(l) + ": " + payload.error().message);
        auto h = wire::parse_header(*payload);
        if (!h.ok()) return make_error("--rtl: link " + std::to_string(l) + ": " + h.error().message);
        wire::EncodedFrame f;
        f.link = l;
        f.sequence = h->sequence;
        f.bytes.assign(payload->begin(), payload->end());
        frames_.push_back(std::move(f));
        q.pop_front();
      }
    }
    references = c.references;
    events = c.events;
    dropped = c.dropped;
    loss_records = c.loss_records;
    orphans = c.orphans;
    reports = c.reports;
    reports_lost = c.reports_lost;
    return {};
  }
  std::unique_ptr<cosim::RtlBoard> rtl_;
  board::OnlineUnits units_;
  std::uint64_t last_cycle_ = 0;
  std::deque<wire::EncodedFrame> frames_;
};
#endif

// Where a board's links go: one pcap file per link, or UDP to 127.0.0.1.
class LinkOutput {
 public:
  static Result<std::unique_ptr<LinkOutput>> create(const SimOptions& o, std::uint8_t board, std::uint8_t link) {
    auto out = std::unique_ptr<LinkOutput>(new LinkOutput());
    out->board_ = board;
    out->link_ = link;
    if (!o.out_prefix.empty()) {
      out->path_ = o.out_prefix + "-b" + std::to_string(board) + "-l" + std::to_string(link) + ".pcap";
      auto w = wire::PcapWriter::create(out->path_);
      if (!w.ok()) return w.error();
      out->pcap_ = std::move(*w);
    }
    if (o.udp_port != 0) {
      out->fd_ = ::socket(AF_INET, SOCK_DGRAM, 0);
      if (out->fd_ < 0) return make_error(std::string("udp: socket: ") + std::strerror(errno));
      std::memset(&out->to_, 0, sizeof out->to_);
      out->to_.sin_family = AF_INET;
      out->to_.sin_port = htons(static_cast<std::uint16_t>(o.udp_port + 4 * board + link));
      out->to_.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      out->mbps_ = o.udp_mbps;
    }
    return out;
  }
  ~LinkOutput() {
    if (fd_ >= 0) ::close(fd_);
  }
  Status send(const wire::EncodedFrame& f, std::uint32_t tck_ps) {
    ++frames;
    if (pcap_) {
      auto h = wire::parse_header(f.bytes);
      if (!h.ok()) return h.error();
      const auto packet = wire::udp_packet(addressing_, board_, link_, f.bytes, false);
      HMTT_TRY(pcap_->write(packet, h->base_time * tck_ps / 1000));
    }
    if (fd_ >= 0) {
      pace(f.bytes.size());
      const ssize_t n = ::sendto(fd_, f.bytes.data(), f.bytes.size(), 0, reinterpret_cast<const sockaddr*>(&to_),
                                 sizeof to_);
      if (n < 0)
        return make_error("udp: send to 127.0.0.1:" + std::to_string(ntohs(to_.sin_port)) + ": " + std::strerror(errno));
    }
    return {};
  }
  Status close() { return pcap_ ? pcap_->flush() : Status{}; }
  // Keeps a link's datagrams at `mbps` on the wall clock, as a GigE link would send them.
  void pace(std::size_t bytes) {
    if (mbps_ <= 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (sent_bytes_ == 0) start_ = now;
    const double due_s = static_cast<double>(sent_bytes_) * 8.0 / (mbps_ * 1e6);
    const auto due = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                  std::chrono::duration<double>(due_s));
    if (due > now) std::this_thread::sleep_until(due);
    sent_bytes_ += bytes + wire::kEthHeaderBytes + wire::kIpv4HeaderBytes + wire::kUdpHeaderBytes + wire::kFcsBytes;
  }
  std::uint64_t frames = 0;
  const std::string& path() const { return path_; }

 private:
  LinkOutput() = default;
  wire::LinkAddressing addressing_;
  std::uint8_t board_ = 0, link_ = 0;
  std::string path_;
  std::unique_ptr<wire::PcapWriter> pcap_;
  int fd_ = -1;
  sockaddr_in to_{};
  double mbps_ = 0;
  std::uint64_t sent_bytes_ = 0;
  std::chrono::steady_clock::time_point start_;
};

int run_sim(const SimOptions& o) {
  const std::string verb = "sim";
  if (o.rtl && (!HMTT_SIM_HAS_RTL || o.ground_truth_frames))
    return app::fail(verb, make_error(o.ground_truth_frames ? "--rtl and --ground-truth-frames exclude each other"
                                                            : "--rtl: this build has no Verilated board (Verilator missing)"));
  if (o.links < 1 || o.links > 4) return app::fail(verb, make_error("--links " + std::to_string(o.links) + ": must be 1 to 4"));
  const bool units = o.su_interval != 0 || o.rdhpu_interval != 0;
  if (units && (o.ground_truth_frames || !HMTT_SIM_HAS_BOARD))
    return app::fail(verb, make_error("--su-interval/--rdhpu-interval: the online units need a board (the C++ model or "
                                      "--rtl), not the ground-truth framer"));
  sim::ControllerSpec spec;
  spec.standard = o.standard;
  spec.map = o.map;
  spec.policy = o.policy;
  spec.ranks = o.ranks;
  spec.channels = o.channels;
  spec.burst_length = o.burst_length;
  spec.queue_depth = o.queue_depth;
  spec.check_timing = o.check;
  auto made = sim::make_controller_config(spec);
  if (!made.ok()) return app::fail(verb, made.error());
  sim::ControllerConfig cfg = *made;
  if (!o.config_base.empty()) {
    std::uint64_t base = 0;
    try {
      std::size_t used = 0;
      base = std::stoull(o.config_base, &used, 0);
      if (used != o.config_base.size()) throw std::invalid_argument("trailing characters");
    } catch (const std::exception&) {
      return app::fail(verb, make_error("--config-base '" + o.config_base + "': expected an address (e.g. 0x3e000000)"));
    }
    if (base % 4096 != 0 || base < (1u << 20) || base + cfg.config_space.bytes > cfg.map.capacity_bytes())
      return app::fail(verb, make_error("--config-base '" + o.config_base +
                                        "': must be page-aligned, at least 1 MiB, with the 8 MiB config space "
                                        "inside the map's " + std::to_string(cfg.map.capacity_bytes()) + " bytes"));
    cfg.config_space.base = base;
  }
  const sim::DramTiming* timing = &cfg.timing;
  const sim::AddressMap* map = &cfg.map;

  sim::WorkloadSpec ws;
  ws.name = o.workload;
  ws.requests = o.requests;
  ws.unit = o.unit;
  ws.limit = cfg.config_space.base;
  ws.seed = o.seed;
  ws.gap = o.gap;
  ws.bursty.on_cycles = o.on_cycles;
  ws.bursty.off_cycles = o.off_cycles;
  std::unique_ptr<ReferenceSource> trace;
  std::unique_ptr<sim::RequestSource> source;
  if (!o.replay.empty()) {
#if HMTT_SIM_HAS_TRACEFMT
    auto t = tracefmt::open_trace(o.replay);
    if (!t.ok()) return app::fail(verb, t.error());
    trace = std::move(*t);
    sim::ReplayConfig rc;
    rc.limit = cfg.config_space.base;
    if (o.replay_config_space) {
      // The trace brings its own I-Codes (a guest that reserved the config space):
      // data addresses keep the whole map, config-space ones go out as I-Codes.
      rc.limit = cfg.map.capacity_bytes();
      rc.config_space = cfg.config_space;
    }
    const auto slash = o.cycles_per_tick.find('/');
    try {
      rc.cycles_per_tick_num = std::stoull(o.cycles_per_tick.substr(0, slash));
      rc.cycles_per_tick_den = slash == std::string::npos ? 1 : std::stoull(o.cycles_per_tick.substr(slash + 1));
    } catch (const std::exception&) {
      return app::fail(verb, make_error("--cycles-per-tick '" + o.cycles_per_tick + "': expected N or N/D"));
    }
    if (rc.cycles_per_tick_den == 0)
      return app::fail(verb, make_error("--cycles-per-tick '" + o.cycles_per_tick + "': zero denominator"));
    source = std::make_unique<sim::ReferenceReplay>(*trace, rc);
#else
    return app::fail(verb, make_error("--replay: this build has no trace-file readers (hmtt_tracefmt)"));
#endif
  } else {
    auto workload = sim::make_workload(ws);
    if (!workload.ok()) return app::fail(verb, workload.error());
    source = std::move(workload).value();
  }
  sim::ICodeConfig ic;
  ic.space = cfg.config_space;
  ic.event_every = o.events_every;
  ic.begin_end = !o.no_begin_end;
  sim::ICodeInterleaver requests(std::move(source), ic);

  // Boards: one per channel.
  const std::string board_kind = o.rtl ? "rtl" : HMTT_SIM_HAS_BOARD && !o.ground_truth_frames ? "cpp-model" : "ground-truth-framer";
  std::vector<std::unique_ptr<BoardPort>> boards;
  for (unsigned ch = 0; ch < o.channels; ++ch) {
    wire::EncoderConfig ec;
    ec.board = static_cast<std::uint8_t>(ch);
    ec.links = static_cast<std::uint8_t>(o.links);
    ec.clock_khz = timing->clock_khz();
    ec.line_shift = 6;
    ec.addr_bits = static_cast<std::uint8_t>(std::max(20u, map->total_bits() - 6));
    Result<std::unique_ptr<BoardPort>> b = make_error("no board");
#if HMTT_SIM_HAS_BOARD
    if (board_kind == "cpp-model" || board_kind == "rtl") {
      board::BoardConfig bc;
      bc.map = *map;
      bc.channel = ch;
      bc.config_base = cfg.config_space.base;
      bc.config_size = cfg.config_space.bytes;
      bc.encoder = ec;
      bc.fifo_depth = o.fifo;
      bc.units.su_interval = o.su_interval;
      bc.units.rdhpu_interval = o.rdhpu_interval;
      bc.units.hot_k = o.hot_k;
      if (o.link_mbps > 0) bc.rate_q16 = board::link_rate_q16(o.link_mbps * 1e6, o.links, ec.clock_khz);
#if HMTT_SIM_HAS_RTL
      if (board_kind == "rtl") b = RtlBoardPort::create(bc);
#endif
      if (board_kind == "cpp-model") b = CppBoard::create(bc);
    }
#endif
    if (board_kind == "ground-truth-framer") b = GroundTruthFramer::create(ec, cfg.config_space);
    if (!b.ok()) return app::fail(verb, b.error());
    boards.push_back(std::move(*b));
  }
  const bool no_board = board_kind == "ground-truth-framer";
  if (no_board && !o.json)
    std::fprintf(stderr,
                 "hmtt sim: NOTE: no board model in this build (or --ground-truth-frames): frames are encoded from "
                 "the controller's ground truth, not by a board; no FIFO, no losses%s\n",
                 o.link_mbps > 0 ? "; --link-mbps is ignored" : "");
  cfg.record_ground_truth = boards[0]->needs_ground_truth() || !o.ground_truth.empty();
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> truth_csv(nullptr, &std::fclose);
  if (!o.ground_truth.empty()) {
    truth_csv.reset(std::fopen(o.ground_truth.c_str(), "w"));
    if (!truth_csv) return app::fail(verb, make_error(o.ground_truth + ": " + std::strerror(errno)));
    std::fprintf(truth_csv.get(), "cycle,channel,address,write,config_space,request\n");
  }

  std::vector<std::vector<std::unique_ptr<LinkOutput>>> outputs(o.channels);
  for (unsigned ch = 0; ch < o.channels; ++ch)
    for (unsigned l = 0; l < o.links; ++l) {
      auto out = LinkOutput::create(o, static_cast<std::uint8_t>(ch), static_cast<std::uint8_t>(l));
      if (!out.ok()) return app::fail(verb, out.error());
      outputs[ch].push_back(std::move(*out));
    }

  auto simulation = sim::ControllerSimulation::create(cfg, requests);
  if (!simulation.ok()) return app::fail(verb, simulation.error());
  auto& s = **simulation;

  auto drain = [&](unsigned ch) -> Status {
    while (boards[ch]->has_frame()) {
      const wire::EncodedFrame f = boards[ch]->pop_frame();
      HMTT_TRY(outputs[ch][f.link]->send(f, timing->tck_ps));
    }
    return {};
  };

  ProgressLine progress("sim", o.requests);
  std::vector<sim::BusCycle> bus(8192);
  std::vector<sim::IssuedAccess> truth(4096);
  std::vector<bool> bus_done(o.channels, false), truth_done(o.channels, !cfg.record_ground_truth);
  for (;;) {
    bool all_done = true;
    for (unsigned ch = 0; ch < o.channels; ++ch) {
      std::size_t nb = 0, nt = 0;
      if (!bus_done[ch]) {
        auto r = s.bus(ch).read(bus);
        if (!r.ok()) return app::fail(verb, r.error());
        nb = *r;
        bus_done[ch] = nb == 0;
      }
      if (!truth_done[ch]) {
        auto r = s.read_issued(ch, truth);
        if (!r.ok()) return app::fail(verb, r.error());
        nt = *r;
        truth_done[ch] = nt == 0;
        if (truth_csv)
          for (std::size_t i = 0; i < nt; ++i) {
            const sim::IssuedAccess& a = truth[i];
            std::fprintf(truth_csv.get(), "%llu,%u,0x%llx,%d,%d,%llu\n", static_cast<unsigned long long>(a.cycle),
                         static_cast<unsigned>(a.channel), static_cast<unsigned long long>(a.address), a.write ? 1 : 0,
                         a.config_space ? 1 : 0, static_cast<unsigned long long>(a.request));
          }
      }
      if (auto st = boards[ch]->consume(std::span(bus).first(nb), std::span(truth).first(nt)); !st.ok())
        return app::fail(verb, st.error());
      if (auto st = drain(ch); !st.ok()) return app::fail(verb, st.error());
      all_done = all_done && bus_done[ch] && truth_done[ch];
    }
    progress.update(s.stats().requests, std::to_string(s.stats().commands) + " commands");
    if (all_done) break;
  }
  progress.finish();
  if (auto st = s.run_to_end(); !st.ok()) return app::fail(verb, st.error());  // final timing check
  if (truth_csv && (std::fflush(truth_csv.get()) != 0 || std::ferror(truth_csv.get())))
    return app::fail(verb, make_error(o.ground_truth + ": write failed"));
  for (unsigned ch = 0; ch < o.channels; ++ch) {
    if (auto st = boards[ch]->finish(); !st.ok()) return app::fail(verb, st.error());
    if (auto st = drain(ch); !st.ok()) return app::fail(verb, st.error());
    for (auto& out : outputs[ch])
      if (auto st = out->close(); !st.ok()) return app::fail(verb, st.error());
  }

  const sim::ControllerStats st = s.stats();
  const std::string workload_name = o.replay.empty() ? o.workload : "replay " + o.replay;
  std::uint64_t records = 0, events = 0, dropped = 0, losses = 0, orphans = 0, reports = 0, reports_lost = 0;
  for (const auto& b : boards) {
    reports += b->reports;
    reports_lost += b->reports_lost;
    records += b->references;
    events += b->events;
    dropped += b->dropped;
    losses += b->loss_records;
    orphans += b->orphans;
  }
  const double avg_latency = st.requests ? static_cast<double>(st.latency_sum) / static_cast<double>(st.requests) : 0.0;
  if (o.json) {
    std::printf("{\"board\": \"%s\", \"standard\": \"%s\", \"map\": \"%s\", \"policy\": \"%s\", \"ranks\": %u, "
                "\"channels\": %u, \"workload\": \"%s\", \"requests\": %llu, \"bursts\": %llu, "
                "\"config_accesses\": %llu, \"commands\": %llu, \"cycles\": %llu, \"avg_latency_cycles\": %.2f, "
                "\"records\": %llu, \"events\": %llu, \"losses\": %llu, \"loss_records\": %llu, \"orphans\": %llu, "
                "\"reports\": %llu, \"reports_lost\": %llu, \"timing_checked\": %s, \"frames\": [",
                board_kind.c_str(), o.standard.c_str(), map->text().c_str(), o.policy.c_str(), o.ranks, o.channels,
                workload_name.c_str(), static_cast<unsigned long long>(st.requests),
                static_cast<unsigned long long>(st.bursts), static_cast<unsigned long long>(st.config_accesses),
                static_cast<unsigned long long>(st.commands), static_cast<unsigned long long>(st.cycles), avg_latency,
                static_cast<unsigned long long>(records), static_cast<unsigned long long>(events),
                static_cast<unsigned long long>(dropped), static_cast<unsigned long long>(losses),
                static_cast<unsigned long long>(orphans), static_cast<unsigned long long>(reports),
                static_cast<unsigned long long>(reports_lost), o.check ? "true" : "false");
    for (unsigned ch = 0; ch < o.channels; ++ch) {
      std::printf("%s[", ch ? ", " : "");
      for (unsigned l = 0; l < o.links; ++l)
        std::printf("%s%llu", l ? ", " : "", static_cast<unsigned long long>(outputs[ch][l]->frames));
      std::printf("]");
    }
    std::printf("], \"channel_commands\": [");
    for (unsigned ch = 0; ch < o.channels; ++ch) {
      const auto& c = st.channel[ch].commands;
      std::printf("%s{\"act\": %llu, \"rd\": %llu, \"wr\": %llu, \"pre\": %llu, \"prea\": %llu, \"ref\": %llu, "
                  "\"row_hits\": %llu}",
                  ch ? ", " : "", static_cast<unsigned long long>(c.activates), static_cast<unsigned long long>(c.reads),
                  static_cast<unsigned long long>(c.writes), static_cast<unsigned long long>(c.precharges),
                  static_cast<unsigned long long>(c.precharge_alls), static_cast<unsigned long long>(c.refreshes),
                  static_cast<unsigned long long>(c.row_hits));
    }
    std::printf("]}\n");
  } else {
    std::printf("controller: %s, %s, %s page, %u rank(s), %u channel(s), BL%u%s\n", o.standard.c_str(),
                map->text().c_str(), o.policy.c_str(), o.ranks, o.channels, o.burst_length,
                o.check ? ", timing checked" : "");
    std::printf("workload:   %s, %llu requests served, %llu bursts (%llu config space), avg latency %.1f cycles\n",
                workload_name.c_str(), static_cast<unsigned long long>(st.requests),
                static_cast<unsigned long long>(st.bursts), static_cast<unsigned long long>(st.config_accesses),
                avg_latency);
    for (unsigned ch = 0; ch < o.channels; ++ch) {
      const auto& c = st.channel[ch].commands;
      std::printf("channel %u:  ACT %llu  RD %llu  WR %llu  PRE %llu  PREA %llu  REF %llu  row hits %llu\n", ch,
                  static_cast<unsigned long long>(c.activates), static_cast<unsigned long long>(c.reads),
                  static_cast<unsigned long long>(c.writes), static_cast<unsigned long long>(c.precharges),
                  static_cast<unsigned long long>(c.precharge_alls), static_cast<unsigned long long>(c.refreshes),
                  static_cast<unsigned long long>(c.row_hits));
    }
    std::printf("cycles:     %llu (%.3f ms of DDR time)\n", static_cast<unsigned long long>(st.cycles),
                static_cast<double>(st.cycles) * timing->tck_ps * 1e-9);
    std::printf("board:      %s%s: %llu reference records, %llu events, %llu dropped, %llu LOSS records, %llu orphans\n",
                board_kind.c_str(), no_board ? " (NOT a board model)" : "", static_cast<unsigned long long>(records),
                static_cast<unsigned long long>(events), static_cast<unsigned long long>(dropped),
                static_cast<unsigned long long>(losses), static_cast<unsigned long long>(orphans));
    if (units)
      std::printf("units:      SU every %u cycles, RDHPU every %u cycles (0: off), K %u: %llu reports, %llu lost\n",
                  o.su_interval, o.rdhpu_interval, o.hot_k, static_cast<unsigned long long>(reports),
                  static_cast<unsigned long long>(reports_lost));
    for (unsigned ch = 0; ch < o.channels; ++ch)
      for (unsigned l = 0; l < o.links; ++l) {
        const auto& out = outputs[ch][l];
        std::printf("link b%u/l%u: %llu frames%s%s%s\n", ch, l, static_cast<unsigned long long>(out->frames),
                    out->path().empty() ? "" : " -> ", out->path().c_str(),
                    o.udp_port ? (" -> udp 127.0.0.1:" + std::to_string(o.udp_port + 4 * ch + l)).c_str() : "");
      }
  }
  return app::kExitOk;
}

}  // namespace

void setup_sim(CLI::App& app, int& exit_code) {
  auto opts = std::make_shared<SimOptions>();
  CLI::App* sub = app.add_subcommand(
      "sim", "Run a workload through the memory-controller model (SystemC) and a board per channel; write the links' "
             "frames to pcap files or send them as UDP");
  sub->add_option("--standard", opts->standard, "DDR standard: ddr-200, ddr2-400, ddr2-800")->capture_default_str();
  sub->add_option("--map", opts->map, "address map: open-page, interleaved, or a map text (row:14,bank:3,...)")
      ->capture_default_str();
  sub->add_option("--policy", opts->policy, "page policy: open (FR-FCFS) or close (auto-precharge)")
      ->capture_default_str();
  sub->add_option("--ranks", opts->ranks, "ranks per channel (1 or 2)")->capture_default_str();
  sub->add_option("--channels", opts->channels, "channels, one board each (1 or 2)")->capture_default_str();
  sub->add_option("--burst-length", opts->burst_length, "burst length BL (4 or 8)")->capture_default_str();
  sub->add_option("--queue-depth", opts->queue_depth, "controller queue depth in bursts per channel")
      ->capture_default_str();
  sub->add_option("--workload", opts->workload,
                  "seq-read, seq-write, read-after-write, random-read, appendix-a (all four x 64 B..4 KB), bursty")
      ->capture_default_str();
  sub->add_option("--replay", opts->replay,
                  "replay a trace file (any format hmtt import reads) or an hmtt store instead of a workload");
  sub->add_option("--cycles-per-tick", opts->cycles_per_tick, "replay: DDR cycles per trace tick, N or N/D")
      ->capture_default_str();
  sub->add_flag("--replay-config-space", opts->replay_config_space,
                "replay: the trace's config-space accesses are its own I-Codes (passed to the board as they are; "
                "data addresses are not folded below the config space)");
  sub->add_option("--config-base", opts->config_base,
                  "base address of the 8 MiB config space (default: the top 8 MiB of the address map)");
  sub->add_option("-n,--requests", opts->requests, "data requests to issue (the workload's length)")
      ->capture_default_str();
  sub->add_option("--unit", opts->unit, "request size in bytes for the single micro-benchmarks (64..4096)")
      ->capture_default_str();
  sub->add_option("--seed", opts->seed, "random seed")->capture_default_str();
  sub->add_option("--gap", opts->gap, "cycles between requests (0: as fast as the controller takes them)")
      ->capture_default_str();
  sub->add_option("--on", opts->on_cycles, "bursty: cycles of a burst phase")->capture_default_str();
  sub->add_option("--off", opts->off_cycles, "bursty: cycles of a silent phase")->capture_default_str();
  sub->add_option("--events-every", opts->events_every, "a config-space user event every N requests (0: none)")
      ->capture_default_str();
  sub->add_flag("--no-begin-end", opts->no_begin_end, "no BEGIN/END TRACING config-space accesses");
  sub->add_option("--links", opts->links, "links per board (1..4)")->capture_default_str();
  sub->add_option("--link-mbps", opts->link_mbps, "bandwidth of each link in Mb/s (0: unlimited); low values overflow "
                                                  "the board's FIFO")
      ->capture_default_str();
  sub->add_option("--fifo", opts->fifo, "board TX FIFO entries")->capture_default_str();
  sub->add_option("--su-interval", opts->su_interval,
                  "Statistic Unit: a report (commands, row-buffer hits, ACTIVEs per bank, address-bit toggles) every "
                  "CYCLES board cycles (0: the unit is off)")
      ->capture_default_str();
  sub->add_option("--rdhpu-interval", opts->rdhpu_interval,
                  "RDHPU: a report (reuse-distance histogram of 4 KiB pages, hot pages) every CYCLES board cycles "
                  "(0: the unit is off)")
      ->capture_default_str();
  sub->add_option("--hot-k", opts->hot_k, "RDHPU: hot-page table entries per report (1..64)")->capture_default_str();
  sub->add_option("-o,--output", opts->out_prefix, "write PREFIX-b<board>-l<link>.pcap per link");
  sub->add_option("--ground-truth", opts->ground_truth,
                  "write every READ/WRITE the controller issued to a CSV file (cycle,channel,address,write,config_space,request)");
  sub->add_option("--udp", opts->udp_port, "send frames as UDP to 127.0.0.1, port PORT + 4*board + link");
  sub->add_option("--udp-mbps", opts->udp_mbps, "pace each link's UDP datagrams to this rate in Mb/s (0: unpaced)")
      ->capture_default_str();
  sub->add_flag("--rtl", opts->rtl, "use the Verilated RTL board instead of the C++ model");
  sub->add_flag("--check", opts->check, "check every command against DDR timing with the independent checker");
  sub->add_flag("--ground-truth-frames", opts->ground_truth_frames,
                "encode frames from the controller's ground truth instead of running a board (not a board model)");
  sub->add_flag("--json", opts->json, "print the summary as JSON");
  sub->callback([opts, &exit_code] { exit_code = run_sim(*opts); });
}
