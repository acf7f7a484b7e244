// The compressed-trace file format (docs/metric.md): the documented worked
// example byte for byte, the varint/zigzag vectors, and a clear error naming
// the offset for every kind of malformed file.
#include <doctest/doctest.h>

#include "roundtrip.h"

using namespace metric_test;

namespace {

using Bytes = std::vector<std::uint8_t>;

// docs/metric.md, "Worked example": nine reads of A[i][j] (3 x 3, rows 0x40
// apart) and one 4-byte write to 0x2000, window 64.
const Bytes kExample = {
    0x48, 0x4d, 0x54, 0x54, 0x4d, 0x54, 0x52, 0x43, 0x01, 0x00, 0x20, 0x00, 0x40, 0x00, 0x00, 0x00,  // header
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x06, 'A', '_', 'R', 'e', 'a', 'd', 0x03, 'a', '.', 'c', 0x07, 0x07,  // POINT 0
    'A', '[', 'i', ']', '[', 'j', ']',
    0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x08,                                // KEY 0: read, cpu, 8 B
    0x02, 0x01, 0x00, 0x01, 0x01, 0x00, 0x04,                                // KEY 1: write, cpu, 4 B
    0x03, 0x09, 0x01, 0x80, 0x80, 0x01, 0x00,                                // IAD seq 9
    0x04, 0x00, 0x02, 0x00, 0x80, 0x40, 0x00, 0x03, 0x10, 0x01, 0x02, 0x03, 0x80, 0x01, 0x03, 0x06,  // DESC
    0x7f, 0x0a, 0x9c, 0xb6, 0x3c, 0x18, 0xcc, 0x5d, 0xab, 0xdc};             // END: 10 events

std::vector<Reference> example_events() {
  std::vector<Reference> v;
  for (std::uint64_t i = 0; i < 3; ++i)
    for (std::uint64_t j = 0; j < 3; ++j) v.push_back(Reference{v.size(), 0x1000 + 0x40 * i + 8 * j, 8, Kind::Read, Origin::Cpu, 0});
  v.push_back(Reference{9, 0x2000, 4, Kind::Write, Origin::Cpu, 0});
  return v;
}

Bytes varint(std::uint64_t v) {
  Bytes b;
  put_varint(b, v);
  return b;
}

std::string parse_error(Bytes b) {
  auto t = CompressedTrace::parse(std::move(b), "t.mtrc");
  if (t.ok()) {
    // structurally valid: the error must then come from expanding it
    ExpandedSource ex(std::make_shared<const CompressedTrace>(std::move(*t)));
    std::vector<Reference> out(64);
    std::vector<std::uint32_t> pts(64);
    for (;;) {
      auto n = ex.read_pointed(out, pts);
      if (!n) return n.error().message;
      if (*n == 0) return "";
    }
  }
  return t.error().message;
}

}  // namespace

TEST_CASE("varint and zigzag vectors from docs/metric.md") {
  CHECK(varint(0) == Bytes{0x00});
  CHECK(varint(127) == Bytes{0x7f});
  CHECK(varint(128) == Bytes{0x80, 0x01});
  CHECK(varint(300) == Bytes{0xac, 0x02});
  CHECK(varint(0x1000) == Bytes{0x80, 0x20});
  CHECK(varint(UINT64_MAX) == Bytes{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01});
  CHECK(zigzag(0) == 0);
  CHECK(zigzag(static_cast<std::uint64_t>(-1)) == 1);
  CHECK(zigzag(1) == 2);
  CHECK(zigzag(static_cast<std::uint64_t>(-2)) == 3);
  CHECK(zigzag(static_cast<std::uint64_t>(-6400)) == 12799);
  CHECK(zigzag(0x8000000000000000ull) == UINT64_MAX);
  for (std::uint64_t v : std::initializer_list<std::uint64_t>{0, 1, 12345, UINT64_MAX, 0x8000000000000000ull}) CHECK(unzigzag(zigzag(v)) == v);
}

TEST_CASE("the compressor writes the worked example byte for byte") {
  MemoryByteSink sink;
  TraceCompressor c(sink);
  REQUIRE(c.begin().ok());
  REQUIRE(c.define_point(0, ReferencePoint{"A_Read", "a.c", 7, "A[i][j]"}).ok());
  for (const auto& r : example_events()) REQUIRE(c.append(r, 0).ok());
  auto st = c.finish();
  REQUIRE(st.ok());
  CHECK(sink.bytes() == kExample);
  CHECK(st->iads == 1);
  CHECK(st->prsds == 1);
}

