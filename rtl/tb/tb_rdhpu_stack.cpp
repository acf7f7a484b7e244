// Bench of hmtt_rdhpu_stack (Depth TB_DEPTH, TagWidth TB_TAGW): page streams of
// several shapes (small and large page sets, runs of one page, a hot set,
// cyclic strides around the depth, bubbles) against the naive exact LRU stack
// hmtt::board::LruStackDistance. Every result is checked in the cycle it must
// leave the array (exactly Depth cycles after its access): valid, page, hit,
// distance and the evicted page. Over a million accesses, zero mismatches.
#include <doctest/doctest.h>

#include <cstdint>
#include <deque>
#include <random>

#include "hmtt/board/lru_stack_distance.h"
#include "tb_common.h"

#ifndef TB_DEPTH
#define TB_DEPTH 128
#endif
#ifndef TB_TAGW
#define TB_TAGW 24
#endif

using namespace hmtt;

namespace {

constexpr unsigned kDepth = TB_DEPTH;
constexpr std::uint64_t kTagMask = (std::uint64_t{1} << TB_TAGW) - 1;

enum class Shape { Small, Boundary, Large, Runs, Hot, Cyclic, Sparse };

struct Expected {
  std::uint64_t due;
  std::uint64_t page;
  board::StackAccess r;
};

// One page stream; every shape also leaves some cycles idle.
class Stream {
 public:
  Stream(Shape s, std::uint64_t seed) : shape_(s), rng_(seed) {}
  // Returns false for an idle cycle.
  bool next(std::uint64_t& page) {
    const unsigned idle_pct = shape_ == Shape::Sparse ? 25 : 5;
    if (rng_() % 100 < idle_pct) return false;
    switch (shape_) {
      case Shape::Small: page = 1000 + rng_() % 64; break;
      case Shape::Boundary: page = rng_() % (kDepth + kDepth / 2); break;
      case Shape::Large: page = rng_(); break;
      case Shape::Runs:
        if (run_ == 0) {
          cur_ = rng_() % (kDepth * 3);
          run_ = 1 + static_cast<unsigned>(rng_() % 8);
        }
        --run_;
        page = cur_;
        break;
      case Shape::Hot: page = rng_() % 10 < 9 ? 7 * (rng_() % 16) : rng_(); break;
      case Shape::Cyclic: {
        // Cycles over n pages with n around the depth (LRU's worst case), n changing now and then.
        if (k_ % 5000 == 0) n_ = kDepth - 1 + static_cast<unsigned>(rng_() % 3);
        page = 0x40000 + (k_ % n_) * 4096 / 64;
        ++k_;
        break;
      }
      case Shape::Sparse: page = rng_() % (2 * kDepth); break;
    }
    page &= kTagMask;
    return true;
  }

 private:
  Shape shape_;
  std::mt19937_64 rng_;
  std::uint64_t cur_ = 0;
  unsigned run_ = 0;
  std::uint64_t k_ = 0;
  unsigned n_ = kDepth;
};

}  // namespace

