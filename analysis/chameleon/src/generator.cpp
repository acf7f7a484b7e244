#include "hmtt/chameleon/generator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include "hmtt/chameleon/tracer.h"

namespace hmtt::chameleon {

namespace {

// splitmix64: a small, fast generator; the stream is a function of the seed only.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

// The LRU list of synthetic blocks as order statistics over "last touched"
// positions: a Fenwick tree marks the position of every block's last touch,
// so the block at depth d is the (size - d)-th mark from the oldest.
class LruBlockList {
 public:
  explicit LruBlockList(std::size_t positions)
      : tree_(positions + 1, 0), block_at_(positions, 0), top_(std::bit_floor(positions + 1)) {}
  std::uint64_t size() const { return size_; }
  std::uint64_t push_new() {
    const std::uint64_t block = pos_of_.size();
    pos_of_.push_back(0);
    ++size_;
    place(block);
    return block;
  }
  // The block at depth `d` (< size()), left where it is.
  std::uint64_t peek(std::uint64_t d) const { return d == 0 ? block_at_[next_ - 1] : block_at_[kth(size_ - d)]; }
  // The block at depth `d` (< size()), moved to the head.
  std::uint64_t touch_at_depth(std::uint64_t d) {
    if (d == 0) return block_at_[next_ - 1];  // already the head
    const std::size_t pos = kth(size_ - d);
    const std::uint64_t block = block_at_[pos];
    add(pos, -1);
    place(block);
    return block;
  }

 private:
  void place(std::uint64_t block) {
    const std::size_t pos = next_++;
    add(pos, +1);
    block_at_[pos] = block;
    pos_of_[block] = pos;
  }
  void add(std::size_t pos, std::int32_t delta) {
    for (std::size_t i = pos + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
  }
  // 0-based position of the k-th mark (k >= 1).
  std::size_t kth(std::uint64_t k) const {
    std::size_t pos = 0;
    auto rest = static_cast<std::int64_t>(k);
    for (std::size_t step = top_; step != 0; step >>= 1) {
      if (pos + step < tree_.size() && tree_[pos + step] < rest) {
        pos += step;
        rest -= tree_[pos];
      }
    }
    return pos;
  }

  std::vector<std::int32_t> tree_;
  std::vector<std::uint64_t> block_at_;
  std::vector<std::size_t> pos_of_;
  std::size_t top_;
  std::size_t next_ = 0;
  std::uint64_t size_ = 0;
};

constexpr std::uint8_t kColdBin = 0xff;

// Reuse distances of lines as the synthetic trace is written: a Fenwick tree
// over reference positions marks every line's last reference, so a line's
// distance is the number of marks after its own.
class LineDistances {
 public:
  explicit LineDistances(std::size_t positions) : tree_(positions + 1, 0) {}
  // Distance of `line` if referenced now; kNever for a line never referenced.
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};
  std::uint64_t distance(std::uint64_t line) const {
    if (line >= last_.size() || last_[line] == 0) return kNever;
    return marks_ - prefix(last_[line]);
  }
  // `line` referenced at position `pos` (positions increase by one per call).
  void touch(std::uint64_t line, std::size_t pos) {
    if (line >= last_.size()) last_.resize(std::max<std::size_t>(line + 1, last_.size() * 2), 0);
    if (last_[line] != 0) {
      add(last_[line], -1);
      --marks_;
    }
    last_[line] = pos + 1;
    add(pos + 1, +1);
    ++marks_;
  }

