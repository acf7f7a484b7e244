// The SystemC controller model end to end: workloads in, command buses and
// ground truth out. Every bus is replayed through the independent TimingChecker.
// Several simulations run one after the other in this one process (one at a time).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "hmtt/sim/controller_simulation.h"
#include "hmtt/sim/timing_checker.h"
#include "hmtt/sim/workload.h"

using namespace hmtt;
using namespace hmtt::sim;

namespace {

// Passes requests through and keeps a copy (the test's own record of what went in).
class Recorder final : public RequestSource {
 public:
  explicit Recorder(std::unique_ptr<RequestSource> inner) : inner_(std::move(inner)) {}
  Result<std::size_t> read(std::span<MemoryRequest> out) override {
    auto r = inner_->read(out);
    if (r.ok()) seen.insert(seen.end(), out.begin(), out.begin() + static_cast<std::ptrdiff_t>(*r));
    return r;
  }
  std::vector<MemoryRequest> seen;

 private:
  std::unique_ptr<RequestSource> inner_;
};

struct Outcome {
  std::vector<std::vector<BusCycle>> bus;
  std::vector<std::vector<IssuedAccess>> truth;
  std::vector<MemoryRequest> requests;
  ControllerStats stats;
};

struct Setup {
  DdrStandard standard = DdrStandard::Ddr2_400;
  PagePolicy policy = PagePolicy::OpenPage;
  unsigned ranks = 1, channels = 1, bl = 8;
  std::string map = "open-page";
  std::string workload = "appendix-a";
  std::uint64_t requests = 2000;
  std::uint64_t seed = 1;
  std::uint64_t event_every = 100;
};

Outcome simulate(const Setup& s) {
  ControllerConfig cfg;
  cfg.timing = *dram_timing(s.standard, s.bl);
  cfg.map = *controller_address_map(s.map, s.ranks, s.channels);
  cfg.policy = s.policy;
  cfg.ranks = s.ranks;
  cfg.channels = s.channels;
  cfg.config_space = ConfigSpace::at_top(cfg.map.capacity_bytes());
  WorkloadSpec w;
  w.name = s.workload;
  w.requests = s.requests;
  w.limit = cfg.config_space.base;
  w.seed = s.seed;
  w.bursty.on_cycles = 2000;
  w.bursty.off_cycles = 6000;
  ICodeConfig ic;
  ic.space = cfg.config_space;
  ic.event_every = s.event_every;
  Recorder rec(std::make_unique<ICodeInterleaver>(make_workload(w).value(), ic));
  auto sim = ControllerSimulation::create(cfg, rec);
  REQUIRE_MESSAGE(sim.ok(), sim.error().message);
  Outcome o;
  o.bus.resize(s.channels);
  o.truth.resize(s.channels);
  std::vector<BusCycle> b(777);
  std::vector<IssuedAccess> t(333);
  bool more = true;
  while (more) {  // alternate between the streams, as a multi-board consumer does
    more = false;
    for (unsigned ch = 0; ch < s.channels; ++ch) {
      auto n = (*sim)->bus(ch).read(b);
      REQUIRE_MESSAGE(n.ok(), n.error().message);
      o.bus[ch].insert(o.bus[ch].end(), b.begin(), b.begin() + static_cast<std::ptrdiff_t>(*n));
      auto m = (*sim)->read_issued(ch, t);
      REQUIRE(m.ok());
      o.truth[ch].insert(o.truth[ch].end(), t.begin(), t.begin() + static_cast<std::ptrdiff_t>(*m));
      more = more || *n != 0 || *m != 0;
    }
  }
  o.requests = rec.seen;
  o.stats = (*sim)->stats();
  return o;
}

// Checks legality, completeness and config-space order; returns the number of bursts.
std::uint64_t verify(const Setup& s, const Outcome& o) {
  const DramTiming t = *dram_timing(s.standard, s.bl);
  const AddressMap map = *controller_address_map(s.map, s.ranks, s.channels);
  const ConfigSpace cs = ConfigSpace::at_top(map.capacity_bytes());
  std::uint64_t end = 0;
  for (unsigned ch = 0; ch < s.channels; ++ch) {
    TimingChecker checker(t, s.ranks, 8);
    const auto st = checker.observe(o.bus[ch]);
    REQUIRE_MESSAGE(st.ok(), st.error().message);
    if (!o.bus[ch].empty()) end = std::max(end, o.bus[ch].back().cycle);
    CHECK(checker.counts().reads + checker.counts().writes == o.truth[ch].size());
    // The ground truth names the same bank, row and column as the pins.
    std::size_t k = 0;
    for (const auto& c : o.bus[ch]) {
      const auto w = decode_pins(c.pins);
      if (w.cmd != DdrCommand::Read && w.cmd != DdrCommand::Write) continue;
      REQUIRE(k < o.truth[ch].size());
      const IssuedAccess& a = o.truth[ch][k++];
      const DramCoordinates where = map.decompose(a.address);
      CHECK(a.cycle == c.cycle);
      CHECK(a.write == (w.cmd == DdrCommand::Write));
      CHECK(where.bank == w.bank);
      CHECK(where.rank == w.rank);
      CHECK(where.column == w.addr);
      CHECK(where.channel == ch);
    }
  }
  for (unsigned ch = 0; ch < s.channels; ++ch) {
    TimingChecker checker(t, s.ranks, 8);
    REQUIRE(checker.observe(o.bus[ch]).ok());
    CHECK(checker.finish(end).ok());
  }
  // Completeness: each request's bursts, exactly once each.
  std::map<std::uint64_t, std::vector<std::uint64_t>> got;  // request id -> burst addresses
  std::uint64_t total = 0;
  std::vector<const IssuedAccess*> config;
  for (const auto& v : o.truth)
    for (const auto& a : v) {
      got[a.request].push_back(a.address);
      ++total;
      if (a.config_space) config.push_back(&a);
    }
  const std::uint64_t bb = t.burst_bytes();
  std::uint64_t expected = 0;
  for (std::size_t id = 0; id < o.requests.size(); ++id) {
    const MemoryRequest& q = o.requests[id];
    std::vector<std::uint64_t> want;
    if (cs.contains(q.address)) {
      want.push_back(q.address - q.address % bb);
    } else {
      for (std::uint64_t a = q.address - q.address % bb; a < q.address + q.size; a += bb) want.push_back(a);
    }
    auto have = got[id];
    std::sort(have.begin(), have.end());
    REQUIRE_MESSAGE(have == want, "request " << id);
    expected += want.size();
  }
  CHECK(total == expected);
  CHECK(o.stats.bursts == expected);
  CHECK(o.stats.requests == o.requests.size());
  // Config-space accesses: issued in request order, BEGIN before any data, END after all.
  std::sort(config.begin(), config.end(), [](auto* x, auto* y) { return x->cycle < y->cycle; });
  std::vector<std::uint32_t> order;
  for (auto* a : config) order.push_back(cs.index_of(a->address));
  std::vector<std::uint32_t> want_order;
  for (const auto& q : o.requests)
    if (cs.contains(q.address)) want_order.push_back(cs.index_of(q.address));
  CHECK(order == want_order);
  REQUIRE(config.size() >= 2);
  for (const auto& v : o.truth)
    for (const auto& a : v)
      if (!a.config_space) {
        CHECK(a.cycle > config.front()->cycle);
        CHECK(a.cycle < config.back()->cycle);
      }
  return total;
}

}  // namespace