TEST_CASE("hmtt_rdhpu_stack: every distance equals the exact LRU stack's, Depth cycles later") {
  tb::Bench<Vhmtt_rdhpu_stack> b;
  b.dut->req_valid_i = 0;
  b.dut->req_tag_i = 0;
  b.reset();
  board::LruStackDistance ref(kDepth);
  std::deque<Expected> pending;
  std::uint64_t cycle = 0, accesses = 0, hits = 0, evictions = 0, mismatches = 0;
  std::uint64_t dist_sum = 0;
  const Shape shapes[] = {Shape::Small, Shape::Boundary, Shape::Large, Shape::Runs,
                          Shape::Hot,   Shape::Cyclic,   Shape::Sparse, Shape::Small};
  const std::uint64_t per_shape = 140000;
  for (unsigned si = 0; si < sizeof shapes / sizeof shapes[0]; ++si) {
    Stream s(shapes[si], 17 + si);
    for (std::uint64_t k = 0; k < per_shape; ++k, ++cycle) {
      std::uint64_t page = 0;
      const bool v = s.next(page);
      b.dut->req_valid_i = v;
      b.dut->req_tag_i = page;
      // The outputs are registered: valid since the last edge, no settle() needed.
      const bool due = !pending.empty() && pending.front().due == cycle;
      bool ok = b.dut->res_valid_o == due;
      if (due && ok) {
        const Expected& e = pending.front();
        ok = b.dut->res_tag_o == e.page && b.dut->res_hit_o == e.r.hit &&
             b.dut->res_dist_o == (e.r.hit ? e.r.distance : 0u) && b.dut->res_evict_valid_o == e.r.evicted &&
             (!e.r.evicted || b.dut->res_evict_tag_o == e.r.evicted_page);
        if (!ok && mismatches < 5) {
          MESSAGE("cycle " << cycle << " page " << e.page << ": rtl hit " << int(b.dut->res_hit_o) << " dist "
                           << int(b.dut->res_dist_o) << ", ref hit " << e.r.hit << " dist " << e.r.distance);
        }
      }
      if (!ok) ++mismatches;
      if (due) pending.pop_front();
      if (v) {
        const board::StackAccess r = ref.access(page);
        pending.push_back(Expected{cycle + kDepth, page, r});
        ++accesses;
        hits += r.hit;
        evictions += r.evicted;
        if (r.hit) dist_sum += r.distance;
      }
      b.edge();
    }
  }
  // Drain.
  for (unsigned k = 0; k <= kDepth; ++k, ++cycle) {
    b.dut->req_valid_i = 0;
    const bool due = !pending.empty() && pending.front().due == cycle;
    if (b.dut->res_valid_o != due) ++mismatches;
    if (due) {
      const Expected& e = pending.front();
      if (b.dut->res_tag_o != e.page || b.dut->res_hit_o != e.r.hit ||
          b.dut->res_dist_o != (e.r.hit ? e.r.distance : 0u))
        ++mismatches;
      pending.pop_front();
    }
    b.edge();
  }
  MESSAGE("depth " << kDepth << ": " << accesses << " accesses, " << hits << " hits, " << evictions
                   << " evictions, mean hit distance " << (hits ? double(dist_sum) / double(hits) : 0.0));
  CHECK(pending.empty());
  CHECK(accesses >= 1000000);
  // Every shape exercised hits deep in the stack and misses.
  CHECK(hits > accesses / 4);
  CHECK(evictions > accesses / 10);
  CHECK(mismatches == 0);
}

TEST_CASE("hmtt_rdhpu_stack: known answers") {
  tb::Bench<Vhmtt_rdhpu_stack> b;
  b.dut->req_valid_i = 0;
  b.reset();
  // a b c a a d b: miss miss miss 2 0 miss 3, back to back.
  const std::uint64_t pages[] = {10, 11, 12, 10, 10, 13, 11};
  const bool hit[] = {false, false, false, true, true, false, true};
  const unsigned dist[] = {0, 0, 0, 2, 0, 0, 3};
  unsigned seen = 0;
  for (unsigned c = 0; c < 7 + kDepth + 1; ++c) {
    b.dut->req_valid_i = c < 7;
    b.dut->req_tag_i = c < 7 ? pages[c] : 0;
    b.settle();
    if (c >= kDepth && c < kDepth + 7) {
      const unsigned k = c - kDepth;
      CAPTURE(k);
      REQUIRE(b.dut->res_valid_o);
      CHECK(b.dut->res_tag_o == pages[k]);
      CHECK(b.dut->res_hit_o == hit[k]);
      CHECK(b.dut->res_dist_o == dist[k]);
      ++seen;
    } else {
      CHECK(!b.dut->res_valid_o);
    }
    b.edge();
  }
  CHECK(seen == 7);
}
