#include "hmtt/cosim/cosim.h"

#include <algorithm>
#include <ctime>
#include <deque>
#include <vector>

#include "hmtt/cosim/rtl_board.h"

namespace hmtt::cosim {

namespace {

struct Item {
  std::uint64_t time = 0;
  std::uint64_t value = 0;  // byte address or event index
  bool write = false;
  bool event = false;
};

// Thread CPU time: the machine may be shared, wall time would count other processes' turns.
double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
double seconds_since(double t0) { return cpu_now() - t0; }

}  // namespace

bool CosimScore::perfect() const {
  return wrong_address == 0 && wrong_rw == 0 && wrong_event == 0 && unmatched == 0 &&
         missing == lost_by_loss && (!rtl_ran || (rtl_mismatched_frames == 0 && !rtl_overrun));
}

std::string CosimScore::summary() const {
  std::string s = "issued RD/WR " + std::to_string(issued_rw) + ", refs " + std::to_string(refs) + "/" +
                  std::to_string(expected_refs) + ", events " + std::to_string(events) + "/" +
                  std::to_string(expected_events) + ", wrong addr " + std::to_string(wrong_address) +
                  ", wrong r/w " + std::to_string(wrong_rw) + ", wrong events " + std::to_string(wrong_event) +
                  ", unmatched " + std::to_string(unmatched) + ", missing " + std::to_string(missing) +
                  ", LOSS total " + std::to_string(lost_by_loss) + ", frames " + std::to_string(frames);
  if (rtl_ran)
    s += ", RTL frames " + std::to_string(rtl_frames) + " (" + std::to_string(rtl_mismatched_frames) +
         " differ" + (rtl_overrun ? ", OVERRUN" : "") + ")";
  return s;
}

RtlSettings rtl_settings(const board::BoardConfig& config) {
  RtlSettings s;
  s.channel = static_cast<std::uint8_t>(config.channel);
  s.board_id = config.encoder.board;
  s.cfg_base = static_cast<std::uint32_t>(config.config_base);
  s.cfg_size = static_cast<std::uint32_t>(config.config_size);
  s.trace_on_reset = config.trace_on_reset;
  s.links = config.encoder.links;
  s.records_per_frame = config.encoder.records_per_frame;
  s.rate_q16 = config.rate_q16;
  s.clock_khz = config.encoder.clock_khz;
  s.host_mac = config.addressing.host_mac;
  s.host_ip = config.addressing.host_ip;
  s.base_port = config.addressing.base_port;
  s.su_interval = config.units.su_interval;
  s.rdhpu_interval = config.units.rdhpu_interval;
  return s;
}

Result<CosimScore> run_cosim(const board::BoardConfig& config, std::span<const sim::BusCycle> bus,
                             std::span<const sim::IssuedAccess> issued, bool with_rtl) {
  CosimScore sc;
  sc.bus_commands = bus.size();
  // --- the C++ model ---
  double t0 = cpu_now();
  auto mr = board::BoardModel::create(config);
  if (!mr) return mr.error();
  board::BoardModel& model = *mr;
  HMTT_TRY(model.consume(bus));
  HMTT_TRY(model.finish());
  std::vector<wire::EncodedFrame> frames;
  while (model.has_frame()) frames.push_back(model.pop_frame());
  sc.model_seconds = seconds_since(t0);
  sc.model = model.counters();
  sc.frames = frames.size();
  sc.cycles = bus.empty() ? 0 : bus.back().cycle + 1;

  // --- the RTL ---
  if (with_rtl) {
    const bool units = config.units.any();
    if (units && config.units.rdhpu_interval != 0 && config.units.hot_k != kRtlHotK)
      return make_error("cosim: the RTL board's RDHPU is built with " + std::to_string(kRtlHotK) + " hot pages, not " +
                        std::to_string(config.units.hot_k));
    auto rb = make_rtl_board(config.map.text(), units);
    if (!rb) return rb.error();
    RtlBoard& rtl = **rb;
    const RtlSettings s = rtl_settings(config);
    if (config.fifo_depth != board::kDefaultFifoDepth || config.burst_bytes != 1472)
      return make_error("cosim: the RTL board is built with FIFO depth 16384 and burst 1472 bytes");
    t0 = cpu_now();
    rtl.reset(s);
    for (const auto& bc : bus) {
      if (bc.cycle > rtl.now()) rtl.idle(bc.cycle - rtl.now());
      rtl.cycle(bc.pins);
    }
    if (units) {
      // The flush rises when the last command's inputs have reached the units, in the cycle the model's
      // finish() starts ending their intervals: the last command + 3 (+ the RDHPU stack's 128).
      const std::uint64_t last = bus.empty() ? 0 : bus.back().cycle;
      const std::uint64_t end = last + 3 + (config.units.rdhpu_interval != 0 ? board::kBoardRdhpuDepth : 0);
      if (end > rtl.now()) rtl.idle(end - rtl.now());
    } else {
      rtl.idle(8);
    }
    rtl.set_flush(true);
    std::uint64_t guard = 0;
    while (!rtl.drained()) {
      rtl.idle(64);
      if (rtl.counters().overrun)
        return make_error("cosim: RTL link buffer overrun at cycle " + std::to_string(rtl.now()) +
                          ": the rate " + std::to_string(config.rate_q16) + "/65536 bytes/cycle exceeds what " +
                          std::to_string(config.encoder.links) + " link(s) carry at 1 byte/cycle");
      if (++guard > 200000) return make_error("cosim: the RTL board did not drain after the flush");
    }
    rtl.idle(64);
    sc.rtl_seconds = seconds_since(t0);
    sc.cycles = rtl.now();
    const RtlCounters rc = rtl.counters();
    sc.rtl_overrun = rc.overrun;
    sc.rtl_bytes = rtl.bytes;
    sc.rtl_ran = true;
    // Per link, in order: RTL packet == model packet.
    std::array<std::deque<std::vector<std::uint8_t>>, 4> want;
    for (const auto& f : frames) want[f.link].push_back(model.packet(f));
    for (unsigned l = 0; l < 4; ++l) {
      sc.rtl_frames += rtl.packets[l].size();
      const std::size_t n = std::max(want[l].size(), rtl.packets[l].size());
      for (std::size_t i = 0; i < n; ++i) {
        if (i >= want[l].size() || i >= rtl.packets[l].size() || want[l][i] != rtl.packets[l][i])
          ++sc.rtl_mismatched_frames;
      }
    }
    const auto& mc = sc.model;
    if (rc.commands != mc.commands || rc.references != mc.references || rc.events != mc.events ||
        rc.orphans != mc.orphans || rc.dropped != mc.dropped || rc.loss_records != mc.loss_records ||
        rc.frames != mc.frames || rc.high_water != mc.fifo_high_water || rc.reports != mc.reports ||
        rc.reports_lost != mc.reports_lost)
      ++sc.rtl_mismatched_frames;  // counters disagree: count as a mismatch
  }

  // --- the ground truth: what the board should report ---
  std::vector<Item> expect;
  std::uint8_t trace = 0;
  for (const auto& ia : issued) {
    ++sc.issued_rw;
    const bool in_cfg = ia.address >= config.config_base && ia.address - config.config_base < config.config_size;
    if (in_cfg) {
      const std::uint64_t index = (ia.address - config.config_base) >> 6;
      expect.push_back(Item{ia.cycle, index & wire::kEventIndexMask, ia.write, true});
      ++sc.expected_events;
      if (index == wire::kBeginTracing) trace = 1;
      if (index == wire::kEndTracing) trace = 2;
      continue;
    }
    const bool tracing = trace == 0 ? config.trace_on_reset : trace == 1;
    if (!tracing) continue;
    const unsigned ls = config.encoder.line_shift;
    expect.push_back(Item{ia.cycle, (ia.address >> ls) << ls, ia.write, false});
    ++sc.expected_refs;
  }

  // --- decode the frames in board order and match ---
  std::vector<Item> got;
  wire::DecodedFrame df;
  std::uint64_t prev = 0;  // the previous record
  for (const auto& f : frames) {
    HMTT_TRY(wire::decode_frame(f.bytes, df));
    const std::size_t first = got.size();
    for (const auto& r : df.refs) got.push_back(Item{r.time, r.address, r.kind == Kind::Write, false});
    for (const auto& e : df.events) got.push_back(Item{e.time, e.index, e.write, true});
    std::stable_sort(got.begin() + static_cast<std::ptrdiff_t>(first), got.end(),
                     [](const Item& a, const Item& b) { return a.time < b.time; });
    for (const auto& l : df.losses) sc.lost_by_loss += l.count;
    sc.reports += df.reports.size();
    // A LOSS record right before a REPORT (in board order, across a frame close): the report item took
    // the drop count (it entered a FIFO that had just been full).
    for (std::size_t off = wire::kHeaderBytes; off + wire::kRecordBytes + wire::kCrcBytes <= f.bytes.size();
         off += wire::kRecordBytes) {
      const std::uint64_t r = wire::get_record(f.bytes.data() + off);
      if ((r >> 36) == 0xB && (prev >> 36) == 0xA) ++sc.reports_after_loss;
      prev = r;
    }
  }
  std::size_t j = 0;
  for (const auto& g : got) {
    (g.event ? sc.events : sc.refs)++;
    while (j < expect.size() && expect[j].time < g.time) {
      ++sc.missing;
      ++j;
    }
    if (j == expect.size() || expect[j].time != g.time || expect[j].event != g.event) {
      ++sc.unmatched;
      continue;
    }
    const Item& e = expect[j++];
    if (g.event) {
      if (e.value != g.value || e.write != g.write) ++sc.wrong_event;
    } else {
      if (e.value != g.value) ++sc.wrong_address;
      if (e.write != g.write) ++sc.wrong_rw;
    }
  }
  sc.missing += expect.size() - j;
  return sc;
}

}  // namespace hmtt::cosim