 private:
  void add(std::size_t i, std::int32_t delta) {
    for (; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
  }
  std::uint64_t prefix(std::size_t i) const {  // marks at positions 1..i
    std::int64_t s = 0;
    for (; i != 0; i -= i & (~i + 1)) s += tree_[i];
    return static_cast<std::uint64_t>(s);
  }
  std::vector<std::int32_t> tree_;
  std::vector<std::size_t> last_;  // line -> position + 1 of its last reference (0 = never)
  std::uint64_t marks_ = 0;
};

// Where synthetic blocks sit, in blocks from the base. Without a layout model
// side by side in first-touch order. With one, every new block either
// continues a walk (right after the j-th most recent new block, with the
// signature's stream weights) or jumps by a distance drawn from its layout
// histogram from the block placed before it; positions are modulo the layout
// span, and a block goes to the first lap of the span whose slot at its
// position is free. So blocks keep the original's relative positions modulo
// the span, which decide the cache sets, and every block has its own address.
class BlockLayout {
 public:
  BlockLayout(const SignatureModel& model, std::uint64_t random_seed)
      : span_(model.shape.layout_blocks()), rng_(random_seed ^ 0x1a7007b10c5ULL) {
    double sum = 0;
    for (std::size_t j = 0; j < model.layout_streams.size(); ++j) {
      if (model.layout_streams[j] <= 0) continue;
      add({true, j, j + 1}, model.layout_streams[j], sum);
    }
    for (const auto& [d, w] : model.layout_exact) {
      if (w <= 0) continue;
      add({false, d, d + 1}, w, sum);
    }
    for (std::size_t b = 0; b < model.layout_bins.size(); ++b) {
      const std::uint64_t lo = b == 0 ? 0 : std::uint64_t{1} << (b - 1);
      const std::uint64_t hi = std::min(span_, b == 0 ? 1 : std::uint64_t{1} << b);
      if (model.layout_bins[b] <= 0 || lo >= hi) continue;
      add({false, lo, hi}, model.layout_bins[b], sum);
    }
    if (sum <= 0) span_ = 0;
  }
  // Slots of blocks 0 .. n-1; span_blocks() afterwards is the address range they take.
  std::vector<std::uint64_t> place(std::uint64_t n) {
    std::vector<std::uint64_t> slot(n);
    if (span_ == 0) {
      for (std::uint64_t b = 0; b < n; ++b) slot[b] = b;
      used_ = n;
      return slot;
    }
    std::unordered_map<std::uint64_t, std::uint64_t> laps;  // position -> laps used there
    std::uint64_t max_lap = 0;
    for (std::uint64_t b = 0; b < n; ++b) {
      std::uint64_t position = 0;
      if (b != 0) {
        const Choice* c = &choices_[draw(cumulative_)];
        // A walk after a block not placed yet (the first blocks): a jump instead, if there are any.
        if (c->stream && c->lo >= b && !jumps_.empty()) c = &choices_[jumps_[draw(jump_cumulative_)]];
        if (c->stream) {
          const std::uint64_t after = b - 1 - std::min<std::uint64_t>(c->lo, b - 1);  // the j-th most recent, or the oldest
          position = (slot[after] + 1) & (span_ - 1);
        } else {
          const std::uint64_t d = c->lo + std::min(c->hi - c->lo - 1, static_cast<std::uint64_t>(rng_.unit() * static_cast<double>(c->hi - c->lo)));
          position = (slot[b - 1] + d) & (span_ - 1);
        }
      }
      const std::uint64_t lap = laps[position]++;
      max_lap = std::max(max_lap, lap);
      slot[b] = lap * span_ + position;
    }
    used_ = n ? (max_lap + 1) * span_ : 0;
    return slot;
  }
  std::uint64_t span_blocks() const { return used_; }

