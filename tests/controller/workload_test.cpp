// Built-in workloads: exact request counts, addresses and times.
#include <doctest/doctest.h>

#include <set>
#include <vector>

#include "hmtt/sim/workload.h"

using namespace hmtt;
using namespace hmtt::sim;

namespace {
std::vector<MemoryRequest> all(RequestSource& s) {
  std::vector<MemoryRequest> v, batch(100);
  for (;;) {
    auto r = s.read(batch);
    REQUIRE(r.ok());
    if (*r == 0) return v;
    v.insert(v.end(), batch.begin(), batch.begin() + static_cast<std::ptrdiff_t>(*r));
  }
}
}  // namespace

TEST_CASE("micro-benchmarks walk their region as the paper describes") {
  MicroBenchmarkConfig c;
  c.unit = 256;
  c.requests = 10;
  c.region = 1024;
  c.gap = 3;
  c.pattern = MicroPattern::SequentialWrite;
  auto seq = all(**MicroBenchmark::create(c));
  REQUIRE(seq.size() == 10);
  for (std::size_t i = 0; i < seq.size(); ++i) {
    CHECK(seq[i].address == (i % 4) * 256);  // wraps after 4 units
    CHECK(seq[i].write);
    CHECK(seq[i].size == 256);
    CHECK(seq[i].time == i * 3);
  }
  c.pattern = MicroPattern::ReadAfterWrite;
  auto raw = all(**MicroBenchmark::create(c));
  for (std::size_t i = 0; i < raw.size(); ++i) {
    CHECK(raw[i].address == ((i / 2) % 4) * 256);
    CHECK(raw[i].write == (i % 2 == 0));
  }
  c.pattern = MicroPattern::RandomRead;
  c.region = 1 << 20;
  c.requests = 1000;
  auto rnd = all(**MicroBenchmark::create(c));
  std::set<std::uint64_t> distinct;
  for (const auto& r : rnd) {
    CHECK(r.address % 256 == 0);
    CHECK(r.address < (1u << 20));
    CHECK_FALSE(r.write);
    distinct.insert(r.address);
  }
  CHECK(distinct.size() > 500);
  CHECK(all(**MicroBenchmark::create(c)) == rnd);  // same seed, same stream
  c.seed = 2;
  CHECK(all(**MicroBenchmark::create(c)) != rnd);
  c.unit = 48;
  CHECK_FALSE(MicroBenchmark::create(c).ok());
  c.unit = 8192;
  CHECK_FALSE(MicroBenchmark::create(c).ok());
}

TEST_CASE("the Appendix A sweep covers 4 patterns x 7 units with the exact count") {
  auto s = appendix_a_sweep(1000, 1 << 20, 1);
  REQUIRE(s.ok());
  auto v = all(**s);
  CHECK(v.size() == 1000);
  std::set<std::uint32_t> tags, units;
  for (std::size_t i = 0; i < v.size(); ++i) {
    tags.insert(v[i].tag);
    units.insert(v[i].size);
    if (i) CHECK(v[i].time >= v[i - 1].time);
  }
  CHECK(tags.size() == 28);
  CHECK(units == std::set<std::uint32_t>{64, 128, 256, 512, 1024, 2048, 4096});
}

TEST_CASE("I-Codes: BEGIN first, a user event every N requests, END last") {
  MicroBenchmarkConfig c;
  c.requests = 25;
  c.gap = 2;
  ICodeConfig k;
  k.space = ConfigSpace::at_top(1ull << 31);
  k.event_every = 10;
  ICodeInterleaver s(MicroBenchmark::create(c).value(), k);
  auto v = all(s);
  REQUIRE(v.size() == 25 + 2 + 2);
  CHECK(v.front().address == k.space.base);
  CHECK(v.front().label == RequestLabel::InnerCommand);
  CHECK(v.back().address == k.space.base + 0x40);
  CHECK(v.back().tag == ConfigSpace::kEnd);
  CHECK(v[11].address == k.space.base + 0x1000);
  CHECK(v[11].label == RequestLabel::UserEvent);
  CHECK(v[11].tag == 64);
  CHECK(v[22].address == k.space.base + 0x1040);
  std::size_t config = 0;
  for (const auto& r : v) config += k.space.contains(r.address);
  CHECK(config == 4);
}

TEST_CASE("bursty phases put every request inside an on phase") {
  MicroBenchmarkConfig c;
  c.requests = 5000;
  BurstyConfig b;
  b.on_cycles = 100;
  b.off_cycles = 300;
  b.gap = 2;
  BurstyPhases s(MicroBenchmark::create(c).value(), b);
  auto v = all(s);
  REQUIRE(v.size() == 5000);
  for (const auto& r : v) CHECK(r.time % 400 < 100);
  CHECK(v.back().time / 400 == 4999 / 50);  // 50 requests per on phase
}

