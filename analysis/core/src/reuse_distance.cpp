#include "hmtt/analysis/reuse_distance.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace hmtt::analysis {

namespace {
constexpr std::uint64_t kInitialPositions = std::uint64_t{1} << 20;
constexpr std::size_t kMaxSampledDistance = std::size_t{1} << 22;
}  // namespace

BlockSize::BlockSize(std::uint64_t bytes) : bytes_(bytes == 0 ? 1 : bytes) {
  shift_ = std::has_single_bit(bytes_) ? std::countr_zero(bytes_) : -1;
}

LruStackDistance::LruStackDistance(std::uint64_t block_bytes)
    : block_(block_bytes), bits_(kInitialPositions / 64, 0), tree_(kInitialPositions / 64 + 1, 0) {}

void LruStackDistance::fenwick_add(std::size_t word, std::int32_t delta) {
  for (std::size_t i = word + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
}

std::uint64_t LruStackDistance::rank_inclusive(std::uint64_t pos) const {
  const std::size_t word = static_cast<std::size_t>(pos >> 6);
  std::int64_t sum = 0;
  for (std::size_t i = word; i > 0; i -= i & (~i + 1)) sum += tree_[i];
  const std::uint64_t bit = pos & 63;
  const std::uint64_t mask = bit == 63 ? ~std::uint64_t{0} : ((std::uint64_t{1} << (bit + 1)) - 1);
  return static_cast<std::uint64_t>(sum) + static_cast<std::uint64_t>(std::popcount(bits_[word] & mask));
}

std::uint64_t LruStackDistance::access_block(std::uint64_t block) {
  if (has_previous_ && block == previous_block_) return 0;
  previous_block_ = block;
  has_previous_ = true;
  if (now_ == bits_.size() * 64) renumber();
  std::uint64_t& slot = last_.upsert(block);
  std::uint64_t distance;
  if (slot == 0) {
    distance = kColdMiss;
    ++live_;
  } else {
    const std::uint64_t pos = slot - 1;
    distance = live_ - rank_inclusive(pos);
    bits_[pos >> 6] &= ~(std::uint64_t{1} << (pos & 63));
    fenwick_add(static_cast<std::size_t>(pos >> 6), -1);
  }
  bits_[now_ >> 6] |= std::uint64_t{1} << (now_ & 63);
  fenwick_add(static_cast<std::size_t>(now_ >> 6), 1);
  slot = ++now_;
  return distance;
}

void LruStackDistance::access_blocks(std::span<const std::uint64_t> blocks, std::span<std::uint64_t> distances) {
  constexpr std::size_t kAhead = 12;
  const std::size_t n = blocks.size();
  for (std::size_t i = 0; i < n && i < kAhead; ++i) last_.prefetch(blocks[i]);
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) last_.prefetch(blocks[i + kAhead]);
    distances[i] = access_block(blocks[i]);
  }
}

// Renumbers the live positions 0..live-1 in order (a position's new number is its
// rank), and grows the bitmap so that at least 3/4 of it is free afterwards.
void LruStackDistance::renumber() {
  last_.rewrite([this](std::uint64_t, std::uint64_t value) { return rank_inclusive(value - 1); });
  std::uint64_t positions = bits_.size() * 64;
  while (positions < live_ * 4) positions *= 2;
  bits_.assign(static_cast<std::size_t>(positions / 64), 0);
  for (std::uint64_t p = 0; p < live_; ++p) bits_[p >> 6] |= std::uint64_t{1} << (p & 63);
  tree_.assign(bits_.size() + 1, 0);
  for (std::size_t i = 1; i < tree_.size(); ++i) {
    tree_[i] += std::popcount(bits_[i - 1]);
    const std::size_t parent = i + (i & (~i + 1));
    if (parent < tree_.size()) tree_[parent] += tree_[i];
  }
  now_ = live_;
}

std::vector<std::uint64_t> chameleon_depths() {
  std::vector<std::uint64_t> d;
  for (int k = 0; k <= 16; ++k) d.push_back(std::uint64_t{1} << k);
  return d;
}

CurveError curve_error(const MissRatioCurve& a, const MissRatioCurve& b) {
  CurveError e;
  const std::size_t n = std::min(a.size(), b.size());
  if (n == 0) return e;
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::fabs(a[i].miss_ratio - b[i].miss_ratio);
    sum += d;
    e.max_abs = std::max(e.max_abs, d);
  }
  e.mean_abs = sum / static_cast<double>(n);
  return e;
}

std::size_t ReuseHistogram::bucket_of(std::uint64_t distance) {
  return distance == 0 ? 0 : static_cast<std::size_t>(std::bit_width(distance));
}

void ReuseHistogram::add(std::uint64_t distance) {
  ++total_;
  if (distance == kColdMiss) {
    ++cold_;
    return;
  }
  const std::size_t b = bucket_of(distance);
  if (b >= buckets_.size()) buckets_.resize(b + 1, 0);
  ++buckets_[b];
}

std::uint64_t ReuseHistogram::hits_below(std::uint64_t depth) const {
  if (depth == 0) return 0;
  // distance < 2^k  <=>  bucket <= k
  const std::size_t k = static_cast<std::size_t>(std::bit_width(depth) - 1);
  std::uint64_t sum = 0;
  for (std::size_t b = 0; b <= k && b < buckets_.size(); ++b) sum += buckets_[b];
  return sum;
}

double ReuseHistogram::hit_ratio(std::uint64_t depth) const {
  return total_ == 0 ? 0.0 : static_cast<double>(hits_below(depth)) / static_cast<double>(total_);
}

