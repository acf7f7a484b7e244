// The wire codec against docs/wire-format.md: the worked examples of section 5
// byte for byte, round trips of random streams, and every rejection rule.
#include <doctest/doctest.h>

#include <random>

#include "hmtt/wire/frame.h"

using namespace hmtt;
using namespace hmtt::wire;

namespace {

std::vector<std::uint8_t> bytes5(std::uint64_t rec) {
  std::vector<std::uint8_t> b(5);
  put_record(rec, b.data());
  return b;
}

std::vector<std::uint8_t> record_bytes(const EncodedFrame& f) {
  return {f.bytes.begin() + static_cast<std::ptrdiff_t>(kHeaderBytes),
          f.bytes.end() - static_cast<std::ptrdiff_t>(kCrcBytes)};
}

void reseal(std::vector<std::uint8_t>& f) {
  const std::size_t n = f.size() - kCrcBytes;
  const std::uint32_t c = crc32(std::span<const std::uint8_t>(f.data(), n));
  store_be32(c, f.data() + n);
}

struct Item {
  enum Type { Ref, Ev, Loss, Rep } type;
  std::uint64_t time;
  std::uint64_t addr;
  bool write;
  std::uint64_t count;
  std::vector<std::uint64_t> values;
};

}  // namespace

TEST_CASE("worked examples of docs/wire-format.md section 5") {
  using V = std::vector<std::uint8_t>;
  CHECK(bytes5(reference_record(false, 0x12345680 >> 6, 5, 26)) == V{0x04, 0x8D, 0x15, 0xA0, 0x05});
  CHECK(bytes5(reference_record(true, 0x40 >> 6, 4095, 26)) == V{0x40, 0x00, 0x00, 0x1F, 0xFF});
  CHECK(bytes5(control_record(Opcode::Overflow, 10000)) == V{0x80, 0x00, 0x00, 0x27, 0x10});
  CHECK(bytes5(event_record(3, false, kEndTracing)) == V{0x90, 0x03, 0x00, 0x00, 0x01});
  CHECK(bytes5(control_record(Opcode::Loss, 1234)) == V{0xA0, 0x00, 0x00, 0x04, 0xD2});
  CHECK(bytes5(control_record(Opcode::Report, (2u << 16) | 7)) == V{0xB0, 0x00, 0x02, 0x00, 0x07});
  CHECK(bytes5(control_record(Opcode::ReportValue, 10)) == V{0xC0, 0x00, 0x00, 0x00, 0x0A});

  FrameHeader h;
  h.board = 0;
  h.link = 1;
  h.flags = 1;
  h.sequence = 5;
  h.base_time = 1000;
  std::vector<std::uint8_t> f(32);
  write_header(h, f.data());
  CHECK(V(f.begin(), f.begin() + 28) == V{0x48, 0x4D, 0x54, 0x54, 0x01, 0x00, 0x01, 0x1A, 0x06, 0x01,
                                          0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00,
                                          0x00, 0x00, 0x03, 0xE8, 0x00, 0x03, 0x0D, 0x40});
  reseal(f);
  DecodedFrame d;
  REQUIRE(decode_frame(f, d).ok());
  CHECK(d.header == h);
  CHECK(d.refs.empty());
  CHECK(d.end_time == 1000);
}

TEST_CASE("CRC-32 is zlib's (IEEE, reflected)") {
  const std::string s = "123456789";
  CHECK(crc32(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(s.data()), s.size())) ==
        0xCBF43926u);
}

