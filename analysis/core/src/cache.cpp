#include "hmtt/analysis/cache.h"

#include <bit>

namespace hmtt::analysis {

Result<Cache> Cache::create(const CacheConfig& config) {
  const std::string where = config.name + ": ";
  // Tags hold line + 1 (0 = invalid): a line of at least 2 bytes keeps that from wrapping.
  if (config.line_bytes < 2) return make_error(where + "line size must be at least 2 bytes");
  if (config.size_bytes == 0 || config.size_bytes % config.line_bytes != 0)
    return make_error(where + "size " + std::to_string(config.size_bytes) + " is not a whole number of " +
                      std::to_string(config.line_bytes) + "-byte lines");
  const std::uint64_t lines = config.size_bytes / config.line_bytes;
  const std::uint64_t ways = config.ways == 0 ? lines : config.ways;
  if (lines % ways != 0)
    return make_error(where + std::to_string(lines) + " lines do not divide into " + std::to_string(ways) + " ways");
  if (lines > (std::uint64_t{1} << 24)) return make_error(where + std::to_string(lines) + " lines: more than 2^24 lines to simulate");
  Cache c;
  c.config_ = config;
  c.ways_ = ways;
  c.sets_ = lines / ways;
  c.set_mask_ = std::has_single_bit(c.sets_) ? c.sets_ - 1 : 0;
  c.tags_.assign(static_cast<std::size_t>(lines), 0);
  c.dirty_.assign(static_cast<std::size_t>(lines), 0);
  auto p = make_replacement_policy(config.policy, static_cast<std::size_t>(c.sets_),
                                   static_cast<std::size_t>(ways), config.seed);
  if (!p) return make_error(where + p.error().message);
  c.policy_ = std::move(*p);
  return c;
}

int Cache::find_way(std::size_t set, std::uint64_t line) const {
  const std::uint64_t* t = &tags_[set * ways_];
  const std::uint64_t tag = line + 1;
  for (std::size_t w = 0; w < ways_; ++w)
    if (t[w] == tag) return static_cast<int>(w);
  return -1;
}

bool Cache::contains(std::uint64_t line) const { return find_way(set_of(line), line) >= 0; }

bool Cache::invalidate(std::uint64_t line) {
  const std::size_t set = set_of(line);
  const int w = find_way(set, line);
  if (w < 0) return false;
  const std::size_t i = set * ways_ + static_cast<std::size_t>(w);
  if (memo_valid_ && memo_index_ == i) memo_valid_ = false;
  tags_[i] = 0;
  const bool was_dirty = dirty_[i] != 0;
  dirty_[i] = 0;
  ++stats_.invalidations;
  return was_dirty;
}

Cache::Outcome Cache::access(std::uint64_t line, CacheOp op) {
  Outcome out;
  const bool write = op == CacheOp::Write || op == CacheOp::Writeback;
  if (memo_valid_ && memo_line_ == line) {
    out.hit = true;
    switch (op) {
      case CacheOp::Read: ++stats_.reads; ++stats_.read_hits; break;
      case CacheOp::Write: ++stats_.writes; ++stats_.write_hits; break;
      case CacheOp::IFetch: ++stats_.ifetches; ++stats_.ifetch_hits; break;
      case CacheOp::Writeback: ++stats_.writebacks_in; ++stats_.writeback_in_hits; break;
    }
    if (write && config_.write_back) dirty_[memo_index_] = 1;
    return out;
  }
  memo_valid_ = false;
  const std::size_t set = set_of(line);
  const int w = find_way(set, line);
  out.hit = w >= 0;
  switch (op) {
    case CacheOp::Read: ++stats_.reads; stats_.read_hits += out.hit; break;
    case CacheOp::Write: ++stats_.writes; stats_.write_hits += out.hit; break;
    case CacheOp::IFetch: ++stats_.ifetches; stats_.ifetch_hits += out.hit; break;
    case CacheOp::Writeback: ++stats_.writebacks_in; stats_.writeback_in_hits += out.hit; break;
  }
  if (out.hit) {
    const std::size_t i = set * ways_ + static_cast<std::size_t>(w);
    policy_->on_hit(set, static_cast<std::size_t>(w));
    if (write && config_.write_back) dirty_[i] = 1;
    memo_line_ = line;
    memo_index_ = i;
    memo_valid_ = true;
    return out;
  }
  if (write && !config_.write_allocate) return out;
  // Allocate: an invalid way first, else the policy's victim.
  std::uint64_t* t = &tags_[set * ways_];
  std::size_t way = ways_;
  for (std::size_t k = 0; k < ways_; ++k)
    if (t[k] == 0) {
      way = k;
      break;
    }
  if (way == ways_) {
    way = policy_->victim(set);
    out.evicted = true;
    out.victim_line = t[way] - 1;
    out.evicted_dirty = dirty_[set * ways_ + way] != 0;
    if (out.evicted_dirty) ++stats_.writebacks_out;
  }
  t[way] = line + 1;
  dirty_[set * ways_ + way] = (write && config_.write_back) ? 1 : 0;
  policy_->on_fill(set, way);
  out.filled = true;
  memo_line_ = line;
  memo_index_ = set * ways_ + way;
  memo_valid_ = true;
  return out;
}

}  // namespace hmtt::analysis
