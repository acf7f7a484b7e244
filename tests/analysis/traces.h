// Trace generators and naive oracles shared by the analysis tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "hmtt/reference.h"

namespace hmtt::testing {

inline Reference ref(std::uint64_t address, Kind kind = Kind::Read, std::uint64_t time = 0,
                     std::uint32_t size = 8) {
  Reference r;
  r.address = address;
  r.kind = kind;
  r.time = time;
  r.size = size;
  return r;
}

// Uniform random byte addresses over `footprint` bytes (aligned to 8).
inline std::vector<Reference> random_trace(std::size_t n, std::uint64_t footprint, std::uint32_t seed,
                                           double write_fraction = 0.3) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> addr(0, footprint / 8 - 1);
  std::bernoulli_distribution wr(write_fraction);
  std::vector<Reference> t;
  for (std::size_t i = 0; i < n; ++i) t.push_back(ref(addr(rng) * 8, wr(rng) ? Kind::Write : Kind::Read, i));
  return t;
}

// Adversarial for LRU: a cyclic sweep over `blocks` blocks (all misses when
// the cache is one block smaller), mixed with hot re-references and strided runs.
inline std::vector<Reference> adversarial_trace(std::size_t n, std::uint64_t blocks, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Reference> t;
  std::uint64_t cursor = 0;
  while (t.size() < n) {
    switch (rng() % 4) {
      case 0:  // cyclic sweep
        for (std::uint64_t i = 0; i < blocks && t.size() < n; ++i) t.push_back(ref(((cursor++) % blocks) * 64));
        break;
      case 1:  // hot block hammered
        for (int i = 0; i < 20 && t.size() < n; ++i) t.push_back(ref((rng() % 3) * 64 + 8, Kind::Write));
        break;
      case 2: {  // strided run
        std::uint64_t base = (rng() % 1024) * 4096;
        std::uint64_t stride = 64 * (1 + rng() % 9);
        for (int i = 0; i < 50 && t.size() < n; ++i) t.push_back(ref(base + stride * static_cast<std::uint64_t>(i)));
        break;
      }
      default:  // scattered, including huge addresses
        for (int i = 0; i < 10 && t.size() < n; ++i) t.push_back(ref(rng() & ~std::uint64_t{7}));
    }
  }
  return t;
}

// Brute-force LRU stack: O(M) per reference.
class NaiveLruStack {
 public:
  std::uint64_t access_block(std::uint64_t b) {
    auto it = std::find(stack_.begin(), stack_.end(), b);
    std::uint64_t d;
    if (it == stack_.end()) {
      d = ~std::uint64_t{0};
    } else {
      d = static_cast<std::uint64_t>(it - stack_.begin());
      stack_.erase(it);
    }
    stack_.insert(stack_.begin(), b);
    return d;
  }

 private:
  std::vector<std::uint64_t> stack_;  // most recent first
};

}  // namespace hmtt::testing