 private:
  struct Choice {
    bool stream;          // continue after the (lo + 1)-th most recent new block
    std::uint64_t lo, hi; // else a jump by a distance in [lo, hi)
  };
  std::size_t draw(const std::vector<double>& cumulative) {
    const double u = rng_.unit() * cumulative.back();
    const auto i = static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
    return std::min(i, cumulative.size() - 1);
  }
  void add(Choice c, double weight, double& sum) {
    if (!c.stream) {
      jumps_.push_back(choices_.size());
      jump_cumulative_.push_back((jump_cumulative_.empty() ? 0 : jump_cumulative_.back()) + weight);
    }
    choices_.push_back(c);
    cumulative_.push_back(sum += weight);
  }
  std::uint64_t span_;
  Random rng_;
  std::vector<Choice> choices_;
  std::vector<double> cumulative_;
  std::vector<std::size_t> jumps_;        // the jump choices, with their own cumulative weights
  std::vector<double> jump_cumulative_;
  std::uint64_t used_ = 0;
};

struct BlockTrace {
  std::vector<std::uint32_t> blocks;
  std::vector<std::uint32_t> depths;     // with keep_depths: each reference's depth (UINT32_MAX: new block)
  std::vector<std::uint8_t> alpha_bins;  // kColdBin for a new block
  std::vector<double> achieved;          // probability per category (bins, then cold)
  std::uint64_t working_set = 0;
};

// One attempt: `length` block references from category probabilities `p`.
BlockTrace draw_blocks(const SignatureShape& shape, const std::vector<double>& p, std::uint64_t length,
                       std::uint64_t seed, bool keep_depths) {
  const std::size_t cold = p.size() - 1;
  std::vector<double> cumulative(p.size());
  double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i) cumulative[i] = (sum += p[i]);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> range(cold);
  for (std::size_t b = 0; b < cold; ++b) range[b] = shape.histogram_range(b);
  Random rng(seed);
  LruBlockList lru(length);
  BlockTrace t;
  t.blocks.resize(length);
  t.alpha_bins.resize(length);
  if (keep_depths) t.depths.resize(length);
  std::vector<std::uint64_t> tally(p.size(), 0);
  for (std::uint64_t i = 0; i < length; ++i) {
    const double u = rng.unit() * sum;
    auto c = static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), u) - cumulative.begin());
    if (c > cold) c = cold;
    std::uint64_t block = 0;
    std::uint64_t d = 0;
    bool is_new = c == cold;
    if (!is_new) {
      const auto [lo, hi] = range[c];
      d = lo + static_cast<std::uint64_t>(rng.unit() * static_cast<double>(hi - lo));
      if (d >= hi) d = hi - 1;
      is_new = d >= lru.size();
    }
    if (is_new) {
      block = lru.push_new();
      ++tally[cold];
      t.alpha_bins[i] = kColdBin;
    } else {
      block = lru.touch_at_depth(d);
      ++tally[c];
      t.alpha_bins[i] = static_cast<std::uint8_t>(SignatureShape::alpha_bin(d));
    }
    t.blocks[i] = static_cast<std::uint32_t>(block);
    if (keep_depths) t.depths[i] = is_new ? UINT32_MAX : static_cast<std::uint32_t>(d);
  }
  t.working_set = lru.size();
  t.achieved.resize(p.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    t.achieved[i] = length ? static_cast<double>(tally[i]) / static_cast<double>(length) : 0;
  return t;
}

