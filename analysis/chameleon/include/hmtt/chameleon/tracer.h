// The Chameleon tracer (paper section 2.2, with the sampling of section 3):
// one pass over the references captures the memory signature.
//
//   - the reuse distance of every reference at the widest block (an exact LRU
//     stack, analysis::LruStackDistance), counted in the signature histogram;
//   - per block, an access-history tree (AccessHistoryTrees): a binary tree
//     whose root is the block and whose leaves are its words. An access walks
//     root to leaf; at every node visited before it counts "yes" for the
//     node's level (and the reference's alpha bin) when it takes the same
//     edge as the previous visit, "no" otherwise; a node's first visit
//     counts only its direction;
//   - with shape.line_bytes, the reuse distance of the referenced line at
//     every width from line_bytes to block_bytes / 2 (an exact LRU stack
//     each), counted per width and alpha bin of the block distance;
//   - with shape.layout_bytes, at every first touch of a block: which of the
//     last kLayoutStreams new blocks it directly follows, else its distance in
//     blocks from the block first touched before it, modulo the layout span;
//   - interval sampling (section 3.1): `sample_on` references characterised,
//     then `sample_off` skipped; the history (stack and trees) starts empty
//     at every interval, exactly the cold-start penalty the paper describes;
//   - regions (section 3.2's basic-block signatures): references are
//     attributed to code regions by time; the simulation state is shared, only
//     the counts are kept per region.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hmtt/analysis/code_regions.h"
#include "hmtt/analysis/reuse_distance.h"
#include "hmtt/chameleon/signature.h"

namespace hmtt::chameleon {

// Code regions (hmtt/analysis/code_regions.h): one signature per region id.
using analysis::CodeRegion;
using analysis::kOtherRegionId;

// Per-block access-history trees: a visited bit and a direction bit per node,
// and a visited bit per leaf (heap order: leaves are 2^levels .. 2^(levels+1)-1).
class AccessHistoryTrees {
 public:
  // With `ages`, every node (and leaf) is also stamped with the clock of the
  // reference that last passed it (the reference index, modulo 2^32).
  AccessHistoryTrees(std::size_t levels, bool ages);
  // Index of a new tree (all nodes unvisited).
  std::uint32_t add();
  void clear() { bits_.clear(); stamps_.clear(); trees_ = 0; }
  std::size_t levels() const { return levels_; }
  // Node `node` (heap order: root 1, children 2n and 2n+1) of tree `t`.
  bool visited(std::uint32_t t, std::size_t node) const { return bit(t, 0, node); }
  bool went_right(std::uint32_t t, std::size_t node) const { return bit(t, 1, node); }
  // Visited nodes of tree `t` at `depth` (the root is depth 0): for the depth of
  // the lines, how many of the block's lines were used.
  std::size_t visited_at_depth(std::uint32_t t, std::size_t depth) const;
  void mark(std::uint32_t t, std::size_t node, bool right, std::uint32_t now = 0);
  // Starts a visit of tree `t`: its number (1, 2, ...; 0 without ages), the clock of age_in_visits.
  std::uint32_t visit(std::uint32_t t) { return ages_ ? ++stamps_[t * stride_] : 0; }
  // Clock ticks since `node` was last passed (>= 1) at clock `now`; 1 without ages.
  std::uint64_t age(std::uint32_t t, std::size_t node, std::uint32_t now) const {
    return ages_ ? static_cast<std::uint32_t>(now - stamps_[t * stride_ + node]) : 1;
  }

 private:
  bool bit(std::uint32_t t, std::size_t plane, std::size_t node) const {
    const std::uint64_t w = bits_[(t * 2 + plane) * words_ + node / 64];
    return (w >> (node % 64)) & 1u;
  }
  std::size_t levels_;
  std::size_t words_;  // 64-bit words per plane
  std::vector<std::uint64_t> bits_;
  bool ages_;
  std::size_t stride_;  // stamps per tree, indexed by node ([0] = visits of the tree)
  std::vector<std::uint32_t> stamps_;
  std::uint32_t trees_ = 0;
};

struct TracerOptions {
  SignatureShape shape;
  std::uint64_t sample_on = 0;   // references characterised per interval; 0 = all (no sampling)
  std::uint64_t sample_off = 0;  // references skipped after each interval
  std::vector<CodeRegion> regions;  // empty = one signature for the whole trace
};

class SignatureTracer {
 public:
  explicit SignatureTracer(TracerOptions options);
  // One reference, in stream order.
  void access(const Reference& ref);
  void access(std::span<const Reference> refs) {
    for (const Reference& r : refs) access(r);
  }
  // After the last reference: sums the regions into the whole signature.
  void finish();
  std::uint64_t seen() const { return seen_; }          // references offered
  std::uint64_t sampled() const { return whole_.references; }
  // The whole trace's signature (the sum of the regions' signatures).
  const MemorySignature& signature() const { return whole_; }
  // One signature per region ID (in order of first appearance in the map);
  // the last is "other" (references in no region).
  const std::vector<MemorySignature>& region_signatures() const { return per_region_; }
  // The region (id, name of its first interval) behind region_signatures()[i], i < size - 1.
  const std::vector<CodeRegion>& region_ids() const { return ids_; }

 private:
  void restart_history();
  std::size_t slot_of(std::uint64_t time);    // per_region_ index

  TracerOptions options_;
  std::size_t levels_;
  std::uint64_t word_shift_;
  std::unique_ptr<analysis::LruStackDistance> stack_;
  std::vector<std::unique_ptr<analysis::LruStackDistance>> line_stacks_;  // at line_bytes << w
  analysis::BlockMap tree_of_;  // block -> tree index + 1
  AccessHistoryTrees trees_;
  MemorySignature whole_;
  std::vector<MemorySignature> per_region_;
  std::vector<CodeRegion> ids_;               // one per distinct region id
  std::vector<std::size_t> slot_of_interval_;  // options_.regions[i] -> per_region_ index
  analysis::RegionCursor cursor_;  // options_.regions: the interval of a reference
  std::uint64_t seen_ = 0;
  std::array<std::uint64_t, kLayoutStreams> new_blocks_{};  // layout: the last new blocks, most recent first
  std::size_t have_new_blocks_ = 0;   // how many of them are set (0 after a sampling restart)
};

}  // namespace hmtt::chameleon
