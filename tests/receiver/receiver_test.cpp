// The receiver against generated link traffic with known answers: the merged
// references must be exactly the original minus what was dropped, and the
// counters must say exactly what was dropped (docs/receiver.md).
#include <doctest/doctest.h>

#include <random>
#include <set>

#include "frame_streams.h"
#include "hmtt/host/checksums.h"
#include "hmtt/host/frame_decoder.h"
#include "hmtt/host/receiver.h"

using namespace hmtt;
using namespace hmtt::host;
using hmtt::test::WireFrame;

namespace {

struct Run {
  MemoryCaptureSink sink;
  std::vector<LinkCounters> links;
  ReceiverTotals totals;
  std::vector<std::string> bad;
};

// Feeds `frames` in order, `per_batch` at a time; live mode advances a fake clock 1 ms per batch.
// `file_streams`: a file read ahead (Receiver::expect_file_streams), these its streams.
void receive(const std::vector<WireFrame>& frames, Run& run, ReceiverOptions o = {}, std::size_t per_batch = 7,
             const std::vector<std::uint16_t>* file_streams = nullptr) {
  Receiver rx(run.sink, o);
  if (file_streams) rx.expect_file_streams(*file_streams);
  if (o.live) {  // every link is expected from the start, as the UDP ports of a live capture
    std::set<std::uint16_t> ports;
    for (const auto& f : frames) ports.insert(f.port());
    const std::vector<std::uint16_t> list(ports.begin(), ports.end());
    rx.expect_ports(list, 1);
  }
  FrameBatch batch;
  std::uint64_t now = 1;
  for (std::size_t i = 0; i < frames.size(); i += per_batch) {
    test::to_batch(frames, i, std::min(frames.size(), i + per_batch), batch);
    REQUIRE(rx.accept(batch, now).ok());
    now += 1'000'000;
    if (i % 70 == 0) REQUIRE(rx.tick(now).ok());
  }
  REQUIRE(rx.finish().ok());
  run.links = rx.links();
  run.totals = rx.totals();
  run.bad = rx.bad_samples();
}

const LinkCounters* find(const Run& r, std::uint32_t board, std::uint32_t link) {
  for (const auto& l : r.links)
    if (l.board == board && l.link == link) return &l;
  return nullptr;
}

std::vector<const WireFrame*> pointers(const std::vector<WireFrame>& v) {
  std::vector<const WireFrame*> p;
  for (const auto& f : v) p.push_back(&f);
  return p;
}

std::uint64_t sum_events(const Run& r, store::EventType type) {
  std::uint64_t n = 0;
  for (const auto& e : r.sink.events())
    if (e.type == type) n += e.value;
  return n;
}

}  // namespace