TEST_CASE("encoder emits the examples in order and the decoder restores absolute times") {
  auto enc = FrameEncoder::create({});
  REQUIRE(enc.ok());
  REQUIRE(enc->add_reference(5, 0x12345680, false).ok());
  REQUIRE(enc->add_reference(5 + 4095, 0x40, true).ok());
  REQUIRE(enc->add_reference(5 + 4095 + 10000, 0, false).ok());
  REQUIRE(enc->add_event(5 + 4095 + 10000 + 3, kEndTracing, false).ok());
  enc->add_loss(1234);
  std::vector<std::uint64_t> vals{10, 20};
  REQUIRE(enc->add_report(0, 7, vals).ok());
  enc->flush();
  REQUIRE(enc->has_frame());
  EncodedFrame f = enc->pop_frame();
  CHECK_FALSE(enc->has_frame());
  std::vector<std::uint8_t> expect = {0x04, 0x8D, 0x15, 0xA0, 0x05, 0x40, 0x00, 0x00, 0x1F, 0xFF, 0x80, 0x00,
                                      0x00, 0x27, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x90, 0x03, 0x00, 0x00,
                                      0x01, 0xA0, 0x00, 0x00, 0x04, 0xD2, 0xB0, 0x00, 0x02, 0x00, 0x07, 0xC0,
                                      0x00, 0x00, 0x00, 0x0A, 0xC0, 0x00, 0x00, 0x00, 0x14};
  CHECK(record_bytes(f) == expect);
  DecodedFrame d;
  REQUIRE(decode_frame(f.bytes, d).ok());
  REQUIRE(d.refs.size() == 3);
  CHECK(d.refs[0] == Reference{5, 0x12345680, 64, Kind::Read, Origin::Unknown, 0});
  CHECK(d.refs[1] == Reference{4100, 0x40, 64, Kind::Write, Origin::Unknown, 0});
  CHECK(d.refs[2] == Reference{14100, 0, 64, Kind::Read, Origin::Unknown, 0});
  REQUIRE(d.events.size() == 1);
  CHECK(d.events[0] == DecodedEvent{14103, kEndTracing, false});
  REQUIRE(d.losses.size() == 1);
  CHECK(d.losses[0] == DecodedLoss{14103, 1234});
  REQUIRE(d.reports.size() == 1);
  CHECK(d.reports[0].values == vals);
  CHECK(d.reports[0].interval == 7);
  CHECK(d.end_time == 14103);
}

TEST_CASE("random streams round-trip across frames and links") {
  for (unsigned abits : {20u, 26u, 32u}) {
    for (std::uint8_t links = 1; links <= 4; ++links) {
      std::mt19937_64 rng(abits * 10 + links);
      EncoderConfig cfg;
      cfg.addr_bits = static_cast<std::uint8_t>(abits);
      cfg.links = links;
      cfg.records_per_frame = static_cast<std::uint16_t>(8 + rng() % 281);
      auto enc = FrameEncoder::create(cfg);
      REQUIRE(enc.ok());
      std::vector<Item> items;
      std::uint64_t t = 0;
      const std::uint64_t amax = std::uint64_t{1} << (abits + 6);
      for (int i = 0; i < 20000; ++i) {
        // gaps: mostly small, some at field edges, some huge (chains of OVERFLOW)
        std::uint64_t r = rng() % 100;
        std::uint64_t dmax = (std::uint64_t{1} << (38 - abits)) - 1;
        std::uint64_t gap = r < 70 ? rng() % 8 : r < 85 ? dmax + (rng() % 3) - 1 : r < 98 ? rng() % 100000
                                                                                           : kPayloadMask + rng() % 5;
        t += gap;
        std::uint64_t k = rng() % 100;
        if (k < 90) {
          Item it{Item::Ref, t, (rng() % amax) & ~std::uint64_t{63}, (rng() & 1) != 0, 0, {}};
          REQUIRE(enc->add_reference(it.time, it.addr, it.write).ok());
          items.push_back(it);
        } else if (k < 95) {
          Item it{Item::Ev, t, rng() % (kEventIndexMask + 1), (rng() & 1) != 0, 0, {}};
          REQUIRE(enc->add_event(it.time, static_cast<std::uint32_t>(it.addr), it.write).ok());
          items.push_back(it);
        } else if (k < 98) {
          Item it{Item::Loss, 0, 0, false, rng() % 100000, {}};
          enc->add_loss(it.count);
          items.push_back(it);
        } else {
          Item it{Item::Rep, 0, rng() % 2, false, rng() % 65536, {}};
          for (std::uint64_t v = 0; v < rng() % 6; ++v) it.values.push_back(rng() & kPayloadMask);
          REQUIRE(enc->add_report(static_cast<std::uint8_t>(it.addr), static_cast<std::uint16_t>(it.count), it.values).ok());
          items.push_back(it);
        }
      }
      enc->flush();
      // Decode every frame; check per-link sequences; merge decoded items by frame order.
      std::vector<std::uint32_t> next_seq(links, 0);
      std::vector<Reference> refs;
      std::vector<DecodedEvent> events;
      std::vector<DecodedLoss> losses;
      std::vector<DecodedReport> reports;
      std::uint8_t expect_link = 0;
      std::uint64_t prev_end = 0;
      while (enc->has_frame()) {
        EncodedFrame f = enc->pop_frame();
        CHECK(f.link == expect_link);
        expect_link = static_cast<std::uint8_t>((expect_link + 1) % links);
        CHECK(f.sequence == next_seq[f.link]++);
        CHECK(f.bytes.size() <= kMaxFrameBytes);
        DecodedFrame d;
        auto st = decode_frame(f.bytes, d);
        REQUIRE_MESSAGE(st.ok(), (st.ok() ? "" : st.error().message));
        CHECK(d.header.base_time == prev_end);  // frames chain in time
        prev_end = d.end_time;
        refs.insert(refs.end(), d.refs.begin(), d.refs.end());
        events.insert(events.end(), d.events.begin(), d.events.end());
        losses.insert(losses.end(), d.losses.begin(), d.losses.end());
        reports.insert(reports.end(), d.reports.begin(), d.reports.end());
      }
      std::size_t ri = 0, ei = 0, li = 0, pi = 0;
      for (const auto& it : items) {
        switch (it.type) {
          case Item::Ref:
            REQUIRE(ri < refs.size());
            CHECK(refs[ri].time == it.time);
            CHECK(refs[ri].address == it.addr);
            CHECK((refs[ri].kind == Kind::Write) == it.write);
            ++ri;
            break;
          case Item::Ev:
            REQUIRE(ei < events.size());
            CHECK(events[ei].time == it.time);
            CHECK(events[ei].index == it.addr);
            CHECK(events[ei].write == it.write);
            ++ei;
            break;
          case Item::Loss:
            REQUIRE(li < losses.size());
            CHECK(losses[li].count == it.count);
            ++li;
            break;
          case Item::Rep:
            REQUIRE(pi < reports.size());
            CHECK(reports[pi].unit == it.addr);
            CHECK(reports[pi].interval == it.count);
            CHECK(reports[pi].values == it.values);
            ++pi;
            break;
        }
      }
      CHECK(ri == refs.size());
      CHECK(ei == events.size());
      CHECK(li == losses.size());
      CHECK(pi == reports.size());
    }
  }
}

