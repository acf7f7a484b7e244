// A set-associative cache: sets x ways lines of `line_bytes`, one replacement
// policy, write-back or write-through, write-allocate or not. The cache works
// on line addresses (byte address / line size); splitting a reference into
// lines and talking to the next level is the hierarchy's job (hierarchy.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hmtt/analysis/replacement.h"
#include "hmtt/result.h"

namespace hmtt::analysis {

struct CacheConfig {
  std::string name = "cache";      // e.g. "L1D"
  std::uint64_t size_bytes = 32768;
  std::uint64_t line_bytes = 64;
  std::uint64_t ways = 8;          // 0 = fully associative
  std::string policy = "lru";      // lru, fifo, random, plru
  bool write_back = true;          // false = write-through
  bool write_allocate = true;      // false = a write miss goes around the cache
  std::uint64_t seed = 1;          // random policy seed

  friend bool operator==(const CacheConfig&, const CacheConfig&) = default;
};

// Demand accesses only; write-backs arriving from the level above are counted apart.
struct CacheStats {
  std::uint64_t reads = 0, read_hits = 0;
  std::uint64_t writes = 0, write_hits = 0;
  std::uint64_t ifetches = 0, ifetch_hits = 0;
  std::uint64_t writebacks_in = 0, writeback_in_hits = 0;  // from the level above
  std::uint64_t writebacks_out = 0;                         // dirty evictions sent below
  std::uint64_t invalidations = 0;                          // back-invalidations (inclusive)

  std::uint64_t accesses() const { return reads + writes + ifetches; }
  std::uint64_t hits() const { return read_hits + write_hits + ifetch_hits; }
  std::uint64_t misses() const { return accesses() - hits(); }
  double hit_ratio() const {
    return accesses() == 0 ? 0.0 : static_cast<double>(hits()) / static_cast<double>(accesses());
  }
};

enum class CacheOp : std::uint8_t { Read, Write, IFetch, Writeback };

class Cache {
 public:
  // Validates the geometry: sizes powers of two are not required, but the
  // size must be a whole number of lines and of sets.
  static Result<Cache> create(const CacheConfig& config);

  struct Outcome {
    bool hit = false;
    bool filled = false;          // a line was allocated
    bool evicted_dirty = false;   // a dirty victim must be written below
    bool evicted = false;
    std::uint64_t victim_line = 0;
  };
  // One access to line address `line`.
  Outcome access(std::uint64_t line, CacheOp op);
  bool contains(std::uint64_t line) const;
  // Removes `line` if present; returns true when it was dirty.
  bool invalidate(std::uint64_t line);

  const CacheConfig& config() const { return config_; }
  const CacheStats& stats() const { return stats_; }
  std::uint64_t sets() const { return sets_; }
  std::uint64_t ways() const { return ways_; }

 private:
  Cache() = default;
  std::size_t set_of(std::uint64_t line) const {
    return static_cast<std::size_t>(set_mask_ != 0 || sets_ == 1 ? (line & set_mask_) : (line % sets_));
  }
  int find_way(std::size_t set, std::uint64_t line) const;

  CacheConfig config_;
  std::uint64_t sets_ = 1, ways_ = 1, set_mask_ = 0;
  // Per line: tag = line address + 1 (0 = invalid); dirty flags.
  std::vector<std::uint64_t> tags_;
  std::vector<std::uint8_t> dirty_;
  std::unique_ptr<ReplacementPolicy> policy_;
  CacheStats stats_;
  // The line touched by the previous access, while it is resident: a repeat
  // hit needs no search and no policy update (the line is already the most
  // recently used of its set, and tree-PLRU already points away from it).
  std::uint64_t memo_line_ = 0;
  std::size_t memo_index_ = 0;
  bool memo_valid_ = false;
};

}  // namespace hmtt::analysis