MissRatioCurve ReuseHistogram::curve(std::span<const std::uint64_t> depths) const {
  MissRatioCurve c;
  for (std::uint64_t d : depths) c.push_back({d, total_ == 0 ? 0.0 : 1.0 - hit_ratio(d)});
  return c;
}

SampledReuseDistance::SampledReuseDistance(std::uint64_t block_bytes, double rate, std::uint64_t seed,
                                           std::uint32_t near_limit, std::uint32_t period, std::uint32_t history)
    : block_(block_bytes),
      rate_(rate <= 0 ? 1e-6 : (rate > 1 ? 1.0 : rate)),
      seed_(seed * 0x9e3779b97f4a7c15ULL),
      exact_(1),
      near_limit_(near_limit) {
  const std::uint64_t hist = std::bit_ceil(std::max<std::uint64_t>({history, 2ull * near_limit, 2}));
  ring_.assign(static_cast<std::size_t>(hist), 0);
  ring_mask_ = hist - 1;
  period_mask_ = std::bit_ceil(std::max<std::uint64_t>(period, 1)) - 1;
  near_counts_.assign(near_limit_ + 1, 0);
  const std::size_t set_size = std::bit_ceil(std::max<std::size_t>(4u * near_limit_, 16));
  seen_keys_.assign(set_size, 0);
  seen_gen_.assign(set_size, 0);
  threshold_ = static_cast<std::uint64_t>(std::llround(rate_ * static_cast<double>(kModulusMask + 1)));
  if (threshold_ == 0) threshold_ = 1;
  rate_ = static_cast<double>(threshold_) / static_cast<double>(kModulusMask + 1);
}

void SampledReuseDistance::record(std::uint64_t block) {
  ++sampled_;
  const std::uint64_t d = exact_.access_block(block);
  if (d == kColdMiss) {
    ++sampled_cold_;
    return;
  }
  const std::size_t i = static_cast<std::size_t>(std::min<std::uint64_t>(d, kMaxSampledDistance));
  if (i >= by_distance_.size()) by_distance_.resize(std::min(kMaxSampledDistance + 1, std::max(i + 1, by_distance_.size() * 2)), 0);
  ++by_distance_[i];
}

// Exact distance of the reference just stored at references_-1, when it is
// below near_limit: scan back counting distinct blocks until the block itself.
void SampledReuseDistance::near_sample(std::uint64_t block) {
  ++near_samples_;
  if (++generation_ == 0) {
    std::fill(seen_gen_.begin(), seen_gen_.end(), 0);
    generation_ = 1;
  }
  const std::uint64_t mask = seen_keys_.size() - 1;
  const std::uint64_t now = references_ - 1;
  const std::uint64_t reach = std::min<std::uint64_t>(now, ring_mask_);
  std::uint32_t distinct = 0;
  for (std::uint64_t back = 1; back <= reach; ++back) {
    const std::uint64_t b = ring_[(now - back) & ring_mask_];
    if (b == block) {
      ++near_counts_[distinct];
      return;
    }
    std::uint64_t i = (b * 0x9e3779b97f4a7c15ULL >> 20) & mask;
    while (seen_gen_[i] == generation_ && seen_keys_[i] != b) i = (i + 1) & mask;
    if (seen_gen_[i] != generation_) {
      seen_gen_[i] = generation_;
      seen_keys_[i] = b;
      if (++distinct == near_limit_) break;
    }
  }
  ++near_counts_[near_limit_];  // farther than the limit, cold, or beyond the history
}

MissRatioCurve SampledReuseDistance::curve(std::span<const std::uint64_t> depths) const {
  MissRatioCurve c;
  // Sampled distance d stands for d / R: the spatial samples of distance < depth * R.
  auto spatial_below = [&](double depth) {
    const double limit = depth * rate_;
    double n = 0;
    for (std::size_t d = 0; d < by_distance_.size() && static_cast<double>(d) < limit; ++d)
      n += static_cast<double>(by_distance_[d]);
    return n;
  };
  if (near_samples_ > 0 && near_limit_ > 0) {
    // Depths within the near limit: the temporal samples' exact distances.
    double near_miss = 1;
    for (std::uint64_t depth : depths) {
      if (depth > near_limit_) break;
      std::uint64_t hits = 0;
      for (std::uint64_t d = 0; d < depth; ++d) hits += near_counts_[static_cast<std::size_t>(d)];
      near_miss = 1.0 - static_cast<double>(hits) / static_cast<double>(near_samples_);
      c.push_back({depth, near_miss});
    }
    std::uint64_t near_hits = 0;
    for (std::uint32_t d = 0; d < near_limit_; ++d) near_hits += near_counts_[d];
    const double anchor = 1.0 - static_cast<double>(near_hits) / static_cast<double>(near_samples_);
    // Larger depths: the temporal miss ratio at the limit, less the share of
    // spatial samples whose distance lies between the limit and the depth.
    const double base = spatial_below(static_cast<double>(near_limit_));
    for (std::uint64_t depth : depths.subspan(c.size())) {
      const double band = sampled_ == 0 ? 0.0 : (spatial_below(static_cast<double>(depth)) - base) / static_cast<double>(sampled_);
      c.push_back({depth, std::clamp(anchor - band, 0.0, 1.0)});
    }
    return c;
  }
  // Pure SHARDS-adj: the shortfall (or excess) of samples against the expected
  // count is credited to the smallest distance.
  const double expected = static_cast<double>(references_) * rate_;
  const double adjust = expected - static_cast<double>(sampled_);
  for (std::uint64_t depth : depths) {
    const double hits = adjust + spatial_below(static_cast<double>(depth));
    const double miss = expected <= 0 ? 0.0 : 1.0 - hits / expected;
    c.push_back({depth, std::clamp(miss, 0.0, 1.0)});
  }
  return c;
}

}  // namespace hmtt::analysis
