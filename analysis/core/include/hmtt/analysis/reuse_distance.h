// Reuse distance (LRU stack distance): for each reference, the number of
// distinct other blocks referenced since the previous reference to the same
// block; a first reference has an infinite distance (a cold miss). A
// fully-associative LRU cache of depth d blocks hits exactly the references of
// distance < d, so one pass gives the hit rate of every depth.
//
//   LruStackDistance          exact, O(log N) per reference: a bit per trace
//                             position marks the last access of each block, a
//                             Fenwick tree over 64-bit words counts the marks
//                             after a position, and a BlockMap finds a block's
//                             last position. Positions are renumbered when the
//                             bitmap fills, so memory is O(distinct blocks).
//   ReuseHistogram            counts of exact distances in power-of-two buckets.
//   SampledReuseDistance      SHARDS (Waldspurger et al., FAST'15) fixed-rate
//                             spatial sampling: only blocks whose hash falls
//                             under rate R are tracked, their distances scaled
//                             by 1/R, with the SHARDS-adj correction. Scaled
//                             distances cannot resolve depths below about 1/R
//                             blocks, so depths up to `near_limit` come from
//                             temporal sampling instead: every `period`-th
//                             reference gets its exact distance (up to the
//                             limit) by a scan back through a ring of the last
//                             `history` blocks. Beyond the limit, the curve is
//                             the temporal miss ratio at the limit less the
//                             share of spatial samples whose scaled distance
//                             falls between the limit and the depth. Depths
//                             must be given in ascending order.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hmtt/analysis/block_map.h"

namespace hmtt::analysis {

inline constexpr std::uint64_t kColdMiss = ~std::uint64_t{0};

// Block number of a byte address for any block size >= 1 (a shift when the size is a power of two).
class BlockSize {
 public:
  explicit BlockSize(std::uint64_t bytes = 64);
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t block_of(std::uint64_t address) const {
    return shift_ >= 0 ? address >> shift_ : address / bytes_;
  }

 private:
  std::uint64_t bytes_;
  int shift_;
};

class LruStackDistance {
 public:
  explicit LruStackDistance(std::uint64_t block_bytes = 64);
  // Distance of a reference to `address` (kColdMiss for the first reference to its block).
  std::uint64_t access(std::uint64_t address) { return access_block(block_.block_of(address)); }
  std::uint64_t access_block(std::uint64_t block);
  // The same for a batch of blocks (distances.size() >= blocks.size()); faster,
  // since it prefetches the hash slots of blocks a few references ahead.
  void access_blocks(std::span<const std::uint64_t> blocks, std::span<std::uint64_t> distances);
  std::uint64_t distinct_blocks() const { return live_; }
  const BlockSize& block_size() const { return block_; }

 private:
  std::uint64_t rank_inclusive(std::uint64_t pos) const;  // marks at positions <= pos
  void fenwick_add(std::size_t word, std::int32_t delta);
  void renumber();

  BlockSize block_;
  BlockMap last_;                    // block -> last position + 1
  std::vector<std::uint64_t> bits_;  // one bit per position: set = last access of its block
  std::vector<std::int32_t> tree_;   // Fenwick tree over popcounts of bits_ words (1-based)
  std::uint64_t now_ = 0;            // next position
  std::uint64_t live_ = 0;           // set bits = distinct blocks
  // A reference to the block of the reference just before it leaves the stack
  // as it is: distance 0 without touching the structures.
  std::uint64_t previous_block_ = 0;
  bool has_previous_ = false;
};

// Point of a miss-ratio curve: fully-associative LRU cache of `depth` blocks.
struct CurvePoint {
  std::uint64_t depth = 0;
  double miss_ratio = 0;
};
using MissRatioCurve = std::vector<CurvePoint>;

// The 17 Chameleon depths 2^0 .. 2^16 blocks.
std::vector<std::uint64_t> chameleon_depths();

// Mean and maximum absolute difference of two curves sampled at the same depths.
struct CurveError {
  double mean_abs = 0;
  double max_abs = 0;
};
CurveError curve_error(const MissRatioCurve& a, const MissRatioCurve& b);

class ReuseHistogram {
 public:
  void add(std::uint64_t distance);
  std::uint64_t total() const { return total_; }
  std::uint64_t cold() const { return cold_; }
  // bucket 0 = distance 0; bucket k >= 1 = distances [2^(k-1), 2^k).
  const std::vector<std::uint64_t>& buckets() const { return buckets_; }
  // References of distance < depth; depth must be a power of two (or 0).
  std::uint64_t hits_below(std::uint64_t depth) const;
  double hit_ratio(std::uint64_t depth) const;
  MissRatioCurve curve(std::span<const std::uint64_t> depths) const;
  static std::size_t bucket_of(std::uint64_t distance);

 private:
  std::vector<std::uint64_t> buckets_;
  std::uint64_t total_ = 0;
  std::uint64_t cold_ = 0;
};

class SampledReuseDistance {
 public:
  // rate in (0, 1]; seed selects the hash, so different seeds sample different blocks.
  // near_limit: depths <= it come from temporal samples (0 = pure SHARDS); period
  // and history must be powers of two, history > near_limit.
  SampledReuseDistance(std::uint64_t block_bytes, double rate, std::uint64_t seed = 0,
                       std::uint32_t near_limit = 256, std::uint32_t period = 256, std::uint32_t history = 16384);
  void access(std::uint64_t address) {
    const std::uint64_t b = block_.block_of(address);
    ring_[references_ & ring_mask_] = b;
    ++references_;
    if (near_limit_ != 0 && (references_ & period_mask_) == 0) near_sample(b);
    if ((hash(b) & kModulusMask) < threshold_) record(b);
  }
  void access(std::span<const std::uint64_t> addresses) {
    for (std::uint64_t a : addresses) access(a);
  }
  double rate() const { return rate_; }
  std::uint64_t references() const { return references_; }
  std::uint64_t sampled() const { return sampled_; }
  std::uint64_t near_samples() const { return near_samples_; }
  std::uint32_t near_limit() const { return near_limit_; }
  // Estimated miss ratio of each depth (blocks), SHARDS-adj corrected.
  MissRatioCurve curve(std::span<const std::uint64_t> depths) const;

 private:
  static constexpr std::uint64_t kModulusBits = 24;
  static constexpr std::uint64_t kModulusMask = (std::uint64_t{1} << kModulusBits) - 1;
  std::uint64_t hash(std::uint64_t b) const {
    std::uint64_t x = b ^ seed_;
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dULL;
    x ^= x >> 33;
    return x;
  }
  void record(std::uint64_t block);
  void near_sample(std::uint64_t block);

  BlockSize block_;
  double rate_;
  std::uint64_t threshold_;
  std::uint64_t seed_;
  LruStackDistance exact_;
  std::vector<std::uint64_t> by_distance_;  // sampled distance -> count (last = overflow)
  std::uint64_t references_ = 0;
  std::uint64_t sampled_ = 0;
  std::uint64_t sampled_cold_ = 0;
  // temporal sampling of small distances
  std::uint32_t near_limit_;
  std::uint64_t period_mask_;
  std::vector<std::uint64_t> ring_;
  std::uint64_t ring_mask_;
  std::vector<std::uint64_t> near_counts_;  // distance < near_limit -> samples; [near_limit] = farther or cold
  std::uint64_t near_samples_ = 0;
  std::vector<std::uint64_t> seen_keys_;    // scan-local set, stamped by generation
  std::vector<std::uint32_t> seen_gen_;
  std::uint32_t generation_ = 0;
};

}  // namespace hmtt::analysis
