// Replacement policies of a set-associative cache: one interface, one class
// per policy (src/replacement_*.cpp), one factory. A policy keeps its own
// per-set state; the cache tells it about hits and fills and asks it for a
// victim only when every way of the set is valid.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "hmtt/result.h"

namespace hmtt::analysis {

class ReplacementPolicy {
 public:
  virtual ~ReplacementPolicy() = default;
  virtual std::string_view name() const = 0;
  // A hit on `way` of `set`.
  virtual void on_hit(std::size_t set, std::size_t way) = 0;
  // A new line was placed in `way` of `set`.
  virtual void on_fill(std::size_t set, std::size_t way) = 0;
  // The way to evict from a full `set`.
  virtual std::size_t victim(std::size_t set) = 0;
};

// name: lru, fifo, random, plru (tree pseudo-LRU; ways must be a power of two).
// seed: the random policy's generator seed (same seed, same victims).
Result<std::unique_ptr<ReplacementPolicy>> make_replacement_policy(std::string_view name, std::size_t sets,
                                                                   std::size_t ways, std::uint64_t seed);

}  // namespace hmtt::analysis