// The block trace's reuses re-targeted, one reference at a time, alongside
// the line choice (generate_seed step 2). Every reference keeps the depth d
// the chosen attempt drew (so the block-level distances, new blocks
// included, are exactly that attempt's); a reuse then draws a count k from
// the signature's block_fill row of d's alpha bin and tries up to
// `candidates` blocks at depths drawn uniformly in d's histogram bin (d
// itself first): it takes the first that has used k of its fill_bytes units
// so far, else the closest. The bin is the signature's resolution of distance, so
// only which block of the bin is reused changes.
class FillConditionedBlocks {
 public:
  FillConditionedBlocks(const SignatureShape& shape, const std::vector<double>& fill, std::uint32_t candidates,
                        std::uint64_t length, std::uint64_t seed)
      : shape_(shape), fill_(fill), cols_(shape.fill_row()), candidates_(std::max<std::uint32_t>(1, candidates)),
        lru_(length), rng_(seed) {}
  // The block of a reference the attempt drew at depth `d` (kNewBlock: a new
  // block); `units_of(block)` = fill_bytes units the block has used so far.
  static constexpr std::uint32_t kNewBlock = UINT32_MAX;
  template <class UnitsOf>
  std::uint64_t next(std::uint32_t d, UnitsOf&& units_of) {
    if (d == kNewBlock) return lru_.push_new();
    const double* row = &fill_[SignatureShape::alpha_bin(d) * cols_];
    double total = 0;
    for (std::size_t k = 0; k < cols_; ++k) total += row[k];
    std::uint64_t at = d;
    if (candidates_ > 1 && total > 0) {
      double v = rng_.unit() * total;
      std::size_t want = 0;
      while (want + 1 < cols_ && v >= row[want]) v -= row[want++];
      const auto [lo, hi] = shape_.histogram_range(shape_.histogram_bin(d));
      const std::uint64_t top = std::min<std::uint64_t>(hi, lru_.size());  // the bin's depths that exist
      std::size_t best_gap = SIZE_MAX;
      for (std::uint32_t t = 0; t < candidates_; ++t) {
        const std::uint64_t depth =
            t == 0 ? d : lo + std::min(top - lo - 1, static_cast<std::uint64_t>(rng_.unit() * static_cast<double>(top - lo)));
        const std::size_t k = units_of(lru_.peek(depth));
        const std::size_t gap = k > want ? k - want : want - k;
        if (gap < best_gap) {
          best_gap = gap;
          at = depth;
        }
        if (gap == 0) break;
      }
    }
    return lru_.touch_at_depth(at);
  }

 private:
  const SignatureShape& shape_;
  const std::vector<double>& fill_;
  std::size_t cols_;
  std::uint32_t candidates_;
  LruBlockList lru_;
  Random rng_;
};

// Max |difference| of the two distributions' CDFs over every bin edge.
double max_cdf_gap(const std::vector<double>& a, const std::vector<double>& b) {
  double ca = 0, cb = 0, gap = 0;
  for (std::size_t i = 0; i + 1 < a.size(); ++i) {  // the last category (cold) closes both at 1
    ca += a[i];
    cb += b[i];
    gap = std::max(gap, std::abs(ca - cb));
  }
  return gap;
}

}  // namespace

analysis::Json TraceSeed::metadata() const {
  analysis::Json j;
  j["length"] = addresses.size();
  j["working_set_blocks"] = working_set_blocks;
  j["working_set_bytes"] = working_set_blocks * shape.block_bytes;
  j["block_bytes"] = shape.block_bytes;
  j["word_bytes"] = shape.word_bytes;
  j["min_replications"] = min_replications;
  j["span_blocks"] = span_blocks;
  j["base_address"] = base_address;
  j["iterations"] = iterations;
  j["cdf_mean_error"] = cdf_mean_error;
  j["cdf_max_error"] = cdf_max_error;
  return j;
}

bool valid_scramble(std::uint64_t bytes, const SignatureShape& shape) {
  return bytes == 0 || (std::has_single_bit(bytes) && bytes >= shape.word_bytes && bytes < shape.block_bytes);
}