TEST_CASE("every built-in workload: legal, complete, config space in order") {
  for (const auto& name : workload_names()) {
    Setup s;
    s.workload = name;
    CAPTURE(name);
    const Outcome o = simulate(s);
    CHECK(verify(s, o) > s.requests);
  }
}

TEST_CASE("all standards, policies, ranks, channels and maps") {
  for (auto std_ : {DdrStandard::Ddr200, DdrStandard::Ddr2_400, DdrStandard::Ddr2_800})
    for (auto policy : {PagePolicy::OpenPage, PagePolicy::ClosePage})
      for (unsigned ranks : {1u, 2u})
        for (unsigned channels : {1u, 2u})
          for (const char* map : {"open-page", "interleaved"}) {
            Setup s;
            s.standard = std_;
            s.policy = policy;
            s.ranks = ranks;
            s.channels = channels;
            s.map = map;
            s.workload = "random-read";
            s.requests = 300;
            s.bl = ranks == 2 ? 4 : 8;
            CAPTURE(standard_name(std_));
            CAPTURE(static_cast<int>(policy));
            CAPTURE(ranks);
            CAPTURE(channels);
            CAPTURE(map);
            const Outcome o = simulate(s);
            verify(s, o);
            if (channels == 2 && std::string(map) == "interleaved") {
              CHECK(o.truth[0].size() > 0);
              CHECK(o.truth[1].size() > 0);
            }
          }
}