TEST_CASE("the worked example parses and expands to its ten events") {
  auto t = CompressedTrace::parse(kExample, "example.mtrc");
  REQUIRE(t.ok());
  CHECK(t->window() == 64);
  CHECK(t->events() == 10);
  CHECK(t->checksum() == 0xdcab5dcc183cb69cull);
  REQUIRE(t->points().size() == 1);
  CHECK(t->points()[0] == ReferencePoint{"A_Read", "a.c", 7, "A[i][j]"});
  REQUIRE(t->descriptors().size() == 1);
  const Descriptor& d = t->descriptors()[0];
  CHECK(d.start_addr == 0x1000);
  CHECK(d.levels == std::vector<Step>{{3, 8, 1, 1}, {3, 0x40, 3, 3}});
  ExpandedSource ex(std::make_shared<const CompressedTrace>(std::move(*t)));
  auto all = collect(ex);
  REQUIRE(all.ok());
  CHECK(*all == example_events());
}

TEST_CASE("malformed files get an error naming the offset and the field") {
  auto with = [](std::size_t at, std::uint8_t v) {
    Bytes b = kExample;
    b[at] = v;
    return b;
  };
  CHECK(parse_error(Bytes(kExample.begin(), kExample.begin() + 20)).find("shorter than the 32-byte header") != std::string::npos);
  CHECK(parse_error(with(0, 'X')).find("offset 0: magic") != std::string::npos);
  CHECK(parse_error(with(8, 2)).find("offset 8: version 2") != std::string::npos);
  CHECK(parse_error(with(10, 33)).find("offset 10: header size") != std::string::npos);
  CHECK(parse_error(with(16, 1)).find("offset 16: flags") != std::string::npos);
  CHECK(parse_error(with(25, 1)).find("offset 25: reserved") != std::string::npos);
  // truncated anywhere in the body: END missing or a field cut short
  for (std::size_t cut = 32; cut < kExample.size(); ++cut) {
    CAPTURE(cut);
    CHECK(!parse_error(Bytes(kExample.begin(), kExample.begin() + static_cast<std::ptrdiff_t>(cut))).empty());
  }
  CHECK(parse_error(Bytes(kExample.begin(), kExample.begin() + 32)).find("END record is missing") != std::string::npos);
  Bytes extra = kExample;
  extra.push_back(0);
  CHECK(parse_error(extra).find("bytes after the END record") != std::string::npos);
  CHECK(parse_error(with(32, 0x55)).find("offset 32: unknown record tag 85") != std::string::npos);
  CHECK(parse_error(with(57, 7)).find("offset 54: KEY: kind 7") != std::string::npos);
  CHECK(parse_error(with(55, 1)).find("KEY: id 1 out of order") != std::string::npos);
  CHECK(parse_error(with(56, 3)).find("KEY: point 3 is not defined") != std::string::npos);
  CHECK(parse_error(with(70, 5)).find("IAD: key 5 is not defined") != std::string::npos);
  CHECK(parse_error(with(77, 0)).find("DESC: depth 0") != std::string::npos);
  CHECK(parse_error(with(82, 0)).find("RSD length must be at least 1") != std::string::npos);
  CHECK(parse_error(with(86, 1)).find("PRSD count must be at least 2") != std::string::npos);
  CHECK(parse_error(with(89, 2)).find("must exceed the span 2") != std::string::npos);
  // 10 events claimed, 11 covered
  CHECK(parse_error(with(92, 11)).find("but END says 11") != std::string::npos);
  // a flipped address bit still parses, but expansion finds the checksum differs
  CHECK(parse_error(with(71, 0x81)).find("checksum mismatch") != std::string::npos);
  // the IAD moved onto sequence id 8, which the PRSD already covers
  CHECK(parse_error(with(69, 8)).find("sequence id 8 is covered by both") != std::string::npos);
}

TEST_CASE("a descriptor with a huge count expands lazily") {
  Bytes b(kExample.begin(), kExample.begin() + 68);  // header, point, keys
  const std::uint64_t n = 1ull << 40;
  b.push_back(0x04);
  for (std::uint64_t v : std::initializer_list<std::uint64_t>{0, 1, 0, zigzag(0x1000), 0, n, zigzag(64), 1, zigzag(1)}) put_varint(b, v);
  b.push_back(0x7f);
  put_varint(b, n);
  for (int i = 0; i < 8; ++i) b.push_back(0);
  auto t = CompressedTrace::parse(b, "huge.mtrc");
  REQUIRE(t.ok());
  CHECK(t->events() == n);
  ExpandedSource ex(std::make_shared<const CompressedTrace>(std::move(*t)));
  std::vector<Reference> out(1000);
  std::vector<std::uint32_t> pts(1000);
  auto got = ex.read_pointed(out, pts);
  REQUIRE(got.ok());
  REQUIRE(*got == 1000);
  CHECK(out[999].address == 0x1000 + 64 * 999);
  CHECK(out[999].time == 999);
  // a descriptor whose span runs past 2^64 is refused
  Bytes bad(kExample.begin(), kExample.begin() + 68);
  bad.push_back(0x04);
  for (std::uint64_t v : std::initializer_list<std::uint64_t>{0, 2, 0, 0, 0, 1ull << 40, 0, 1ull << 30, 0, 1ull << 40, 0, 1ull << 62, 0}) put_varint(bad, v);
  CHECK(parse_error(bad).find("overflows 64 bits") != std::string::npos);
}