Result<TraceSeed> generate_seed(const SignatureModel& model, const GeneratorOptions& options) {
  if (auto s = model.shape.validate(); !s) return s.error();
  if (options.seed_length == 0) return make_error("seed length must be at least 1");
  if (options.seed_length > (std::uint64_t{1} << 31)) return make_error("seed length must be below 2^31");
  if (!valid_scramble(options.scramble_bytes, model.shape))
    return make_error("scramble_bytes: must be 0 or a power of two from word_bytes to half of block_bytes");
  const SignatureShape& shape = model.shape;
  const std::size_t levels = shape.levels();
  if (model.reuse.size() != shape.histogram_bins() || model.alpha.size() != kAlphaBins * shape.alpha_row() ||
      model.first_left.size() != levels)
    return make_error("signature model: arrays do not match the shape");
  // Categories: the histogram bins, then cold.
  std::vector<double> target(model.reuse);
  target.push_back(model.cold);
  double total = 0;
  for (double& v : target) {
    if (!(v >= 0) || !std::isfinite(v)) return make_error("signature model: a probability is negative or not finite");
    total += v;
  }
  if (total <= 0) return make_error("signature model: no references");
  for (double& v : target) v /= total;

  // Reuses re-targeted by line counts (FillConditionedBlocks) when the signature has them.
  const bool by_fill = !model.block_fill.empty() && options.fill_candidates > 1;

  // 1. Block trace, with the T/R adjustment for the cold misses the list adds.
  // An attempt is good when its CDF is within the tolerance at every edge and
  // its cold count (its working set) within max(2 %, 3 / sqrt(count)) of the
  // signature's: a cold share of 1e-4 cannot move the CDF's gap, and stopping
  // on the gap alone left the working set 20-41 % too large on lackey traces
  // (docs/accuracy.md). Among good attempts the smallest cold error is kept,
  // else the smallest gap.
  const double tolerance =
      std::max(options.tolerance, 2.0 / std::sqrt(static_cast<double>(options.seed_length)));
  const double cold_count = target.back() * static_cast<double>(options.seed_length);
  const double cold_tolerance = std::max(0.02, cold_count > 0 ? 3.0 / std::sqrt(cold_count) : 1.0);
  std::vector<double> input = target;
  BlockTrace best;
  double best_gap = std::numeric_limits<double>::infinity();
  double best_cold_error = std::numeric_limits<double>::infinity();
  bool best_within = false;
  std::uint32_t iterations = 0;
  for (std::uint32_t it = 0; it < std::max<std::uint32_t>(1, options.max_iterations); ++it) {
    ++iterations;
    BlockTrace attempt = draw_blocks(shape, input, options.seed_length, options.random_seed + it, by_fill);
    const std::vector<double> achieved = attempt.achieved;
    const double gap = max_cdf_gap(target, achieved);
    const double cold_error = target.back() > 0 ? std::abs(achieved.back() - target.back()) / target.back() : 0.0;
    const bool within = gap <= tolerance;
    if (it == 0 || (within && (!best_within || cold_error < best_cold_error)) || (!within && !best_within && gap < best_gap)) {
      best_gap = gap;
      best_cold_error = cold_error;
      best_within = within;
      best = std::move(attempt);
    }
    if (best_within && best_cold_error <= cold_tolerance) break;
    double sum = 0;
    for (std::size_t c = 0; c < input.size(); ++c) {
      if (target[c] == 0) {
        input[c] = 0;
      } else if (achieved[c] > 0) {
        input[c] *= target[c] / achieved[c];
      } else {
        input[c] = std::max(input[c] * 2, target[c]);
      }
      sum += input[c];
    }
    for (double& v : input) v /= sum;
  }

  // 2. Offsets from the alpha trees, kinds from their shares.
  TraceSeed seed;
  seed.shape = shape;
  seed.base_address = options.base_address;
  seed.working_set_blocks = best.working_set;
  seed.iterations = iterations;
  const std::uint64_t flush = std::uint64_t{1} << (kCdfDepths - 1);
  seed.min_replications = std::max<std::uint64_t>(1, (flush + best.working_set - 1) / std::max<std::uint64_t>(1, best.working_set));
  {
    std::vector<double> got(best.achieved.begin(), best.achieved.end() - 1);
    std::vector<double> want(target.begin(), target.end() - 1);
    double sum_err = 0, max_err = 0;
    for (std::size_t k = 0; k < kCdfDepths; ++k) {
      const std::uint64_t depth = std::uint64_t{1} << k;
      double a = 0, b = 0;
      for (std::size_t bin = 0; bin < want.size(); ++bin)
        if (shape.histogram_range(bin).second <= depth) {
          a += want[bin];
          b += got[bin];
        }
      sum_err += std::abs(a - b);
      max_err = std::max(max_err, std::abs(a - b));
    }
    seed.cdf_mean_error = sum_err / kCdfDepths;
    seed.cdf_max_error = max_err;
  }
  Random rng(options.random_seed ^ 0x5eed0ff5e7ULL);
  Random size_rng(options.random_seed ^ 0x512e5ULL);  // access sizes, apart from the rest
  std::vector<double> kind_cumulative(kKindCount);
  double ks = 0;
  for (std::size_t k = 0; k < kKindCount; ++k) kind_cumulative[k] = (ks += model.kinds[k]);
  std::array<double, kSizeSlots> size_cumulative{};
  double ss = 0;
  for (std::size_t k = 0; k < kSizeSlots; ++k) size_cumulative[k] = (ss += model.sizes[k]);
  AccessHistoryTrees trees(levels, shape.age_bins > 1);
  seed.addresses.resize(best.blocks.size());
  BlockLayout layout(model, options.random_seed);
  const std::vector<std::uint64_t> slot_of = layout.place(best.working_set);
  seed.span_blocks = layout.span_blocks();
  seed.kinds.resize(best.blocks.size());
  if (ss > 0) seed.size_slots.resize(best.blocks.size());
  // Lines: a block reuse picks the line (of the narrowest width) whose
  // current reuse distances, at every width from the line to half the block,
  // keep the CDFs of distances achieved so far (for the block reuse's alpha
  // bin) closest to the signature's; among equally good lines the trees
  // choose (their own walk when it lands on one, else constrained to them). Blocks are unchanged, so the 512 B distances stay exactly
  // those drawn.
  const std::size_t cols = shape.line_row();
  const std::size_t widths = shape.line_widths();
  const std::size_t line_levels = shape.line_levels();
  const std::size_t lines_per_block = std::size_t{1} << line_levels;
  const std::size_t rows = widths * kAlphaBins;
  std::vector<bool> row_known(rows, false);
  std::vector<std::size_t> row_last(rows, 0);  // last non-empty distance column of each row
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      if (model.line_reuse[r * cols + c] > 0) {
        row_known[r] = true;
        if (c > 0) row_last[r] = c;
      }
  std::vector<LineDistances> line_distances;
  for (std::size_t w = 0; w < widths; ++w) line_distances.emplace_back(best.blocks.size());
  std::vector<double> row_refs(rows, 0);
  std::vector<double> achieved(rows * cols, 0);
  std::vector<std::size_t> column_of(widths * lines_per_block);  // [w][unit of width w]
  std::vector<double> edge_cost(cols + 1, 0);
  std::vector<double> line_cost(lines_per_block);
  std::vector<bool> candidate(lines_per_block);
  std::uint32_t trees_made = 0;
  // Scrambled units: the mask of a block is a hash of it and the seed (no draw
  // from the streams above, so a trace without scrambling is unchanged).
  const std::size_t scramble_bits =
      options.scramble_bytes ? static_cast<std::size_t>(std::countr_zero(shape.block_bytes / options.scramble_bytes)) : 0;
  auto scramble_mask = [&](std::uint64_t block) {
    std::uint64_t h = (block + 1) * 0x9e3779b97f4a7c15ULL ^ options.random_seed * 0xc2b2ae3d27d4eb4fULL;
    h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
    h ^= h >> 31;
    return h & ((std::uint64_t{1} << scramble_bits) - 1);
  };
  std::optional<FillConditionedBlocks> refill;
  if (by_fill)
    refill.emplace(shape, model.block_fill, options.fill_candidates, best.blocks.size(), options.random_seed ^ 0xf111b10c5ULL);
  auto units_of = [&](std::uint64_t b) {
    return b < trees_made ? trees.visited_at_depth(static_cast<std::uint32_t>(b), shape.fill_levels()) : std::size_t{0};
  };
  for (std::size_t i = 0; i < best.blocks.size(); ++i) {
    if (refill) best.blocks[i] = static_cast<std::uint32_t>(refill->next(best.depths[i], units_of));
    const std::uint32_t block = best.blocks[i];
    while (trees_made <= block) trees_made = trees.add() + 1;
    const std::size_t abin = best.alpha_bins[i] == kColdBin ? 0 : best.alpha_bins[i];
    const std::uint32_t visits = trees.visit(block);
    const auto now = shape.age_in_visits ? visits : static_cast<std::uint32_t>(i + 1);
    bool targeted = false;
    if (widths && best.alpha_bins[i] != kColdBin && row_known[abin]) {
      targeted = true;
      std::fill(line_cost.begin(), line_cost.end(), 0.0);
      for (std::size_t w = 0; w < widths; ++w) {
        const std::size_t r = w * kAlphaBins + abin;
        if (!row_known[r]) continue;
        const std::size_t units = lines_per_block >> w;
        for (std::size_t u = 0; u < units; ++u) {
          const std::uint64_t d = line_distances[w].distance(std::uint64_t{block} * units + u);
          column_of[w * lines_per_block + u] = d == LineDistances::kNever ? 0 : 1 + shape.histogram_bin(d);
        }
        // The row's CDF over distance (a unit never used is beyond every
        // depth): choosing column c adds one reference at every edge >= c,
        // which changes |target - achieved| at edge e by |D_e - 1| - |D_e|.
        const double* p = &model.line_reuse[r * cols];
        const double* got = &achieved[r * cols];
        const double n = row_refs[r] + 1;
        const std::size_t last = row_last[r];
        double cum_target = 0, cum_got = 0;
        for (std::size_t c = 1; c <= last; ++c) {
          cum_target += p[c] * n;
          cum_got += got[c];
          const double gap = cum_target - cum_got;
          edge_cost[c] = gap >= 1 ? -1.0 : gap <= 0 ? 1.0 : 1.0 - 2.0 * gap;
        }
        double suffix = 0;
        for (std::size_t c = last; c >= 1; --c) edge_cost[c] = (suffix += edge_cost[c]);
        for (std::size_t l = 0; l < lines_per_block; ++l) {
          const std::size_t c = column_of[w * lines_per_block + (l >> w)];
          line_cost[l] += c == 0 || c > last ? 0.0 : edge_cost[c];
        }
      }
      const double best_cost = *std::min_element(line_cost.begin(), line_cost.end());
      // The trees' own proposal, a walk above the line that marks nothing: taken
      // when it is one of the best lines, so that among equally good lines each
      // line's history (runs of reuse, then a move) is the trees' unconstrained
      // one; otherwise the walk below goes only where a best line is.
      std::size_t proposal = 0;
      for (std::size_t level = 0, n = 1; level < line_levels; ++level) {
        bool right = false;
        if (trees.visited(block, n)) {
          const bool both = trees.visited(block, 2 * n) && trees.visited(block, 2 * n + 1);
          const std::size_t age =
              both ? shape.age_bin(trees.age(block, 2 * n + (trees.went_right(block, n) ? 0 : 1), now)) : 0;
          const bool same =
              rng.unit() < model.alpha[abin * shape.alpha_row() + (age * 2 + (both ? 1 : 0)) * levels + level];
          right = same ? trees.went_right(block, n) : !trees.went_right(block, n);
        } else {
          right = !(rng.unit() < model.first_left[level]);
        }
        n = n * 2 + (right ? 1 : 0);
        proposal = proposal * 2 + (right ? 1 : 0);
      }
      const bool take_proposal = line_cost[proposal] <= best_cost + 1e-9;
      for (std::size_t l = 0; l < lines_per_block; ++l)
        candidate[l] = take_proposal ? l == proposal : line_cost[l] <= best_cost + 1e-9;
    }
    std::size_t node = 1;
    std::uint64_t word = 0;
    for (std::size_t level = 0; level < levels; ++level) {
      // Above the line, when targeting: only subtrees holding a candidate line.
      bool forced = false, forced_right = false;
      if (targeted && level < line_levels) {
        const std::size_t span = std::size_t{1} << (line_levels - level - 1);  // lines per child
        const std::size_t first = (node - (std::size_t{1} << level)) * 2 * span;  // first line under the left child
        bool left_has = false, right_has = false;
        for (std::size_t l = 0; l < span; ++l) {
          left_has = left_has || candidate[first + l];
          right_has = right_has || candidate[first + span + l];
        }
        if (left_has != right_has) {
          forced = true;
          forced_right = right_has;
        }
      }
      bool right = false;
      if (forced) {
        right = forced_right;
      } else if (trees.visited(block, node)) {
        const bool both = trees.visited(block, 2 * node) && trees.visited(block, 2 * node + 1);
        const std::size_t age =
            both ? shape.age_bin(trees.age(block, 2 * node + (trees.went_right(block, node) ? 0 : 1), now)) : 0;
        const bool same =
            rng.unit() < model.alpha[abin * shape.alpha_row() + (age * 2 + (both ? 1 : 0)) * levels + level];
        right = same ? trees.went_right(block, node) : !trees.went_right(block, node);
      } else {
        right = !(rng.unit() < model.first_left[level]);
      }
      trees.mark(block, node, right, now);
      node = node * 2 + (right ? 1 : 0);
      word = word * 2 + (right ? 1 : 0);
    }
    if (widths) {
      const std::size_t line = static_cast<std::size_t>(word >> (levels - line_levels));
      for (std::size_t w = 0; w < widths; ++w) {
        if (targeted && row_known[w * kAlphaBins + abin]) {
          const std::size_t r = w * kAlphaBins + abin;
          row_refs[r] += 1;
          achieved[r * cols + column_of[w * lines_per_block + (line >> w)]] += 1;
        }
        line_distances[w].touch(std::uint64_t{block} * (lines_per_block >> w) + (line >> w), i);
      }
    }
    trees.mark(block, node, false, now);
    if (scramble_bits != 0) word ^= scramble_mask(block) << (levels - scramble_bits);
    seed.addresses[i] = options.base_address + slot_of[block] * shape.block_bytes + word * shape.word_bytes;
    std::size_t kind = 0;
    if (ks > 0) {
      const double u = rng.unit() * ks;
      while (kind + 1 < kKindCount && kind_cumulative[kind] <= u) ++kind;
    }
    seed.kinds[i] = static_cast<Kind>(kind);
    if (ss > 0) {
      // Drawn from their own stream so that a signature without sizes keeps its exact trace.
      const double u = size_rng.unit() * ss;
      std::size_t slot = 0;
      while (slot + 1 < kSizeSlots && size_cumulative[slot] <= u) ++slot;
      seed.size_slots[i] = static_cast<std::uint8_t>(slot);
      // Naturally aligned (at most to a block), as a board's line-sized records and most program
      // accesses are: a 64-byte access then covers one 64-byte line, both halves of a 32-byte one.
      const std::uint64_t align = std::min<std::uint64_t>(std::uint64_t{1} << slot, shape.block_bytes);
      seed.addresses[i] &= ~(align - 1);
    }
  }
  return seed;
}

SeedExpansion::SeedExpansion(std::shared_ptr<const TraceSeed> seed, std::uint64_t length)
    : seed_(std::move(seed)), length_(length) {}

Result<std::size_t> SeedExpansion::read(std::span<Reference> out) {
  std::size_t n = 0;
  const std::uint64_t len = seed_->addresses.size();
  if (len == 0) return n;
  const std::uint64_t copy_bytes = std::max(seed_->span_blocks, seed_->working_set_blocks) * seed_->shape.block_bytes;
  const std::uint64_t cycle = seed_->min_replications + 1;
  while (n < out.size() && done_ < length_) {
    const std::uint64_t copy = done_ / len;
    const std::uint64_t i = done_ % len;
    Reference r;
    r.time = done_;
    r.address = seed_->addresses[i] + (copy % cycle) * copy_bytes;
    r.size = static_cast<std::uint32_t>(seed_->shape.word_bytes);
    if (!seed_->size_slots.empty()) r.size = std::uint32_t{1} << seed_->size_slots[i];
    r.kind = seed_->kinds[i];
    out[n++] = r;
    ++done_;
  }
  return n;
}

}  // namespace hmtt::chameleon