TEST_CASE("the same seed gives the same command bus, another seed another") {
  Setup s;
  s.workload = "random-read";
  s.requests = 3000;
  const Outcome a = simulate(s);
  const Outcome b = simulate(s);
  CHECK(a.bus[0] == b.bus[0]);
  CHECK(a.truth[0] == b.truth[0]);
  s.seed = 2;
  const Outcome c = simulate(s);
  CHECK(a.bus[0] != c.bus[0]);
}

TEST_CASE("only one simulation at a time; bad requests are errors naming the request") {
  ControllerConfig cfg;
  cfg.timing = *dram_timing(DdrStandard::Ddr2_400);
  cfg.map = *controller_address_map("open-page", 1, 1);
  cfg.config_space = ConfigSpace::at_top(cfg.map.capacity_bytes());
  std::vector<Reference> none;
  MicroBenchmarkConfig mc;
  mc.requests = 3;
  mc.base = 4ull << 30;  // beyond the 1 GiB the map covers
  auto w = MicroBenchmark::create(mc).value();
  auto first = ControllerSimulation::create(cfg, *w);
  REQUIRE(first.ok());
  auto second = ControllerSimulation::create(cfg, *w);
  REQUIRE_FALSE(second.ok());
  CHECK(second.error().message.find("already exists") != std::string::npos);
  std::vector<BusCycle> b(16);
  auto r = (*first)->bus(0).read(b);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("request 0") != std::string::npos);
  CHECK(r.error().message.find("outside") != std::string::npos);
  cfg.ranks = 2;  // the map has one rank
  first.value().reset();
  auto bad = ControllerSimulation::create(cfg, *w);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("rank") != std::string::npos);
}

TEST_CASE("a simulation dropped half way leaves the kernel ready for the next one") {
  Setup s;
  s.workload = "seq-read";
  s.requests = 1000;
  const Outcome full = simulate(s);
  {
    ControllerConfig cfg;
    cfg.timing = *dram_timing(DdrStandard::Ddr2_400);
    cfg.map = *controller_address_map("open-page", 1, 1);
    cfg.config_space = ConfigSpace::at_top(cfg.map.capacity_bytes());
    cfg.record_ground_truth = false;
    MicroBenchmarkConfig mc;
    mc.requests = 100000;
    auto w = MicroBenchmark::create(mc).value();
    auto sim = ControllerSimulation::create(cfg, *w);
    REQUIRE(sim.ok());
    std::vector<BusCycle> b(100);
    auto r = (*sim)->bus(0).read(b);
    REQUIRE(r.ok());
    CHECK(*r == 100);
    CHECK_FALSE((*sim)->done());
  }  // destroyed with its processes suspended in the kernel
  const Outcome again = simulate(s);
  CHECK(again.bus[0] == full.bus[0]);  // cycles count from each simulation's own start
  verify(s, again);
}

TEST_CASE("sequential reads reach the data-bus peak of HMTT Appendix A.2, eq. (4)-(6)") {
  // cmdfrq = FREQ / max(2 tCCD, BL) READs per data-rate clock: one BL8 burst every BL/2 = 4
  // command cycles. Refresh (tRPA + tRFC every tREFI) is the only allowed loss (< 2.5 %).
  for (auto std_ : {DdrStandard::Ddr200, DdrStandard::Ddr2_400, DdrStandard::Ddr2_800}) {
    Setup s;
    s.standard = std_;
    s.workload = "seq-read";
    s.requests = 20000;
    s.event_every = 0;
    const Outcome o = simulate(s);
    const auto& bus = o.bus[0];
    std::uint64_t first = 0, last = 0, reads = 0;
    for (const auto& c : bus)
      if (decode_pins(c.pins).cmd == DdrCommand::Read) {
        if (reads++ == 0) first = c.cycle;
        last = c.cycle;
      }
    const double per_burst = static_cast<double>(last - first) / static_cast<double>(reads - 1);
    CAPTURE(standard_name(std_));
    CHECK(per_burst >= 4.0);
    CHECK(per_burst < 4.0 * 1.025);
  }
}