TEST_CASE("an OVERFLOW chain never ends a frame") {
  EncoderConfig cfg;
  cfg.records_per_frame = 8;
  auto enc = FrameEncoder::create(cfg);
  REQUIRE(enc.ok());
  for (int i = 0; i < 6; ++i) REQUIRE(enc->add_reference(static_cast<std::uint64_t>(i), 0, false).ok());
  // needs 3 OVERFLOW + 1 record: does not fit the 2 free slots, so a new frame starts
  REQUIRE(enc->add_reference(5 + 3 * kPayloadMask, 64, true).ok());
  enc->flush();
  EncodedFrame a = enc->pop_frame();
  EncodedFrame b = enc->pop_frame();
  DecodedFrame da, db;
  REQUIRE(decode_frame(a.bytes, da).ok());
  REQUIRE(decode_frame(b.bytes, db).ok());
  CHECK(da.header.count == 6);
  CHECK(db.header.count == 4);
  CHECK(db.header.base_time == 5);
  REQUIRE(db.refs.size() == 1);
  CHECK(db.refs[0].time == 5 + 3 * kPayloadMask);
}

TEST_CASE("encoder rejects what the format cannot carry") {
  auto enc = FrameEncoder::create({});
  REQUIRE(enc.ok());
  CHECK_FALSE(enc->add_reference(0, std::uint64_t{1} << 32, false).ok());  // 2^26 units of 64 B = 4 GiB
  REQUIRE(enc->add_reference(10, 0, false).ok());
  auto st = enc->add_reference(9, 0, false);
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message == "encoder: time 9 is before the previous record's 10");
  CHECK_FALSE(enc->add_event(20, kEventIndexMask + 1, false).ok());
  std::vector<std::uint64_t> big(300, 1);
  CHECK_FALSE(enc->add_report(0, 0, big).ok());
  CHECK_FALSE(enc->add_report(2, 0, std::vector<std::uint64_t>{}).ok());
  EncoderConfig bad;
  bad.links = 5;
  CHECK_FALSE(FrameEncoder::create(bad).ok());
}

TEST_CASE("header_valid accepts exactly the headers parse_header accepts") {
  // The receiver's line-rate decoder checks headers with read_header + header_valid and leaves the
  // messages to parse_header: the two rules must not drift apart. Every value of every one-byte
  // field, and the edges of count and clock_khz.
  FrameHeader base;
  base.count = 1;
  std::vector<std::uint8_t> b(kHeaderBytes);
  std::size_t accepted = 0, rejected = 0;
  auto check = [&](const std::vector<std::uint8_t>& bytes) {
    FrameHeader h;
    const bool fast = read_header(bytes, h) && header_valid(h);
    auto slow = parse_header(bytes);
    CHECK(fast == slow.ok());
    if (slow.ok()) CHECK(*slow == h);
    (fast ? accepted : rejected) += 1;
  };
  for (std::size_t field = 0; field < 10; ++field) {
    for (unsigned v = 0; v < 256; ++v) {
      write_header(base, b.data());
      b[field] = static_cast<std::uint8_t>(v);
      CAPTURE(field);
      CAPTURE(v);
      check(b);
    }
  }
  for (const std::uint16_t count : {std::uint16_t{0}, std::uint16_t{288}, std::uint16_t{289}, std::uint16_t{0xFFFF}}) {
    for (const std::uint32_t clock : {0u, 1u, 0xFFFFFFFFu}) {
      FrameHeader h = base;
      h.count = count;
      h.clock_khz = clock;
      write_header(h, b.data());
      CAPTURE(count);
      CAPTURE(clock);
      check(b);
    }
  }
  check(std::vector<std::uint8_t>(b.begin(), b.end() - 1));  // one byte short
  CHECK(accepted > 100);
  CHECK(rejected > 100);
}

