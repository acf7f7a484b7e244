#include "hmtt/chameleon/tracer.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <optional>
#include <sstream>

namespace hmtt::chameleon {

AccessHistoryTrees::AccessHistoryTrees(std::size_t levels, bool ages)
    : levels_(levels), words_(((std::size_t{2} << levels) + 63) / 64), ages_(ages),
      stride_(std::size_t{2} << levels) {}

std::uint32_t AccessHistoryTrees::add() {
  bits_.resize(bits_.size() + 2 * words_, 0);
  if (ages_) stamps_.resize(stamps_.size() + stride_, 0);
  return trees_++;
}

std::size_t AccessHistoryTrees::visited_at_depth(std::uint32_t t, std::size_t depth) const {
  const std::size_t first = std::size_t{1} << depth, end = first << 1;
  std::size_t n = 0;
  for (std::size_t node = first; node < end;) {
    const std::size_t offset = node % 64;
    const std::size_t take = std::min<std::size_t>(64 - offset, end - node);
    std::uint64_t w = bits_[(t * 2) * words_ + node / 64] >> offset;
    if (take < 64) w &= (std::uint64_t{1} << take) - 1;
    n += static_cast<std::size_t>(std::popcount(w));
    node += take;
  }
  return n;
}

void AccessHistoryTrees::mark(std::uint32_t t, std::size_t node, bool right, std::uint32_t now) {
  if (ages_ && node < stride_) stamps_[t * stride_ + node] = now;
  const std::uint64_t m = std::uint64_t{1} << (node % 64);
  bits_[(t * 2) * words_ + node / 64] |= m;
  std::uint64_t& dir = bits_[(t * 2 + 1) * words_ + node / 64];
  dir = right ? (dir | m) : (dir & ~m);
}

SignatureTracer::SignatureTracer(TracerOptions options)
    : options_(std::move(options)),
      levels_(options_.shape.levels()),
      word_shift_(static_cast<std::uint64_t>(std::countr_zero(options_.shape.word_bytes))),
      trees_(levels_, options_.shape.age_bins > 1),
      whole_(MemorySignature::empty(options_.shape)) {
  if (!options_.regions.empty()) {
    for (const auto& r : options_.regions) {
      std::size_t slot = 0;
      while (slot < ids_.size() && ids_[slot].id != r.id) ++slot;
      if (slot == ids_.size()) ids_.push_back(r);
      slot_of_interval_.push_back(slot);
    }
    per_region_.assign(ids_.size() + 1, MemorySignature::empty(options_.shape));
  }
  restart_history();
}

void SignatureTracer::restart_history() {
  stack_ = std::make_unique<analysis::LruStackDistance>(options_.shape.block_bytes);
  line_stacks_.clear();
  for (std::size_t w = 0; w < options_.shape.line_widths(); ++w)
    line_stacks_.push_back(std::make_unique<analysis::LruStackDistance>(options_.shape.line_bytes << w));
  tree_of_ = analysis::BlockMap();
  trees_.clear();
  have_new_blocks_ = 0;
}

std::size_t SignatureTracer::slot_of(std::uint64_t time) {
  const std::size_t i = cursor_.at(options_.regions, time);
  return i < slot_of_interval_.size() ? slot_of_interval_[i] : ids_.size();
}

void SignatureTracer::access(const Reference& ref) {
  const std::uint64_t index = seen_++;
  if (options_.sample_on != 0) {
    const std::uint64_t period = options_.sample_on + options_.sample_off;
    const std::uint64_t phase = index % period;
    if (phase >= options_.sample_on) return;
    if (phase == 0 && index != 0) restart_history();
  }
  MemorySignature& sig = per_region_.empty() ? whole_ : per_region_[slot_of(ref.time)];
  const std::uint64_t distance = stack_->access(ref.address);
  ++sig.references;
  ++sig.kinds[static_cast<std::size_t>(ref.kind) % kKindCount];
  ++sig.sizes[size_slot(ref.size)];
  const std::uint64_t block = ref.address / options_.shape.block_bytes;
  std::uint64_t& slot = tree_of_.upsert(block);
  std::size_t abin = 0;
  if (distance == analysis::kColdMiss) {
    ++sig.cold;
    slot = trees_.add() + 1ull;
    if (options_.shape.layout_bytes) {
      std::size_t j = 0;
      while (j < have_new_blocks_ && new_blocks_[j] + 1 != block) ++j;
      if (j < have_new_blocks_)
        ++sig.layout_streams[j];
      else if (have_new_blocks_ != 0)
        ++sig.layout_exact[(block - new_blocks_[0]) & (options_.shape.layout_blocks() - 1)];
      std::copy_backward(new_blocks_.begin(), new_blocks_.end() - 1, new_blocks_.end());
      new_blocks_[0] = block;
      have_new_blocks_ = std::min(have_new_blocks_ + 1, kLayoutStreams);
    }
  } else {
    ++sig.reuse[options_.shape.histogram_bin(distance)];
    abin = SignatureShape::alpha_bin(distance);
    if (slot == 0) slot = trees_.add() + 1ull;  // (history restarted by sampling)
  }
  for (std::size_t w = 0; w < line_stacks_.size(); ++w) {
    const std::uint64_t line_distance = line_stacks_[w]->access(ref.address);
    if (distance != analysis::kColdMiss)
      ++sig.line_reuse[(w * kAlphaBins + abin) * options_.shape.line_row() +
                       (line_distance == analysis::kColdMiss ? 0 : 1 + options_.shape.histogram_bin(line_distance))];
  }
  const auto tree = static_cast<std::uint32_t>(slot - 1);
  if (distance != analysis::kColdMiss && !sig.block_fill.empty())
    ++sig.block_fill[abin * options_.shape.fill_row() + trees_.visited_at_depth(tree, options_.shape.fill_levels())];
  const std::uint32_t visits = trees_.visit(tree);
  const auto now = options_.shape.age_in_visits ? visits : static_cast<std::uint32_t>(seen_);  // the age clock
  const std::uint64_t word = (ref.address % options_.shape.block_bytes) >> word_shift_;
  std::size_t node = 1;
  for (std::size_t level = 0; level < levels_; ++level) {
    const bool right = (word >> (levels_ - 1 - level)) & 1u;
    if (trees_.visited(tree, node)) {
      const bool both = trees_.visited(tree, 2 * node) && trees_.visited(tree, 2 * node + 1);
      const std::size_t i =
          sig.alpha_index(abin, level, both,
                          both ? options_.shape.age_bin(trees_.age(tree, 2 * node + (trees_.went_right(tree, node) ? 0 : 1), now)) : 0);
      if (trees_.went_right(tree, node) == right)
        ++sig.alpha_yes[i];
      else
        ++sig.alpha_no[i];
    } else if (right) {
      ++sig.first_right[level];
    } else {
      ++sig.first_left[level];
    }
    trees_.mark(tree, node, right, now);
    node = node * 2 + (right ? 1 : 0);
  }
  trees_.mark(tree, node, false, now);  // the leaf: its parent's state needs to know it was used
}

void SignatureTracer::finish() {
  whole_.compact_layout();
  for (auto& r : per_region_) r.compact_layout();
  if (per_region_.empty()) return;
  whole_ = MemorySignature::empty(options_.shape);
  for (const auto& r : per_region_) (void)whole_.add(r);
}

}  // namespace hmtt::chameleon
