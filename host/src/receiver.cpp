#include "hmtt/host/receiver.h"

#include <algorithm>

#include "hmtt/host/frame_decoder.h"

namespace hmtt::host {

namespace {
constexpr std::size_t kBadSamples = 8;
constexpr std::size_t kSideFlush = 4096;
}  // namespace

store::LinkStats LinkCounters::to_store() const {
  store::LinkStats s;
  s.board = board;
  s.link = link;
  s.frames = frames;
  s.records = records;
  s.gap_frames = gap_frames;
  s.late_frames = late_frames;
  s.duplicate_frames = duplicate_frames;
  s.bad_frames = bad_frames;
  s.fifo_lost_records = fifo_lost_records;
  return s;
}

Receiver::Receiver(CaptureSink& sink, const ReceiverOptions& options)
    : sink_(sink), options_(options), merger_(options.horizon_refs), port_stream_(65536, -1) {}

Receiver::~Receiver() = default;

void Receiver::expect_ports(std::span<const std::uint16_t> ports, std::uint64_t) {
  expected_unseen_.assign(ports.begin(), ports.end());
  start_ns_ = 0;  // the wait for the other links starts with the first frame
}

void Receiver::expect_file_streams(std::span<const std::uint16_t> streams) {
  file_streams_known_ = true;
  file_streams_unseen_.assign(streams.begin(), streams.end());
}

Receiver::StreamState& Receiver::stream(std::uint32_t board, std::uint32_t link) {
  const std::uint16_t id = LinkMerger::stream_id(board, link);
  if (id >= streams_.size()) streams_.resize(id + 1u);
  StreamState& s = streams_[id];
  if (!s.known) {
    s.known = true;
    s.counters.board = board;
    s.counters.link = link;
  }
  return s;
}

void Receiver::count_bad(std::uint16_t port, std::span<const std::uint8_t> bytes, const std::string& reason) {
  ++totals_.bad_frames;
  if (bad_samples_.size() < kBadSamples) bad_samples_.push_back("port " + std::to_string(port) + ": " + reason);
  // Which link: the one this port carried before, else the default addressing, else the header.
  std::int32_t id = port_stream_[port];
  if (id >= 0) {
    ++streams_[static_cast<std::size_t>(id)].counters.bad_frames;
    return;
  }
  if (options_.ports.contains(port)) {
    ++stream(options_.ports.board_of(port), options_.ports.link_of(port)).counters.bad_frames;
    return;
  }
  auto h = wire::parse_header(bytes);
  if (h) {
    ++stream(h->board, h->link).counters.bad_frames;
    return;
  }
  ++totals_.unattributed_bad_frames;
}

void Receiver::side_items(const wire::DecodedFrame& f) {
  const std::uint32_t board = f.header.board, link = f.header.link;
  for (const auto& e : f.events) {
    store::Event ev;
    ev.time = e.time;
    ev.type = store::EventType::ConfigSpace;
    ev.board = board;
    ev.link = link;
    ev.value = e.index;
    ev.write = e.write;
    events_.push_back(std::move(ev));
  }
  for (const auto& l : f.losses) {
    store::Event ev;
    ev.time = l.time;
    ev.type = store::EventType::FifoLoss;
    ev.board = board;
    ev.link = link;
    ev.value = l.count;
    ev.note = "board TX FIFO dropped " + std::to_string(l.count) + " records";
    events_.push_back(std::move(ev));
  }
  for (const auto& r : f.reports) {
    store::Report rep;
    rep.time = r.time;
    rep.board = board;
    rep.unit = r.unit;
    rep.interval = r.interval;
    rep.values = r.values;
    reports_.push_back(std::move(rep));
  }
}

Status Receiver::accept(const FrameBatch& batch, std::uint64_t now_ns) {
  for (const RawFrame& raw : batch.frames) {
    const auto bytes = batch.payload(raw);
    if (raw.rejected) {
      count_bad(raw.port, bytes, raw.reason);
      continue;
    }
    // Decoded into the spare frame, which only the merge consumes: a frame dropped here keeps
    // its room for the next one.
    if (!spare_) spare_ = merger_.take_frame();
    PendingFrame* pf = spare_.get();
    Status s = decode_link_frame(bytes, pf->frame, pf->room, pf->count, raw.crc_ok);
    if (!s.ok()) {
      count_bad(raw.port, bytes, s.error().message);
      continue;
    }
    const wire::FrameHeader& h = pf->frame.header;
    const std::uint16_t id = LinkMerger::stream_id(h.board, h.link);
    StreamState& st = stream(h.board, h.link);
    LinkCounters& c = st.counters;
    port_stream_[raw.port] = id;
    if (start_ns_ == 0) start_ns_ = now_ns;
    if (clock_khz_ == 0) clock_khz_ = h.clock_khz;
    c.port = raw.port;
    if (!expected_unseen_.empty())
      std::erase(expected_unseen_, raw.port);
    if (!file_streams_unseen_.empty()) std::erase(file_streams_unseen_, id);
    st.last_arrival_ns = now_ns;
    const SequenceVerdict v = st.tracker.observe(h.sequence, h.base_time, pf->ext, st.watermark, now_ns);
    if (v == SequenceVerdict::Duplicate) {
      ++c.duplicate_frames;
      continue;
    }
    const bool late = v == SequenceVerdict::Late || v == SequenceVerdict::Stale;
    if (late) ++c.late_frames;
    // Side records are stored whatever happens to the references.
    c.fifo_loss_markers += pf->frame.losses.size();
    for (const auto& l : pf->frame.losses) c.fifo_lost_records += l.count;
    totals_.fifo_loss_markers += pf->frame.losses.size();
    for (const auto& l : pf->frame.losses) totals_.fifo_lost_records += l.count;
    c.events += pf->frame.events.size();
    c.reports += pf->frame.reports.size();
    c.last_time = std::max(c.last_time, pf->frame.end_time);
    if (v == SequenceVerdict::Stale || merger_.too_late(*pf)) {
      ++c.too_late_frames;
      c.too_late_refs += pf->count;
      totals_.too_late_refs += pf->count;
      if (v != SequenceVerdict::Late && v != SequenceVerdict::Stale) st.tracker.mark_lost(pf->ext, h.base_time);
      side_items(pf->frame);
      continue;
    }
    if (v == SequenceVerdict::Late) st.tracker.fill(pf->ext);
    ++c.frames;
    c.records += h.count;
    c.references += pf->count;
    ++totals_.frames;
    totals_.bytes += bytes.size();
    st.watermark = std::max(st.watermark, pf->frame.end_time);
    merger_.push(id, std::move(spare_));
  }
  HMTT_TRY(merger_.release(watermark(now_ns), *this));
  HMTT_TRY(finalize_gaps(false));
  if (events_.size() >= kSideFlush || reports_.size() >= kSideFlush) HMTT_TRY(flush_side());
  return Status::success();
}

std::uint64_t Receiver::watermark(std::uint64_t now_ns) const {
  if (!options_.live) {
    // Files: arrival order is final. Until the merge has held a horizon's worth, only the horizon
    // and the end release (a link may show up late in the file). From then on the links seen so
    // far are taken as the file's, and what is earlier than every one of them can still deliver
    // leaves at once, as in a live capture (each link's latest end_time, held below its open
    // sequence gaps, which only a reordered frame can fill): the held references are then a few
    // frames old instead of a horizon (96 MiB) old, and their copy into the sink no longer waits on
    // memory. A link first seen later is merged as before when its references are not behind the
    // frontier, and counted too late when they are.
    // Read ahead (expect_file_streams): once every stream of the first horizon has a frame, the
    // hold ends; no other link can first appear before the horizon.
    const bool all_seen = file_streams_known_ && file_streams_unseen_.empty();
    if (!merger_.reached_horizon() && !all_seen) return 0;
    std::uint64_t w = UINT64_MAX;
    bool any = false;
    for (const auto& s : streams_) {
      // A link known only from bad frames (no decoded frame yet) holds nothing. Every known link
      // has a watermark here, so nothing is released beyond what some link has passed.
      if (!s.known || s.counters.frames + s.counters.too_late_frames + s.counters.duplicate_frames == 0) continue;
      any = true;
      w = std::min({w, s.watermark, s.tracker.hold(0)});
    }
    return any ? w : 0;
  }
  const bool starting = now_ns - start_ns_ < options_.idle_ns;
  if (!expected_unseen_.empty() && starting) return 0;
  std::uint64_t w = UINT64_MAX;
  for (const auto& s : streams_) {
    if (!s.known || s.last_arrival_ns == 0) continue;
    if (now_ns - s.last_arrival_ns >= options_.idle_ns) continue;  // idle: no longer holds the merge
    w = std::min(w, s.watermark);
    // A gap opened recently may still be filled by a reordered frame: hold below it.
    const std::uint64_t since = now_ns > options_.reorder_ns ? now_ns - options_.reorder_ns : 0;
    w = std::min(w, s.tracker.hold(since));
  }
  return w;
}

Status Receiver::on_references(std::span<const Reference> refs) {
  totals_.references_out += refs.size();
  return sink_.write(refs);
}

Status Receiver::on_frame_done(const PendingFrame& frame) {
  side_items(frame.frame);
  return Status::success();
}

Status Receiver::finalize_gaps(bool all) {
  const std::uint64_t frontier = merger_.frontier();
  for (auto& s : streams_) {
    if (!s.known) continue;
    for (const SequenceGap& g : s.tracker.finalize(frontier, all)) {
      s.counters.gap_frames += g.count;
      totals_.gap_frames += g.count;
      store::Event ev;
      ev.time = g.time;
      ev.type = store::EventType::SequenceGap;
      ev.board = s.counters.board;
      ev.link = s.counters.link;
      ev.value = g.count;
      const std::uint32_t last = static_cast<std::uint32_t>(g.first + g.count - 1);
      ev.note = g.count > 1 ? "frames " + std::to_string(g.first_seq()) + "-" + std::to_string(last) + " missing on the link"
                            : "frame " + std::to_string(g.first_seq()) + " missing on the link";
      events_.push_back(std::move(ev));
    }
  }
  return Status::success();
}

Status Receiver::flush_side() {
  if (!events_.empty()) {
    std::stable_sort(events_.begin(), events_.end(),
                     [](const store::Event& a, const store::Event& b) { return a.time < b.time; });
    HMTT_TRY(sink_.add_events(events_));
    events_.clear();
  }
  if (!reports_.empty()) {
    HMTT_TRY(sink_.add_reports(reports_));
    reports_.clear();
  }
  return Status::success();
}

Status Receiver::tick(std::uint64_t now_ns) {
  HMTT_TRY(merger_.release(watermark(now_ns), *this));
  HMTT_TRY(finalize_gaps(false));
  HMTT_TRY(flush_side());
  std::vector<store::LinkStats> stats;
  for (const auto& l : links()) stats.push_back(l.to_store());
  if (!stats.empty()) HMTT_TRY(sink_.set_link_stats(stats));
  return Status::success();
}

Status Receiver::finish() {
  if (finished_) return Status::success();
  finished_ = true;
  HMTT_TRY(merger_.release_all(*this));
  HMTT_TRY(finalize_gaps(true));
  HMTT_TRY(flush_side());
  std::vector<store::LinkStats> stats;
  for (const auto& l : links()) stats.push_back(l.to_store());
  if (!stats.empty()) HMTT_TRY(sink_.set_link_stats(stats));
  return sink_.finish();
}

std::vector<LinkCounters> Receiver::links() const {
  std::vector<LinkCounters> out;
  for (const auto& s : streams_) {
    if (!s.known) continue;
    LinkCounters c = s.counters;
    c.wraps = s.tracker.wraps();
    c.open_gap_frames = s.tracker.open_missing();
    out.push_back(c);
  }
  return out;
}

}  // namespace hmtt::host
