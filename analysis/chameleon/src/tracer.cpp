#include "hmtt/chameleon/tracer.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <optional>
#include <sstream>

namespace hmtt::chameleon {

namespace {

std::optional<std::uint64_t> parse_number(const std::string& s) {
  std::uint64_t v = 0;
  int base = 10;
  std::size_t skip = 0;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    skip = 2;
  }
  const char* b = s.data() + skip;
  const char* e = s.data() + s.size();
  auto [end, ec] = std::from_chars(b, e, v, base);
  if (b == e || ec != std::errc() || end != e) return std::nullopt;
  return v;
}

}  // namespace

Result<std::vector<CodeRegion>> parse_regions(const std::string& text, const std::string& name) {
  std::vector<CodeRegion> out;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string where = name + ":" + std::to_string(line_no) + ": ";
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::vector<std::string> tok;
    for (std::string w; words >> w;) tok.push_back(w);
    if (tok.empty()) continue;
    if (tok[0] == "range") continue;  // METRIC address ranges: not regions
    if (tok[0] != "region") return make_error(where + "expected 'region ID NAME T0 T1', got '" + tok[0] + "'");
    if (tok.size() != 5) return make_error(where + "expected 'region ID NAME T0 T1'");
    const auto id = parse_number(tok[1]);
    const auto t0 = parse_number(tok[3]);
    const auto t1 = parse_number(tok[4]);
    if (!id || *id > UINT32_MAX) return make_error(where + "bad region ID '" + tok[1] + "'");
    // The profile gives references outside every region the id kOtherRegionId: a map
    // region with that id would be indistinguishable from "other" in the profile.
    if (*id == kOtherRegionId)
      return make_error(where + "region id " + std::to_string(kOtherRegionId) +
                        " is reserved for references outside every region");
    if (!t0) return make_error(where + "bad T0 '" + tok[3] + "'");
    if (!t1) return make_error(where + "bad T1 '" + tok[4] + "'");
    if (*t1 <= *t0) return make_error(where + "T1 must be greater than T0");
    out.push_back({static_cast<std::uint32_t>(*id), tok[2], *t0, *t1});
  }
  std::sort(out.begin(), out.end(), [](const CodeRegion& a, const CodeRegion& b) { return a.t0 < b.t0; });
  for (std::size_t i = 1; i < out.size(); ++i)
    if (out[i].t0 < out[i - 1].t1)
      return make_error(name + ": regions '" + out[i - 1].name + "' and '" + out[i].name + "' overlap");
  return out;
}

std::vector<CodeRegion> regions_from_icode_events(std::vector<std::pair<std::uint64_t, std::uint64_t>> events) {
  constexpr std::uint64_t kFirstUserIndex = 64, kProgramEvents = 4096;
  // Event ids are < kProgramEvents (others are dropped below), so none is kOtherRegionId.
  static_assert(kProgramEvents - 1 < kOtherRegionId);
  std::erase_if(events, [&](const auto& e) {
    return e.second < kFirstUserIndex || e.second >= kFirstUserIndex + kProgramEvents;
  });
  std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<CodeRegion> out;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const std::uint64_t t1 = i + 1 < events.size() ? events[i + 1].first : UINT64_MAX;
    if (t1 <= events[i].first) continue;  // two events at one time: the later one wins
    const auto k = static_cast<std::uint32_t>(events[i].second - kFirstUserIndex);
    out.push_back({k, "event" + std::to_string(k), events[i].first, t1});
  }
  return out;
}

AccessHistoryTrees::AccessHistoryTrees(std::size_t levels, bool ages)
    : levels_(levels), words_(((std::size_t{2} << levels) + 63) / 64), ages_(ages),
      stride_(std::size_t{2} << levels) {}

std::uint32_t AccessHistoryTrees::add() {
  bits_.resize(bits_.size() + 2 * words_, 0);
  if (ages_) stamps_.resize(stamps_.size() + stride_, 0);
  return trees_++;
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

std::size_t SignatureTracer::region_of(std::uint64_t time) {
  const auto& r = options_.regions;
  // References arrive in time order: try the last region and its successor first.
  if (region_hint_ < r.size() && r[region_hint_].t0 <= time && time < r[region_hint_].t1) return region_hint_;
  const auto it = std::upper_bound(r.begin(), r.end(), time, [](std::uint64_t t, const CodeRegion& c) { return t < c.t0; });
  if (it != r.begin() && time < std::prev(it)->t1) {
    region_hint_ = static_cast<std::size_t>(std::prev(it) - r.begin());
    return region_hint_;
  }
  return r.size();  // "other"
}

std::size_t SignatureTracer::slot_of(std::uint64_t time) {
  const std::size_t i = region_of(time);
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