TEST_CASE("the receiver's frame decoder accepts and rejects exactly what the codec does") {
  auto t = test::make_traffic(1, 2, 20000, 5, [] {
    SyntheticConfig c;
    c.long_gap_rate = 0.05;
    c.event_rate = 0.02;
    c.loss_rate = 0.02;
    c.report_rate = 0.02;
    c.records_per_frame = 40;
    return c;
  }());
  std::mt19937_64 rng(9);
  wire::DecodedFrame a, b, side;
  std::vector<Reference> room(wire::kMaxRecords);
  std::size_t in_room = 0;
  std::size_t accepted = 0, rejected = 0;
  for (std::size_t i = 0; i < t.frames.size(); ++i) {
    auto bytes = t.frames[i].bytes;
    if (i % 2) {  // mutate, then re-seal the CRC half of the time so the record checks run
      const std::size_t n = 1 + rng() % 3;
      for (std::size_t k = 0; k < n; ++k) bytes[rng() % bytes.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      if (rng() % 2) host::set_sequence(bytes, static_cast<std::uint32_t>(bytes[12]) << 24 | bytes[15]);
    }
    const Status s1 = wire::decode_frame(bytes, a);
    const Status s2 = decode_link_frame(bytes, b);
    // The receiver's way: the references into a room (left holding the last frame's, as a pooled
    // frame's is), the rest into a frame.
    const Status s3 = decode_link_frame(bytes, side, room, in_room);
    REQUIRE(s1.ok() == s2.ok());
    REQUIRE(s1.ok() == s3.ok());
    CHECK(side.refs.empty());
    // With the CRC taken beforehand (as FrameBatch::add does on the reader thread): the same answer
    // and the same message, whether the CRC was found good or bad.
    {
      const bool crc = host::frame_crc_ok(bytes);
      host::FrameBatch batch;
      batch.add(bytes, 7400, 1);
      CHECK(batch.frames.back().crc_ok == crc);
      wire::DecodedFrame side4;
      std::vector<Reference> room4(wire::kMaxRecords);
      std::size_t in_room4 = 0;
      const Status s4 = decode_link_frame(bytes, side4, room4, in_room4, crc);
      REQUIRE(s4.ok() == s1.ok());
      if (s1.ok()) {
        CHECK(crc);
        REQUIRE(in_room4 == a.refs.size());
        CHECK(std::equal(a.refs.begin(), a.refs.end(), room4.begin()));
        CHECK(side4.events == a.events);
        CHECK(side4.end_time == a.end_time);
      } else {
        CHECK(s4.error().message == s1.error().message);
        CHECK(in_room4 == 0);
      }
    }
    if (s1.ok()) {
      ++accepted;
      CHECK(a.header == b.header);
      CHECK(a.refs == b.refs);
      CHECK(a.events == b.events);
      CHECK(a.losses == b.losses);
      CHECK(a.reports == b.reports);
      CHECK(a.end_time == b.end_time);
      CHECK(side.header == a.header);
      REQUIRE(in_room == a.refs.size());
      CHECK(std::equal(a.refs.begin(), a.refs.end(), room.begin()));
      CHECK(side.events == a.events);
      CHECK(side.losses == a.losses);
      CHECK(side.reports == a.reports);
      CHECK(side.end_time == a.end_time);
    } else {
      ++rejected;
      CHECK(s1.error().message == s2.error().message);
      CHECK(s1.error().message == s3.error().message);
      CHECK(in_room == 0);
    }
  }
  CHECK(accepted > 100);
  CHECK(rejected > 100);
}

// Full frames of references with a control record (or none) anywhere, every address width and
// line size, and base times near 2^64: the receiver's decoder (eight records a step where the CPU
// has AVX-512, the rest one by one) gives the codec's references, times and verdicts.
TEST_CASE("the frame decoder's eight-record steps: every width, control records anywhere, times that wrap") {
  std::mt19937_64 rng(41);
  std::vector<std::uint8_t> bytes(wire::kMaxFrameBytes);
  wire::DecodedFrame a, side;
  std::vector<Reference> room(wire::kMaxRecords);
  std::size_t accepted = 0, wrapped = 0, with_control = 0;
  for (int round = 0; round < 3000; ++round) {
    wire::FrameHeader h;
    h.addr_bits = static_cast<std::uint8_t>(wire::kMinAddrBits + rng() % (wire::kMaxAddrBits - wire::kMinAddrBits + 1));
    h.line_shift = static_cast<std::uint8_t>(rng() % (wire::kMaxLineShift + 1));
    h.count = static_cast<std::uint16_t>(rng() % 4 == 0 ? rng() % (wire::kMaxRecords + 1) : wire::kMaxRecords);
    h.base_time = rng() % 3 == 0 ? ~std::uint64_t{0} - rng() % (std::uint64_t{1} << 16) : rng() >> 4;
    const unsigned dbits = wire::duration_bits(h.addr_bits);
    const std::size_t control_at = rng() % 2 == 0 ? rng() % (h.count + 1u) : h.count;  // == count: none
    const bool short_durations = rng() % 2 == 0;
    wire::write_header(h, bytes.data());
    std::uint8_t* p = bytes.data() + wire::kHeaderBytes;
    for (std::size_t i = 0; i < h.count; ++i, p += wire::kRecordBytes) {
      std::uint64_t rec;
      if (i == control_at) {
        // An OVERFLOW (times go on from it) or an EVENT, both valid where a reference is.
        rec = rng() % 2 ? wire::control_record(wire::Opcode::Overflow, rng() % 5000)
                        : wire::event_record(rng() % 4096, rng() % 2 == 0, static_cast<std::uint32_t>(rng() % 100));
      } else {
        const std::uint64_t dur = short_durations ? rng() % 64 : rng();
        rec = wire::reference_record(rng() % 2 == 0, rng(), dur, h.addr_bits);
      }
      wire::put_record(rec, p);
    }
    const std::size_t len = wire::kHeaderBytes + wire::kRecordBytes * h.count + wire::kCrcBytes;
    wire::store_be32(wire::crc32({bytes.data(), len - wire::kCrcBytes}), bytes.data() + len - wire::kCrcBytes);
    const std::span<const std::uint8_t> frame(bytes.data(), len);
    CAPTURE(round);
    CAPTURE(dbits);
    const Status s1 = wire::decode_frame(frame, a);
    std::size_t in_room = 0;
    const Status s2 = decode_link_frame(frame, side, room, in_room);
    REQUIRE(s1.ok() == s2.ok());
    if (s1.ok()) {
      ++accepted;
      REQUIRE(in_room == a.refs.size());
      CHECK(std::equal(a.refs.begin(), a.refs.end(), room.begin()));
      CHECK(side.events == a.events);
      CHECK(side.end_time == a.end_time);
    } else {
      CHECK(s1.error().message == s2.error().message);
      wrapped += s1.error().message.find("time overflows") != std::string::npos;
    }
    with_control += control_at < h.count;
  }
  // Each kind of frame came up often enough to count.
  CHECK(accepted > 1000);
  CHECK(wrapped > 100);
  CHECK(with_control > 1000);
}

TEST_CASE("the frame decoder refuses a room smaller than a frame's most references") {
  auto t = test::make_traffic(1, 1, 2000, 3);
  REQUIRE(!t.frames.empty());
  std::vector<Reference> small(wire::kMaxRecords - 1);
  wire::DecodedFrame side;
  std::size_t n = 99;
  const Status s = decode_link_frame(t.frames[0].bytes, side, small, n);
  REQUIRE(!s.ok());
  CHECK(s.error().message.find("room for 287 references") != std::string::npos);
  CHECK(n == 0);
}

TEST_CASE("frames the receiver drops (bad, duplicate, too late) give their room to the next frame") {
  // The traffic's frames stay held (a file's merge holds until its horizon) and the spare frame
  // has one more room, all in the first block: 20,000 dropped frames must not take a room each
  // (they would take 67 blocks).
  auto t = test::make_traffic(1, 1, 3000, 21);
  REQUIRE(t.frames.size() > 10);
  MemoryCaptureSink sink;
  Receiver rx(sink, {});
  FrameBatch batch;
  std::uint64_t now = 1;
  test::to_batch(t.frames, 0, t.frames.size(), batch);
  REQUIRE(rx.accept(batch, now).ok());
  const std::size_t blocks = rx.room_blocks();
  CHECK(blocks == 1);
  for (int k = 0; k < 20000; ++k) {
    auto bytes = t.frames[static_cast<std::size_t>(k) % t.frames.size()].bytes;
    if (k % 2) bytes[bytes.size() - 1] ^= 1;  // a bad CRC; else a duplicate
    batch.clear();
    batch.add(bytes, t.frames[0].port(), ++now);
    REQUIRE(rx.accept(batch, now).ok());
  }
  CHECK(rx.room_blocks() == blocks);
  CHECK(rx.totals().bad_frames == 10000);
  std::uint64_t dup = 0;
  for (const auto& l : rx.links()) dup += l.duplicate_frames;
  CHECK(dup == 10000);
  REQUIRE(rx.finish().ok());
  CHECK(sink.references().size() == 3000);
}

TEST_CASE("clean traffic: the merge is the boards' ground truth, every counter zero") {
  auto t = test::make_traffic(2, 3, 30000, 1);
  Run r;
  receive(t.frames, r);
  // Ground truth from the generator itself, merged by (time, board).
  std::vector<test::Tagged> all;
  for (std::uint32_t b = 0; b < 2; ++b)
    for (const auto& ref : t.truth[b].refs) all.push_back({ref, b});
  std::stable_sort(all.begin(), all.end(), [](const test::Tagged& x, const test::Tagged& y) {
    return x.ref.time != y.ref.time ? x.ref.time < y.ref.time : x.board < y.board;
  });
  REQUIRE(r.sink.references().size() == all.size());
  for (std::size_t i = 0; i < all.size(); ++i) REQUIRE(r.sink.references()[i] == all[i].ref);
  CHECK(r.sink.finished());
  REQUIRE(r.links.size() == 6);
  std::uint64_t lost = 0, markers = 0, events = 0, reports = 0;
  for (const auto& tr : t.truth) {
    lost += tr.lost_records;
    markers += tr.loss_markers;
    events += tr.events.size();
    reports += tr.reports;
  }
  for (const auto& l : r.links) {
    CHECK(l.gap_frames == 0);
    CHECK(l.late_frames == 0);
    CHECK(l.duplicate_frames == 0);
    CHECK(l.bad_frames == 0);
    CHECK(l.too_late_frames == 0);
  }
  CHECK(r.totals.fifo_lost_records == lost);
  CHECK(r.totals.fifo_loss_markers == markers);
  CHECK(sum_events(r, store::EventType::FifoLoss) == lost);
  CHECK(r.sink.reports().size() == reports);
  std::uint64_t config_events = 0;
  for (const auto& e : r.sink.events()) config_events += e.type == store::EventType::ConfigSpace;
  CHECK(config_events == events);
  // Link statistics as stored.
  REQUIRE(r.sink.links().size() == 6);
  std::uint64_t frames = 0;
  for (const auto& s : r.sink.links()) frames += s.frames;
  CHECK(frames == t.frames.size());
}

namespace {

enum class Fault { None, Drop, Duplicate, Reorder, Truncate, Corrupt };

struct Injected {
  std::vector<WireFrame> arrival;
  std::vector<const WireFrame*> survivors;  // frames whose references must be in the merge
  std::map<std::pair<std::uint32_t, std::uint8_t>, std::map<Fault, std::uint64_t>> count;
  std::vector<WireFrame> storage;
};

// Applies faults to frames of `t` (never the first or last two frames of a link: a loss there
// leaves no trace in the sequence numbers).
Injected inject(const test::Traffic& t, std::uint64_t seed, double rate) {
  Injected in;
  std::mt19937_64 rng(seed);
  std::map<std::pair<std::uint32_t, std::uint8_t>, std::size_t> total, seen;
  for (const auto& f : t.frames) ++total[{f.board, f.link}];
  std::vector<Fault> fault(t.frames.size(), Fault::None);
  for (std::size_t i = 0; i < t.frames.size(); ++i) {
    const auto key = std::make_pair(t.frames[i].board, t.frames[i].link);
    const std::size_t k = seen[key]++;
    if (k < 1 || k + 3 >= total[key]) continue;
    if (std::uniform_real_distribution<double>(0, 1)(rng) >= rate) continue;
    fault[i] = static_cast<Fault>(1 + rng() % 5);
  }
  // A reordered frame moves past the next frame of its link, which must itself be clean.
  std::vector<std::size_t> order;
  std::vector<bool> placed(t.frames.size(), false);
  std::vector<std::pair<std::size_t, std::size_t>> after;  // (frame, insert after this frame)
  for (std::size_t i = 0; i < t.frames.size(); ++i) {
    if (fault[i] != Fault::Reorder) continue;
    std::size_t j = i + 1;
    while (j < t.frames.size() && !(t.frames[j].board == t.frames[i].board && t.frames[j].link == t.frames[i].link)) ++j;
    if (j >= t.frames.size() || fault[j] != Fault::None) {
      fault[i] = Fault::None;
      continue;
    }
    fault[j] = Fault::None;
    after.push_back({i, j});
  }
  std::map<std::size_t, std::vector<std::size_t>> insert_after;
  for (auto [i, j] : after) insert_after[j + rng() % 3].push_back(i);
  for (std::size_t i = 0; i < t.frames.size(); ++i) {
    const auto& f = t.frames[i];
    const auto key = std::make_pair(f.board, f.link);
    ++in.count[key][fault[i]];
    switch (fault[i]) {
      case Fault::None:
      case Fault::Duplicate:
        in.arrival.push_back(f);
        break;
      case Fault::Drop:
      case Fault::Reorder:
        break;
      case Fault::Truncate: {
        WireFrame g = f;
        g.bytes.resize(g.bytes.size() - 1 - rng() % (g.bytes.size() - 1));
        in.arrival.push_back(g);
        break;
      }
      case Fault::Corrupt: {
        WireFrame g = f;
        g.bytes[rng() % g.bytes.size()] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        in.arrival.push_back(g);
        break;
      }
    }
    if (fault[i] == Fault::Duplicate) in.storage.push_back(f);  // the copy arrives a little later
    if (fault[i] == Fault::Duplicate && i + 2 < t.frames.size()) insert_after[i + 2].push_back(i);
    for (std::size_t r : insert_after[i]) in.arrival.push_back(t.frames[r]);
    if (fault[i] == Fault::None || fault[i] == Fault::Duplicate || fault[i] == Fault::Reorder)
      in.survivors.push_back(&f);
  }
  return in;
}

void check_faults(const test::Traffic& t, const Injected& in, const Run& r) {
  const auto expect = test::expected_merge(in.survivors);
  REQUIRE(r.sink.references().size() == expect.size());
  CHECK(r.sink.references() == expect);
  std::uint64_t gaps = 0, bad = 0;
  for (const auto& [key, faults] : in.count) {
    const LinkCounters* l = find(r, key.first, key.second);
    REQUIRE(l != nullptr);
    auto n = [&](Fault f) {
      auto it = faults.find(f);
      return it == faults.end() ? std::uint64_t{0} : it->second;
    };
    INFO("board " << key.first << " link " << int(key.second));
    CHECK(l->gap_frames == n(Fault::Drop) + n(Fault::Truncate) + n(Fault::Corrupt));
    CHECK(l->bad_frames == n(Fault::Truncate) + n(Fault::Corrupt));
    CHECK(l->duplicate_frames == n(Fault::Duplicate));
    CHECK(l->late_frames == n(Fault::Reorder));
    CHECK(l->too_late_frames == 0);
    CHECK(l->frames == n(Fault::None) + n(Fault::Duplicate) + n(Fault::Reorder));
    gaps += l->gap_frames;
    bad += l->bad_frames;
  }
  CHECK(sum_events(r, store::EventType::SequenceGap) == gaps);
  CHECK(r.totals.bad_frames == bad);
  // LOSS markers of the surviving frames are all stored, with their counts.
  std::uint64_t lost = 0;
  wire::DecodedFrame d;
  for (const auto* f : in.survivors) {
    REQUIRE(wire::decode_frame(f->bytes, d).ok());
    for (const auto& l : d.losses) lost += l.count;
  }
  CHECK(sum_events(r, store::EventType::FifoLoss) == lost);
  (void)t;
}

}  // namespace

TEST_CASE("fault injection: dropped, duplicated, reordered, truncated and corrupted frames") {
  for (std::uint64_t seed : {1, 2, 3}) {
    auto t = test::make_traffic(2, 3, 60000, seed);
    auto in = inject(t, seed, 0.08);
    std::uint64_t faults = 0;
    for (auto& [k, m] : in.count)
      for (auto& [f, n] : m)
        if (f != Fault::None) faults += n;
    REQUIRE(faults > 20);
    Run r;
    receive(in.arrival, r);
    check_faults(t, in, r);
  }
}

// A file read ahead releases by watermark from its first frames instead of holding a horizon: the
// merged references, every counter and every stored event are those of the held merge.
TEST_CASE("files read ahead: from the first frames, the held merge's references, counters and events") {
  for (std::uint64_t seed : {4, 5}) {
    auto t = test::make_traffic(2, 3, 60000, seed);
    auto in = inject(t, seed, 0.08);
    std::vector<std::uint16_t> streams;
    for (const auto& f : t.frames) {
      const auto id = LinkMerger::stream_id(f.board, f.link);
      if (std::find(streams.begin(), streams.end(), id) == streams.end()) streams.push_back(id);
    }
    REQUIRE(streams.size() == 6);
    ReceiverOptions o;
    o.horizon_refs = 1u << 22;  // more than the traffic: the held merge releases only at the end
    Run held, ahead;
    receive(in.arrival, held, o);
    receive(in.arrival, ahead, o, 7, &streams);
    check_faults(t, in, ahead);
    CHECK(ahead.sink.references() == held.sink.references());
    REQUIRE(ahead.links.size() == held.links.size());
    for (std::size_t i = 0; i < held.links.size(); ++i) {
      CHECK(ahead.links[i].frames == held.links[i].frames);
      CHECK(ahead.links[i].gap_frames == held.links[i].gap_frames);
      CHECK(ahead.links[i].late_frames == held.links[i].late_frames);
      CHECK(ahead.links[i].too_late_frames == held.links[i].too_late_frames);
      CHECK(ahead.links[i].duplicate_frames == held.links[i].duplicate_frames);
    }
    REQUIRE(ahead.sink.events().size() == held.sink.events().size());
    for (std::size_t i = 0; i < held.sink.events().size(); ++i) {
      CHECK(ahead.sink.events()[i].time == held.sink.events()[i].time);
      CHECK(ahead.sink.events()[i].type == held.sink.events()[i].type);
      CHECK(ahead.sink.events()[i].value == held.sink.events()[i].value);
    }
  }
}

TEST_CASE("files read ahead: nothing held beyond what the links have passed, until a stream is still unseen") {
  auto t = test::make_traffic(1, 3, 400000, 23);
  ReceiverOptions o;
  o.horizon_refs = 1u << 22;  // the whole traffic: without the read-ahead, nothing leaves before the end
  for (const bool all : {true, false}) {
    CAPTURE(all);
    // The read-ahead's answer: every stream, or one more that never comes (the hold stays).
    std::vector<std::uint16_t> streams = {0, 1, 2};
    if (!all) streams.push_back(LinkMerger::stream_id(5, 0));
    Run r;
    Receiver rx(r.sink, o);
    rx.expect_file_streams(streams);
    FrameBatch batch;
    std::size_t max_buffered = 0;
    for (std::size_t i = 0; i < t.frames.size(); i += 6) {
      test::to_batch(t.frames, i, std::min(t.frames.size(), i + 6), batch);
      REQUIRE(rx.accept(batch, 1).ok());
      max_buffered = std::max(max_buffered, rx.buffered_refs());
    }
    if (all) {
      CHECK(max_buffered < 4 * 6 * wire::kMaxRecords);
    } else {
      CHECK(max_buffered > 390000);
    }
    REQUIRE(rx.finish().ok());
    CHECK(r.sink.references() == test::expected_merge(pointers(t.frames)));
  }
}

TEST_CASE("fault injection in live mode (merge released by watermark)") {
  auto t = test::make_traffic(2, 3, 40000, 11);
  auto in = inject(t, 11, 0.08);
  ReceiverOptions o;
  o.live = true;
  o.idle_ns = UINT64_MAX / 4;
  Run r;
  receive(in.arrival, r, o, 3);
  check_faults(t, in, r);
}

TEST_CASE("sequence numbers wrap from 2^32-1 to 0 with losses on both sides") {
  auto t = test::make_traffic(1, 2, 30000, 4);
  // Restart every link's numbering 40 frames before the wrap.
  std::map<std::uint8_t, std::uint32_t> next;
  for (auto& f : t.frames) {
    auto it = next.find(f.link);
    if (it == next.end()) it = next.emplace(f.link, 0xFFFFFFFFu - 39).first;
    host::set_sequence(f.bytes, it->second++);
  }
  // Drop the frames numbered 0xFFFFFFFF and 0 on link 0, and 0xFFFFFFFE on link 1.
  std::vector<WireFrame> arrival;
  std::vector<const WireFrame*> survivors;
  for (const auto& f : t.frames) {
    const std::uint32_t seq = (std::uint32_t{f.bytes[12]} << 24) | (std::uint32_t{f.bytes[13]} << 16) |
                              (std::uint32_t{f.bytes[14]} << 8) | f.bytes[15];
    if ((f.link == 0 && (seq == 0xFFFFFFFFu || seq == 0)) || (f.link == 1 && seq == 0xFFFFFFFEu)) continue;
    arrival.push_back(f);
    survivors.push_back(&f);
  }
  Run r;
  receive(arrival, r);
  CHECK(r.sink.references() == test::expected_merge(survivors));
  CHECK(find(r, 0, 0)->gap_frames == 2);
  CHECK(find(r, 0, 1)->gap_frames == 1);
  CHECK(find(r, 0, 0)->wraps == 1);
  CHECK(find(r, 0, 1)->wraps == 1);
  CHECK(find(r, 0, 0)->duplicate_frames == 0);
  CHECK(find(r, 0, 0)->late_frames == 0);
  bool named = false;
  for (const auto& e : r.sink.events())
    if (e.type == store::EventType::SequenceGap && e.link == 0) named = e.note == "frames 4294967295-0 missing on the link";
  CHECK(named);
}

TEST_CASE("OVERFLOW records at frame edges: long gaps open frames, times restored across links") {
  SyntheticConfig c;
  c.long_gap_rate = 0.3;
  c.records_per_frame = 8;
  c.start_time = (std::uint64_t{1} << 36) * 5;  // 5 OVERFLOW records open the first frame
  auto t = test::make_traffic(2, 4, 20000, 6, c);
  // Some frames must start with OVERFLOW.
  std::size_t opens_with_overflow = 0;
  for (const auto& f : t.frames)
    if ((f.bytes[wire::kHeaderBytes] >> 4) == 0x8) ++opens_with_overflow;
  CHECK(opens_with_overflow > 100);
  auto in = inject(t, 6, 0.1);
  Run r;
  receive(in.arrival, r);
  check_faults(t, in, r);
}

TEST_CASE("merge against a sort of the same records, random multi-board streams and arrival orders") {
  std::mt19937_64 rng(77);
  for (int round = 0; round < 12; ++round) {
    const unsigned boards = 1 + static_cast<unsigned>(rng() % 4);
    const std::uint8_t links = static_cast<std::uint8_t>(1 + rng() % 4);
    SyntheticConfig c;
    c.records_per_frame = static_cast<std::uint16_t>(8 + rng() % 281);
    c.long_gap_rate = 0.01 * static_cast<double>(rng() % 10);
    auto t = test::make_traffic(boards, links, 5000 + rng() % 20000, 100 + static_cast<std::uint64_t>(round), c);
    // Links of one board also arrive out of step with each other (each link's order kept).
    std::vector<WireFrame> arrival;
    {
      std::map<std::uint16_t, std::deque<WireFrame>> q;
      std::vector<std::uint16_t> order;
      for (auto& f : t.frames) {
        order.push_back(f.port());
        q[f.port()].push_back(f);
      }
      std::shuffle(order.begin(), order.end(), rng);
      for (auto p : order) {
        arrival.push_back(std::move(q[p].front()));
        q[p].pop_front();
      }
    }
    ReceiverOptions o;
    o.live = (round % 2) == 1;
    o.idle_ns = UINT64_MAX / 4;
    o.horizon_refs = std::size_t{1} << 24;
    Run r;
    receive(arrival, r, o, 1 + rng() % 16);
    INFO("round " << round << " boards " << boards << " links " << int(links));
    const auto expect = test::expected_merge(pointers(t.frames));
    REQUIRE(r.sink.references().size() == expect.size());
    CHECK(r.sink.references() == expect);
    for (const auto& l : r.links) CHECK(l.late_frames == 0);
  }
}

TEST_CASE("files: once a horizon's worth is held, what every link has passed leaves at once") {
  // One board, three links, frames round-robin over the links as a board sends them.
  auto t = test::make_traffic(1, 3, 400000, 21);
  ReceiverOptions o;  // a file: not live
  o.horizon_refs = 20000;
  Run r;
  Receiver rx(r.sink, o);
  FrameBatch batch;
  std::size_t max_late_buffered = 0;  // buffered after each batch, in the file's second half
  constexpr std::size_t kPerBatch = 6;
  for (std::size_t i = 0; i < t.frames.size(); i += kPerBatch) {
    test::to_batch(t.frames, i, std::min(t.frames.size(), i + kPerBatch), batch);
    REQUIRE(rx.accept(batch, 1).ok());
    if (i > t.frames.size() / 2) max_late_buffered = std::max(max_late_buffered, rx.buffered_refs());
  }
  REQUIRE(rx.finish().ok());
  // Before, a file held a full horizon (20000 here) to the end; now what is left after a batch is
  // what the links' latest frames have not all passed: well under two batches of frames.
  INFO("held after a batch: " << max_late_buffered);
  CHECK(max_late_buffered < 2 * kPerBatch * wire::kMaxRecords);
  CHECK(max_late_buffered < o.horizon_refs / 4);
  std::vector<const WireFrame*> all;
  for (const auto& f : t.frames) all.push_back(&f);
  CHECK(r.sink.references() == test::expected_merge(all));
  CHECK(rx.totals().too_late_refs == 0);
}

TEST_CASE("beyond the merge horizon: a delayed link's frames are too late, counted and stored as gaps") {
  auto t = test::make_traffic(1, 3, 30000, 8);
  // Link 2 arrives 40 frames behind the others.
  std::vector<WireFrame> arrival, held;
  for (auto& f : t.frames) {
    if (f.link == 2) held.push_back(f);
    else arrival.push_back(f);
    if (arrival.size() % 3 == 0 && held.size() > 40) {
      arrival.push_back(held.front());
      held.erase(held.begin());
    }
  }
  for (auto& f : held) arrival.push_back(f);
  ReceiverOptions o;
  o.horizon_refs = 2000;
  Run r;
  receive(arrival, r, o);
  const LinkCounters* l2 = find(r, 0, 2);
  REQUIRE(l2 != nullptr);
  CHECK(l2->too_late_frames > 0);
  CHECK(l2->gap_frames == l2->too_late_frames);
  CHECK(l2->late_frames == 0);  // not reordered within its link, only behind the others
  // Nothing else is lost, and the merge stays in time order.
  std::uint64_t all = 0;
  for (const auto& tr : t.truth) all += tr.refs.size();
  CHECK(r.sink.references().size() + l2->too_late_refs == all);
  CHECK(std::is_sorted(r.sink.references().begin(), r.sink.references().end(),
                       [](const Reference& a, const Reference& b) { return a.time < b.time; }));
  // Exactly the references of the too-late frames are missing.
  std::vector<const WireFrame*> kept;
  {
    std::multiset<std::uint64_t> out_times;
    for (const auto& ref : r.sink.references()) out_times.insert(ref.time);
    wire::DecodedFrame d;
    for (const auto& f : t.frames) {
      REQUIRE(wire::decode_frame(f.bytes, d).ok());
      if (d.refs.empty() || out_times.count(d.refs.front().time)) kept.push_back(&f);
    }
  }
  CHECK(r.sink.references() == test::expected_merge(kept));
  CHECK(sum_events(r, store::EventType::SequenceGap) == l2->gap_frames);
}

TEST_CASE("line-rate checksums equal zlib's CRC-32 and the Internet checksum on every length") {
  std::mt19937_64 rng(3);
  std::vector<std::uint8_t> buf(3000);
  for (auto& b : buf) b = static_cast<std::uint8_t>(rng());
  for (std::size_t n = 0; n <= buf.size(); ++n) {
    const std::size_t off = n % 7;  // unaligned starts too
    if (off + n > buf.size()) continue;
    const std::span<const std::uint8_t> s(buf.data() + off, n);
    REQUIRE(host::fast_crc32(s) == wire::crc32(s));
    // Reference one's-complement sum, 16 bits at a time.
    std::uint64_t sum = 17;
    std::size_t i = 0;
    for (; i + 1 < n; i += 2) sum += static_cast<std::uint64_t>((s[i] << 8) | s[i + 1]);
    if (i < n) sum += static_cast<std::uint64_t>(s[i] << 8);
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    REQUIRE(host::ones_sum16(s, 17) == sum);
  }
  MESSAGE("CRC-32 via PCLMULQDQ: " << host::crc32_uses_pclmul());
}

TEST_CASE("live: a link that goes silent stops holding the merge after the idle time") {
  auto t = test::make_traffic(1, 3, 300000, 12);
  // Link 2 dies a third of the way in.
  std::vector<WireFrame> arrival;
  std::size_t l2 = 0, cut = 0;
  for (const auto& f : t.frames) cut += f.link == 2;
  cut /= 3;
  std::vector<const WireFrame*> delivered;
  for (const auto& f : t.frames) {
    if (f.link == 2 && l2++ >= cut) continue;
    arrival.push_back(f);
  }
  for (const auto& f : arrival) delivered.push_back(&f);
  MemoryCaptureSink sink;
  ReceiverOptions o;
  o.live = true;
  o.idle_ns = 50'000'000;  // 50 ms
  Receiver rx(sink, o);
  FrameBatch batch;
  std::uint64_t now = 1;
  std::size_t released_before_end = 0;
  for (std::size_t i = 0; i < arrival.size(); i += 3) {
    test::to_batch(arrival, i, std::min(arrival.size(), i + 3), batch);
    REQUIRE(rx.accept(batch, now).ok());
    now += 1'000'000;  // 1 ms per batch
  }
  REQUIRE(rx.tick(now).ok());
  released_before_end = sink.references().size();
  REQUIRE(rx.finish().ok());
  // All but the last ~50 ms of traffic went out while the capture ran, despite the dead link.
  CHECK(released_before_end > sink.references().size() * 8 / 10);
  CHECK(sink.references() == test::expected_merge(delivered));
  for (const auto& l : rx.links()) {
    CHECK(l.too_late_frames == 0);
    CHECK(l.gap_frames == 0);  // frames lost after a link's last one cannot be seen
  }
}