TEST_CASE("decoder rejects corrupt frames with an error naming the place") {
  auto enc = FrameEncoder::create({});
  REQUIRE(enc.ok());
  for (std::uint64_t i = 0; i < 50; ++i) REQUIRE(enc->add_reference(i * 3, i * 64, i % 2 == 1).ok());
  enc->flush();
  const std::vector<std::uint8_t> good = enc->pop_frame().bytes;
  DecodedFrame d;
  REQUIRE(decode_frame(good, d).ok());

  auto err = [&](std::vector<std::uint8_t> f, bool seal) {
    if (seal) reseal(f);
    auto st = decode_frame(f, d);
    REQUIRE_FALSE(st.ok());
    return st.error().message;
  };
  SUBCASE("every single-bit flip is caught") {
    for (std::size_t i = 0; i < good.size(); ++i)
      for (int b = 0; b < 8; ++b) {
        auto f = good;
        f[i] ^= static_cast<std::uint8_t>(1 << b);
        CHECK_FALSE(decode_frame(f, d).ok());
      }
  }
  SUBCASE("truncation and padding") {
    CHECK(err({good.begin(), good.begin() + 10}, false) == "frame: 10 bytes is shorter than the 28-byte header");
    CHECK(err({good.begin(), good.end() - 1}, false) == "frame board 0 link 0 seq 0: length 281 bytes, count 50 needs 282");
    auto f = good;
    f.push_back(0);
    CHECK(err(f, false) == "frame board 0 link 0 seq 0: length 283 bytes, count 50 needs 282");
  }
  SUBCASE("header fields") {
    auto f = good;
    f[0] = 'X';
    CHECK(err(f, true) == "frame: bad magic (not \"HMTT\")");
    f = good;
    f[4] = 2;
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: unsupported version 2");
    f = good;
    f[6] = 4;
    CHECK(err(f, true) == "frame board 0 link 4 seq 0: link_id 4 is not 0-3");
    f = good;
    f[7] = 19;
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: addr_bits 19 is not 20-32");
    f = good;
    f[8] = 13;
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: line_shift 13 is not 0-12");
    f = good;
    f[9] = 2;
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: reserved flag bits set");
    f = good;
    f[24] = f[25] = f[26] = f[27] = 0;
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: clock_khz is 0");
    f = good;
    f[10] = 0x01;
    f[11] = 0x21;  // 289
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: count 289 exceeds 288");
  }
  SUBCASE("record rules") {
    auto put = [&](std::vector<std::uint8_t>& f, std::size_t i, std::uint64_t rec) {
      put_record(rec, f.data() + kHeaderBytes + 5 * i);
    };
    auto f = good;
    put(f, 3, (std::uint64_t{1} << 39) | (std::uint64_t{5} << 36));
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: record 3: reserved opcode 5");
    f = good;
    put(f, 49, control_record(Opcode::Overflow, 1));
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: frame ends with an OVERFLOW record");
    f = good;
    put(f, 10, control_record(Opcode::ReportValue, 1));
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: record 10: REPORT_VALUE without a REPORT");
    f = good;
    put(f, 47, control_record(Opcode::Report, 3u << 16));
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: record 47: REPORT announces 3 values but the frame ends first");
    f = good;
    put(f, 10, control_record(Opcode::Report, 1u << 16));
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: record 11: expected REPORT_VALUE, 1 still owed");
    f = good;
    put(f, 10, control_record(Opcode::Report, std::uint64_t{3} << 32));
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: record 10: REPORT unit 3 is reserved");
    f = good;
    put(f, 9, control_record(Opcode::Overflow, 1));
    put(f, 10, control_record(Opcode::Loss, 1));
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: record 10: LOSS between OVERFLOW and its record");
    f = good;
    for (int i = 16; i < 24; ++i) f[static_cast<std::size_t>(i)] = 0xFF;
    CHECK(err(f, true) == "frame board 0 link 0 seq 0: record 1: time overflows 64 bits");
  }
}