TEST_CASE("trace replay maps kinds, origin, time and wraps addresses") {
  std::vector<Reference> refs = {
      {10, 0x100, 8, Kind::Read, Origin::Cpu, 3},
      {20, 0x5000'0000, 0, Kind::Write, Origin::Dma, 1},
      {30, 0x200, 4, Kind::Modify, Origin::Unknown, 0},
      {31, 0x300, 4, Kind::IFetch, Origin::Cpu, 2},
  };
  VectorSource src(refs);
  ReplayConfig rc;
  rc.cycles_per_tick_num = 3;
  rc.cycles_per_tick_den = 2;
  rc.limit = 1 << 20;
  ReferenceReplay replay(src, rc);
  auto v = all(replay);
  REQUIRE(v.size() == 5);
  CHECK(v[0].time == 15);
  CHECK(v[0].address == 0x100);
  CHECK(v[0].source == 3);
  CHECK_FALSE(v[0].write);
  CHECK(v[1].address == 0x5000'0000 % (1 << 20));
  CHECK(v[1].write);
  CHECK(v[1].size == 64);
  CHECK(v[1].origin == Origin::Dma);
  CHECK_FALSE(v[2].write);
  CHECK(v[3].write);
  CHECK(v[3].address == 0x200);
  CHECK(v[4].time == 46);
}

TEST_CASE("workloads by name") {
  WorkloadSpec s;
  s.limit = 1ull << 31;
  s.requests = 280;
  for (const auto& n : workload_names()) {
    s.name = n;
    auto w = make_workload(s);
    REQUIRE_MESSAGE(w.ok(), n);
    CHECK(all(**w).size() == 280);
  }
  s.name = "nope";
  CHECK_FALSE(make_workload(s).ok());
  s.name = "bursty";
  s.bursty.on_cycles = 0;
  CHECK_FALSE(make_workload(s).ok());
}

TEST_CASE("trace replay: times never go back, oversized references are errors naming the reference") {
  std::vector<Reference> refs = {
      {100, 0x40, 64, Kind::Read, Origin::Cpu, 0},
      {50, 0x80, 64, Kind::Read, Origin::Cpu, 0},      // earlier than the one before
      {60, (1u << 20) - 8, 64, Kind::Write, Origin::Cpu, 0},  // would cross the limit
      {70, 0x0, 2u << 20, Kind::Read, Origin::Cpu, 0},  // 2 MiB: too large
  };
  VectorSource src(refs);
  ReplayConfig rc;
  rc.limit = 1 << 20;
  ReferenceReplay replay(src, rc);
  std::vector<MemoryRequest> out(2);
  auto r = replay.read(out);
  REQUIRE(r.ok());
  REQUIRE(*r == 2);
  CHECK(out[0].time == 100);
  CHECK(out[1].time == 100);
  std::vector<MemoryRequest> one(1);
  r = replay.read(one);
  REQUIRE(r.ok());
  CHECK(one[0].address + one[0].size <= (1u << 20));
  r = replay.read(one);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("reference 4") != std::string::npos);
}

TEST_CASE("trace replay with a config space: the trace's own I-Codes go out as they are") {
  const ConfigSpace space{0x3e00'0000, ConfigSpace::kDefaultBytes};
  std::vector<Reference> refs = {
      {1, 0x3e00'0000, 8, Kind::Read, Origin::Cpu, 1},                      // BEGIN
      {2, 0x3f00'0000, 64, Kind::Write, Origin::Cpu, 0},                    // data above the config space
      {3, 0x3e00'0000 + 0x1000 + 5 * 64 + 8, 8, Kind::Read, Origin::Cpu, 1},  // user event 5, mid-line
      {4, 0x3e00'0040, 8, Kind::Read, Origin::Cpu, 1},                      // END
  };
  VectorSource src(refs);
  ReplayConfig rc;
  rc.limit = 1ull << 30;
  rc.config_space = space;
  ReferenceReplay replay(src, rc);
  auto v = all(replay);
  REQUIRE(v.size() == 4);
  CHECK(v[0].address == space.base);
  CHECK(v[0].label == RequestLabel::InnerCommand);
  CHECK(v[0].tag == ConfigSpace::kBegin);
  CHECK(v[0].size == 64);
  CHECK(v[1].address == 0x3f00'0000);  // not folded below the config space
  CHECK(v[1].label == RequestLabel::Data);
  CHECK(v[2].address == space.address_of(ConfigSpace::kFirstUserEvent + 5));
  CHECK(v[2].label == RequestLabel::UserEvent);
  CHECK(v[2].tag == ConfigSpace::kFirstUserEvent + 5);
  CHECK(v[3].tag == ConfigSpace::kEnd);

  // Without it the same addresses are data, folded below the limit (the workloads' rule).
  VectorSource src2(refs);
  ReplayConfig folded;
  folded.limit = space.base;
  ReferenceReplay replay2(src2, folded);
  auto w = all(replay2);
  REQUIRE(w.size() == 4);
  CHECK(w[0].label == RequestLabel::Data);
  CHECK(w[0].address == 0);
}
