// The software reference of the RDHPU's LRU stack (rtl/hmtt_rdhpu_stack.v,
// docs/board.md section 11): a naive exact LRU stack of page numbers capped at
// Depth entries. access(p) returns p's stack distance (the number of distinct
// other pages accessed since the last access to p) when p is among the Depth
// most recent pages, a miss otherwise (first access included); then p moves to
// the top and, on a miss with a full stack, the least recently used page leaves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace hmtt::board {

struct StackAccess {
  bool hit = false;
  unsigned distance = 0;       // valid on a hit: 0 .. depth-1
  bool evicted = false;        // a miss pushed the least recently used page out
  std::uint64_t evicted_page = 0;
};

class LruStackDistance {
 public:
  explicit LruStackDistance(std::size_t depth) : depth_(depth) { stack_.reserve(depth); }
  StackAccess access(std::uint64_t page);
  std::size_t depth() const { return depth_; }
  // Most recently used first.
  const std::vector<std::uint64_t>& stack() const { return stack_; }

 private:
  std::size_t depth_;
  std::vector<std::uint64_t> stack_;
};

}  // namespace hmtt::board
