// The capture phase of PSnAP: references -> regions -> windows -> loops.
#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "hmtt/psnap/psnap.h"

namespace hmtt::psnap {

namespace {

constexpr std::array<std::string_view, kStrideBins> kLabels = {
    "0",  "+1", "+2", "+4", "+8", "+16", "+32", "+64", "+128", "+256",
    "-1", "-2", "-4", "-8", "-16", "-32", "-64", "-128", "-256", "random"};

// Bytes: a window's region of fewer than merge_below accesses that lies in a
// loop region spanning at least this much (an array, not a few hot lines)
// joins that region instead of the merged one (close_window, step 2;
// docs/accuracy.md, "Scattered accesses join the array they fall in").
constexpr std::uint64_t kJoinSpan = std::uint64_t{16} << 10;

}  // namespace

int stride_bin(std::int64_t stride) {
  if (stride == 0) return 0;
  const std::uint64_t mag = stride > 0 ? static_cast<std::uint64_t>(stride) : static_cast<std::uint64_t>(-(stride + 1)) + 1;
  if (mag > 256) return kRandomBin;
  const int k = static_cast<int>(std::bit_width(mag)) - 1;  // 2^k <= mag < 2^(k+1), k in 0..8
  return stride > 0 ? 1 + k : 10 + k;
}

std::string_view stride_bin_label(int bin) {
  return bin >= 0 && bin < kStrideBins ? kLabels[static_cast<std::size_t>(bin)] : std::string_view("?");
}

int stride_bin_of_label(std::string_view label) {
  for (int b = 0; b < kStrideBins; ++b)
    if (kLabels[static_cast<std::size_t>(b)] == label) return b;
  return -1;
}

std::uint64_t StreamProfile::region_count() const {
  std::uint64_t n = 0;
  for (const auto& l : loops) n += l.regions.size();
  return n;
}

bool StreamProfile::code_delimited() const {
  return std::any_of(loops.begin(), loops.end(),
                     [](const LoopProfile& l) { return l.code_region != analysis::kOtherRegionId; });
}

std::uint64_t RegionProfile::swept() const {
  std::uint64_t n = 0;
  for (const auto& w : sweeps) n += w.count;
  return n;
}

std::uint64_t RegionProfile::lines_in_block(std::uint64_t block) const {
  constexpr int kLineBits = kFootprintBlockShift - 6;
  if (base > last || block < (base >> kFootprintBlockShift) || block > (last >> kFootprintBlockShift)) return 0;
  const std::uint64_t lo = std::max(block << kLineBits, base >> 6);
  const std::uint64_t hi = std::min(((block + 1) << kLineBits) - 1, last >> 6);
  return hi - lo + 1;
}

double StreamProfile::complexity() const {
  return (1000.0 * static_cast<double>(loops.size()) + (80.0 + 3610.0) * static_cast<double>(region_count())) /
         (1000.0 + 80.0 + 3610.0);
}

namespace {

// A region while it is being profiled: the profile plus what finishing it needs.
struct RegionAccumulator {
  RegionProfile p;
  std::unordered_map<std::int64_t, std::uint64_t> exact;  // exact stride -> count (|stride| <= 256)
  std::unordered_map<std::uint64_t, std::uint64_t> lines;  // 64-byte line -> ordinal of its last access
  std::map<std::uint32_t, std::uint64_t> sizes;
  // (line, trace time) of each line's first access, and the region's first and last access times:
  // the footprint-growth curve (RegionProfile::growth). An absorbed region's lines come with theirs.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> first_touch;
  std::uint64_t now = 0, t_first = UINT64_MAX, t_last = 0;
  // (loop instance, accesses in it) for each instance that touched the region, in instance order:
  // the activity curve (RegionProfile::activity). An absorbed region's are merged in.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> per_instance;
  void count_instance(std::uint64_t instance) {
    if (per_instance.empty() || per_instance.back().first != instance) per_instance.emplace_back(instance, 0);
    ++per_instance.back().second;
  }
  // Random strides by exact value, each with its returns, so the most common one can become the
  // sweep (RegionProfile::sweep) and leave jump_reuse. At most kFarStrides values are held, by the
  // Space-Saving rule: a new value takes the place of the least counted one; `error` is what it
  // inherited, so count - error strides (and their returns) were this value for certain.
  struct FarStride {
    std::uint64_t count = 0;
    std::uint64_t error = 0;
    std::uint64_t repeats = 0;    // times it came right after itself (so count - error - repeats runs)
    std::uint64_t long_runs = 0;  // repeats that made a run two long (the runs of two or more)
    std::uint64_t alternations = 0;  // times it came two after itself, a stride within +-256 between
    std::array<std::uint64_t, RegionProfile::kJumpBins> reuse{};
  };
  static constexpr std::size_t kFarStrides = 64;
  static constexpr std::uint64_t kSweepMin = 16;  // fewer is no pattern to keep
  FarStride* far_stride(std::int64_t stride, std::uint64_t n) {
    auto it = far.find(stride);
    if (it == far.end()) {
      FarStride f;
      if (far.size() >= kFarStrides) {
        auto least = far.begin();
        for (auto j = far.begin(); j != far.end(); ++j)
          if (j->second.count < least->second.count || (j->second.count == least->second.count && j->first < least->first))
            least = j;
        f.count = f.error = least->second.count;
        far.erase(least);
      }
      it = far.emplace(stride, f).first;
    }
    it->second.count += n;
    return &it->second;
  }
  std::unordered_map<std::int64_t, FarStride> far;
  std::uint64_t cursor = 0;  // the previous address (strides are taken from it)
  int prev_bin = -1;
  std::int64_t prev_stride = 0;
  std::int64_t prev2_stride = 0;
  bool prev_repeat = false;  // the previous stride was a random one repeated
  bool ranged = false;  // base and last were set before the first access (a loop region)
  std::uint64_t window_start = 0;  // returns count from this access on (the window's first, or 0: the loop's)

  // How many of this region's accesses ago `line` was last touched (0: never);
  // records this access as its last.
  std::uint64_t touch(std::uint64_t line) {
    auto [it, fresh] = lines.try_emplace(line, p.count);
    if (fresh) {
      first_touch.emplace_back(line, now);
      return 0;
    }
    if (it->second < window_start) {
      it->second = p.count;
      return 0;
    }
    const std::uint64_t d = p.count - it->second;
    it->second = p.count;
    return d;
  }

  void access(const Reference& ref) {
    const std::uint64_t a = ref.address;
    now = ref.time;
    t_first = std::min(t_first, now);
    t_last = std::max(t_last, now);
    if (p.count == 0) {
      if (!ranged) p.base = p.last = a;
      p.first = a;
      touch(a >> 6);
    } else {
      const auto stride = static_cast<std::int64_t>(a - cursor);
      const int bin = stride_bin(stride);
      ++p.strides[static_cast<std::size_t>(bin)];
      if (bin != kRandomBin) ++exact[stride];
      if (prev_bin >= 0) ++p.transitions[static_cast<std::size_t>(prev_bin * kStrideBins + bin)];
      const bool repeat = bin == kRandomBin && prev_bin == kRandomBin && stride == prev_stride;
      const bool alternation = bin == kRandomBin && prev_bin >= 0 && prev_bin != kRandomBin && stride == prev2_stride;
      prev_bin = bin;
      prev2_stride = prev_stride;
      prev_stride = stride;
      const bool moved = bin != kRandomBin && (a >> 6) != (cursor >> 6);
      p.moves += moved;
      const std::uint64_t d = touch(a >> 6);
      FarStride* fs = bin == kRandomBin ? far_stride(stride, 1) : nullptr;
      if (fs && repeat) {
        ++fs->repeats;
        fs->long_runs += !prev_repeat;
      }
      prev_repeat = repeat;
      if (fs && alternation) ++fs->alternations;
      if ((bin == kRandomBin || moved) && d > 0) {
        const int k = static_cast<int>(std::bit_width(d)) - 1;
        auto& reuse = bin == kRandomBin ? p.jump_reuse : p.move_reuse;
        if (k < RegionProfile::kJumpBins) {
          ++reuse[static_cast<std::size_t>(k)];
          if (fs) ++fs->reuse[static_cast<std::size_t>(k)];
        }
      }
    }
    p.base = std::min(p.base, a);
    p.last = std::max(p.last, a);
    cursor = a;
    ++p.count;
    ++p.kinds[static_cast<std::size_t>(ref.kind) & 3];
    ++sizes[ref.size];
  }

  // Folds `o` into this region (this one keeps its first address and cursor).
  void absorb(const RegionAccumulator& o) {
    p.first_instance = std::min(p.first_instance, o.p.first_instance);
    p.last_instance = std::max(p.last_instance, o.p.last_instance);
    p.base = std::min(p.base, o.p.base);
    p.last = std::max(p.last, o.p.last);
    p.count += o.p.count;
    p.runs += o.p.runs;
    p.merged += o.p.merged;
    for (std::size_t k = 0; k < p.kinds.size(); ++k) p.kinds[k] += o.p.kinds[k];
    for (std::size_t b = 0; b < p.strides.size(); ++b) p.strides[b] += o.p.strides[b];
    for (std::size_t t = 0; t < p.transitions.size(); ++t) p.transitions[t] += o.p.transitions[t];
    for (std::size_t k = 0; k < p.jump_reuse.size(); ++k) p.jump_reuse[k] += o.p.jump_reuse[k];
    for (std::size_t k = 0; k < p.move_reuse.size(); ++k) p.move_reuse[k] += o.p.move_reuse[k];
    p.moves += o.p.moves;
    for (const auto& [s, c] : o.exact) exact[s] += c;
    for (const auto& [s, c] : o.sizes) sizes[s] += c;
    for (const auto& [s, f] : o.far) {
      FarStride* into = far_stride(s, f.count - f.error);
      into->repeats += f.repeats;
      into->long_runs += f.long_runs;
      into->alternations += f.alternations;
      for (std::size_t k = 0; k < f.reuse.size(); ++k) into->reuse[k] += f.reuse[k];
    }
    first_touch.insert(first_touch.end(), o.first_touch.begin(), o.first_touch.end());
    {
      std::vector<std::pair<std::uint64_t, std::uint64_t>> both;
      both.reserve(per_instance.size() + o.per_instance.size());
      std::merge(per_instance.begin(), per_instance.end(), o.per_instance.begin(), o.per_instance.end(),
                 std::back_inserter(both), [](const auto& x, const auto& y) { return x.first < y.first; });
      per_instance.clear();
      for (const auto& e : both) {
        if (!per_instance.empty() && per_instance.back().first == e.first) per_instance.back().second += e.second;
        else per_instance.push_back(e);
      }
    }
    t_first = std::min(t_first, o.t_first);
    t_last = std::max(t_last, o.t_last);
    lines.insert(o.lines.begin(), o.lines.end());  // (the other region's ordinals are its own: approximate)
  }

  RegionProfile finished() const {
    RegionProfile r = p;
    r.working_set = lines.size();
    if (p.merged > 0) {
      std::map<std::uint64_t, std::uint32_t> blocks;
      for (const auto& [line, at] : lines) ++blocks[line >> (RegionProfile::kFootprintBlockShift - 6)];
      r.footprint.assign(blocks.begin(), blocks.end());
      r.footprint_open = footprint_open(r.footprint);
    }
    if (!p.code && p.count >= RegionProfile::kGrowthMinCount && t_last > t_first) r.growth = growth();
    r.activity = activity();
    std::array<std::uint64_t, kStrideBins> best{};
    for (const auto& [s, c] : exact) {
      const auto b = static_cast<std::size_t>(stride_bin(s));
      if (c > best[b] || (c == best[b] && s < r.exact[b])) {
        best[b] = c;
        r.exact[b] = s;
      }
    }
    for (int b = 0; b < kRandomBin; ++b)  // a bin never seen keeps its nominal stride
      if (best[static_cast<std::size_t>(b)] == 0) r.exact[static_cast<std::size_t>(b)] = nominal_stride(b);
    r.sizes.assign(sizes.begin(), sizes.end());
    std::stable_sort(r.sizes.begin(), r.sizes.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    if (r.sizes.size() > 4) r.sizes.resize(4);  // the four most common sizes
    // The sweeps: the random strides seen most often for certain, each a quarter of them. A second
    // one is kept only in the first's direction: two steps down a table (bzip2's +1024, and +1020
    // after +4) walk a lattice, while steps back and forth (a loop's code, -317 and +284) return to
    // lines the returns already model (docs/accuracy.md).
    std::vector<std::pair<std::int64_t, const FarStride*>> ranked;
    for (const auto& [s, f] : far) ranked.emplace_back(s, &f);
    std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
      const std::uint64_t cx = x.second->count - x.second->error, cy = y.second->count - y.second->error;
      return cx != cy ? cx > cy : x.first < y.first;
    });
    for (const auto& [stride, f] : ranked) {
      const std::uint64_t c = f->count - f->error;
      if (r.sweeps.size() >= kMaxSweeps || c < kSweepMin || 4 * c < r.strides[kRandomBin]) break;
      if (!r.sweeps.empty() && (stride < 0) != (r.sweeps.front().stride < 0)) continue;
      // (a repeat counted before an eviction may outlive its count: at least one run)
      const std::uint64_t repeats = std::min(f->repeats, c - 1);
      r.sweeps.push_back({stride, c, c - repeats, std::min({f->long_runs, c - repeats, repeats}), std::min(f->alternations, c - repeats)});
      for (std::size_t k = 0; k < r.jump_reuse.size(); ++k) r.jump_reuse[k] -= f->reuse[k];
    }
    return r;
  }

  // RegionProfile::footprint_open: per block, its lines' earliest first touch over the lifetime.
  std::vector<std::uint32_t> footprint_open(const std::vector<std::pair<std::uint64_t, std::uint32_t>>& blocks) const {
    std::vector<std::uint64_t> earliest(blocks.size(), UINT64_MAX);
    for (const auto& [line, t] : first_touch) {
      const std::uint64_t block = line >> (RegionProfile::kFootprintBlockShift - 6);
      const auto it = std::lower_bound(blocks.begin(), blocks.end(), block, [](const auto& e, std::uint64_t b) { return e.first < b; });
      if (it != blocks.end() && it->first == block) {
        auto& e = earliest[static_cast<std::size_t>(it - blocks.begin())];
        e = std::min(e, t);
      }
    }
    std::vector<std::uint32_t> open;
    open.reserve(blocks.size());
    const double span = t_last > t_first ? static_cast<double>(t_last - t_first) : 0.0;
    for (const auto t : earliest) {
      const double share = span > 0.0 && t != UINT64_MAX ? static_cast<double>(std::max(t, t_first) - t_first) / span : 0.0;
      open.push_back(static_cast<std::uint32_t>(std::lround(std::clamp(share, 0.0, 1.0) * RegionProfile::kGrowthScale)));
    }
    return open;
  }

  // RegionProfile::growth: the first-touch times in order (each line's earliest, as absorbed regions
  // may share lines), and the time by which each eighth of them had come, over the lifetime.
  std::vector<std::uint32_t> growth() const {
    std::unordered_map<std::uint64_t, std::uint64_t> first;
    first.reserve(first_touch.size());
    for (const auto& [line, t] : first_touch) {
      auto [it, fresh] = first.try_emplace(line, t);
      if (!fresh) it->second = std::min(it->second, t);
    }
    std::vector<std::uint64_t> times;
    times.reserve(first.size());
    for (const auto& [line, t] : first) times.push_back(t);
    std::sort(times.begin(), times.end());
    std::vector<std::uint32_t> g;
    const std::size_t n = RegionProfile::kGrowthPoints;
    const double span = static_cast<double>(t_last - t_first);
    for (std::size_t j = 1; j <= n; ++j) {
      const std::uint64_t t = times[std::max<std::size_t>(j * times.size() / n, 1) - 1];
      const double share = static_cast<double>(std::max(t, t_first) - t_first) / span;
      g.push_back(static_cast<std::uint32_t>(std::lround(share * RegionProfile::kGrowthScale)));
    }
    return g;
  }

  // RegionProfile::activity: where in the lifetime each eighth of the accesses was reached, the
  // instances' accesses in order; empty for a short or one-instance region, or an even one.
  std::vector<std::uint32_t> activity() const {
    const std::uint64_t life = p.last_instance - p.first_instance + 1;
    // Code is left out: instruction fetches follow the loop's own code, and with their curves gzw's
    // L2 error went 2.2 -> 2.9 % and sed's 1.8 -> 2.3 % (docs/accuracy.md).
    if (p.code || p.count < RegionProfile::kActivityMinCount || life < 2 || per_instance.empty()) return {};
    std::uint64_t total = 0;
    for (const auto& [i, n] : per_instance) total += n;
    const std::size_t points = RegionProfile::kActivityPoints;
    std::vector<std::uint32_t> a;
    double uneven = 0.0;
    std::uint64_t before = 0;  // accesses in the instances before `at`
    std::size_t at = 0;
    for (std::size_t j = 1; j <= points; ++j) {
      const double want = static_cast<double>(total) * static_cast<double>(j) / static_cast<double>(points);
      while (at + 1 < per_instance.size() && static_cast<double>(before + per_instance[at].second) < want)
        before += per_instance[at++].second;
      const auto& [instance, n] = per_instance[at];
      const double within = std::clamp((want - static_cast<double>(before)) / static_cast<double>(n), 0.0, 1.0);
      const double x = (static_cast<double>(instance - std::min(instance, p.first_instance)) + within) / static_cast<double>(life);
      const double share = std::clamp(x, 0.0, 1.0);
      uneven = std::max(uneven, std::abs(share - static_cast<double>(j) / static_cast<double>(points)));
      a.push_back(static_cast<std::uint32_t>(std::lround(share * RegionProfile::kGrowthScale)));
    }
    for (std::size_t j = 1; j < a.size(); ++j) a[j] = std::max(a[j], a[j - 1]);
    if (uneven < RegionProfile::kActivityUneven) return {};
    return a;
  }

  static std::int64_t nominal_stride(int bin) {
    if (bin == 0 || bin >= kRandomBin) return 0;
    return bin < 10 ? (std::int64_t{1} << (bin - 1)) : -(std::int64_t{1} << (bin - 10));
  }
};

// Regions of one window, found by address proximity; disjoint, with gaps wider
// than the region distance (a region that grows to within reach of a
// neighbour absorbs it). Only their ranges and access counts are kept: the
// loop regions they join are profiled on the window's references afterwards.
class RegionFinder {
 public:
  struct Region {
    std::uint64_t base = 0, last = 0;  // lowest and highest byte address seen
    std::uint64_t count = 0;           // accesses
    bool code = false;                 // instruction fetches
  };

  RegionFinder(std::uint64_t distance, std::uint64_t lattice) : d_(distance), lattice_(lattice) {}

  std::uint32_t access(const Reference& ref) {
    auto& index = ref.kind == Kind::IFetch ? code_ : data_;
    const std::uint64_t a = ref.address;
    std::uint32_t r = UINT32_MAX;
    auto it = index.upper_bound(a > UINT64_MAX - d_ ? UINT64_MAX : a + d_);
    if (it != index.begin()) {
      --it;
      if (regions_[it->second].last + d_ >= a) r = it->second;
    }
    if (r == UINT32_MAX && ref.kind != Kind::IFetch) r = lattice(a);
    if (r == UINT32_MAX) {
      if (ref.kind != Kind::IFetch) note_new(a, static_cast<std::uint32_t>(regions_.size()));
      r = static_cast<std::uint32_t>(regions_.size());
      regions_.push_back({a, a, 1, ref.kind == Kind::IFetch});
      alias_.push_back(r);
      index.emplace(a, r);
      return r;  // nothing is within reach of it (it would have joined)
    }
    auto& g = regions_[r];
    ++g.count;
    g.last = std::max(g.last, a);
    if (a < g.base) {
      index.erase(g.base);
      g.base = a;
      index.emplace(a, r);
    }
    return coalesce(index, r);
  }

  std::uint32_t root(std::uint32_t r) const {
    while (alias_[r] != r) r = alias_[r];
    return r;
  }
  const std::vector<Region>& regions() const { return regions_; }

 private:
  // Merges `r` with neighbours now within reach; returns the surviving id.
  std::uint32_t coalesce(std::map<std::uint64_t, std::uint32_t>& index, std::uint32_t r) {
    for (;;) {
      auto it = index.find(regions_[r].base);
      auto next = std::next(it);
      std::uint32_t other = UINT32_MAX;
      if (next != index.end() && regions_[r].last + d_ >= next->first) other = next->second;
      if (other == UINT32_MAX && it != index.begin()) {
        auto prev = std::prev(it);
        if (regions_[prev->second].last + d_ >= regions_[r].base) other = prev->second;
      }
      if (other == UINT32_MAX) return r;
      r = unite(index, r, other);
    }
  }

  // Two regions (roots) become one spanning both; the older id survives and is returned.
  std::uint32_t unite(std::map<std::uint64_t, std::uint32_t>& index, std::uint32_t r, std::uint32_t other) {
    const std::uint32_t keep = std::min(r, other), gone = std::max(r, other);
    auto& k = regions_[keep];
    const auto& g = regions_[gone];
    index.erase(k.base);
    index.erase(g.base);
    k.base = std::min(k.base, g.base);
    k.last = std::max(k.last, g.last);
    k.count += g.count;
    alias_[gone] = keep;
    index.emplace(k.base, keep);
    return keep;
  }

  // A lattice (PsnapKnobs::lattice_stride): a data address out of every region's reach, one
  // stride s on from a recent such address that was itself s on from another, with
  // region_distance < |s| <= lattice_stride: the rows of a table read down a column. It joins the
  // region of the row before, which spans the three (and every region between them), instead of
  // starting a region of its own; the steps between rows become that region's strides (its sweep).
  std::uint32_t lattice(std::uint64_t a) {
    if (lattice_ <= d_) return UINT32_MAX;
    for (unsigned i = 0; i < kRecent; ++i) {
      const auto& x = recent_[i];
      if (!x.used) continue;
      const std::uint64_t s = a - x.addr;
      const std::uint64_t mag = static_cast<std::int64_t>(s) < 0 ? 0 - s : s;
      if (mag <= d_ || mag > lattice_) continue;
      for (unsigned j = 0; j < kRecent; ++j) {
        const auto& y = recent_[j];
        if (!y.used || j == i || x.addr - y.addr != s) continue;
        std::uint32_t r = root(x.region);
        if (root(y.region) != r) r = unite(data_, r, root(y.region));
        auto& g = regions_[r];
        ++g.count;
        g.last = std::max(g.last, a);
        if (a < g.base) {  // no region starts at a: it was out of every region's reach
          data_.erase(g.base);
          g.base = a;
          data_.emplace(a, r);
        }
        const std::uint32_t k = coalesce(data_, r);
        note_new(a, k);
        return k;
      }
    }
    return UINT32_MAX;
  }
  void note_new(std::uint64_t a, std::uint32_t r) {
    recent_[next_recent_] = {a, r, true};
    next_recent_ = (next_recent_ + 1) % kRecent;
  }
  static constexpr unsigned kRecent = 8;  // the new addresses looked back on
  struct Recent {
    std::uint64_t addr = 0;
    std::uint32_t region = 0;
    bool used = false;
  };
  std::array<Recent, kRecent> recent_{};
  unsigned next_recent_ = 0;

  std::uint64_t d_;
  std::uint64_t lattice_;
  std::vector<Region> regions_;
  std::vector<std::uint32_t> alias_;
  std::map<std::uint64_t, std::uint32_t> code_, data_;  // base -> region id (roots only)
};

struct LoopAccumulator {
  std::uint32_t code_region = analysis::kOtherRegionId;
  std::uint64_t instances = 0;
  std::uint64_t references = 0;
  std::vector<std::uint64_t> pages;  // signature of the first window (sorted keys, see State::signature)
  std::vector<std::pair<std::uint32_t, std::uint64_t>> pattern;
  std::vector<RegionAccumulator> regions;
  std::vector<std::uint32_t> alias;
  std::uint32_t scatter[2] = {UINT32_MAX, UINT32_MAX};  // merged region per class (data, code)

  std::uint32_t root(std::uint32_t r) const {
    while (alias[r] != r) r = alias[r];
    return r;
  }
  std::uint32_t add(RegionAccumulator&& r) {
    const auto id = static_cast<std::uint32_t>(regions.size());
    regions.push_back(std::move(r));
    alias.push_back(id);
    return id;
  }
};

double jaccard(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::size_t i = 0, j = 0, both = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) {
      ++both;
      ++i;
      ++j;
    } else if (a[i] < b[j]) {
      ++i;
    } else {
      ++j;
    }
  }
  const std::size_t any = a.size() + b.size() - both;
  return any ? static_cast<double>(both) / static_cast<double>(any) : 1.0;
}

}  // namespace

struct StreamProfiler::State {
  State(const PsnapKnobs& k, std::vector<analysis::CodeRegion> c)
      : knobs(k), code_regions(std::move(c)), window_region(code_regions.size()),
        finder(k.region_distance, k.lattice_stride) {}
  PsnapKnobs knobs;
  std::uint64_t references = 0;
  // Code regions: the interval of the open window (code_regions.size(): none), and each id's loop.
  std::vector<analysis::CodeRegion> code_regions;
  analysis::RegionCursor cursor;
  std::size_t window_region;
  std::unordered_map<std::uint32_t, std::uint32_t> loop_of_region;
  // The open window.
  RegionFinder finder;
  std::uint64_t in_window = 0;
  std::vector<std::pair<Reference, std::uint32_t>> log;  // the window's references and their regions then
  std::vector<std::pair<std::uint32_t, std::uint64_t>> pattern;  // window-local region ids, runs
  bool pattern_full = false;
  std::uint32_t last_region = UINT32_MAX;
  std::unordered_set<std::uint64_t> pages;       // 4 KB pages touched (data and code)
  std::unordered_set<std::uint64_t> code_lines;  // 64-byte lines of instruction fetches
  // Closed windows.
  std::vector<LoopAccumulator> loops;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> order;

  void close_window();
};

void StreamProfiler::State::close_window() {
  if (in_window == 0) return;
  // 1. Which loop: the one whose signature overlaps most, if enough. A loop
  //    is code (PSnAP finds loops in the binary), so with loop_signature=code
  //    the signature is the window's instruction lines, when it has any: the
  //    same loop walking other data is still the same loop. Otherwise (or with
  //    loop_signature=pages) it is every page touched. Keys of the two kinds
  //    never match (low bit).
  std::vector<std::uint64_t> sig;
  if (knobs.loop_signature == LoopSignature::Code && !code_lines.empty())
    for (const auto c : code_lines) sig.push_back(c << 1 | 1);
  else
    for (const auto pg : pages) sig.push_back(pg << 1);
  std::sort(sig.begin(), sig.end());
  // A window in a code region is an instance of that region's loop; the
  // others join the segmentation's loops only.
  const std::uint32_t code_region =
      window_region < code_regions.size() ? code_regions[window_region].id : analysis::kOtherRegionId;
  std::uint32_t loop = UINT32_MAX;
  if (code_region != analysis::kOtherRegionId) {
    if (const auto it = loop_of_region.find(code_region); it != loop_of_region.end()) loop = it->second;
    else loop_of_region.emplace(code_region, static_cast<std::uint32_t>(loops.size()));
  }
  double best = -1;
  for (std::uint32_t l = 0; code_region == analysis::kOtherRegionId && l < loops.size(); ++l) {
    if (loops[l].code_region != analysis::kOtherRegionId) continue;
    const double j = jaccard(sig, loops[l].pages);
    if (j >= knobs.loop_similarity && j > best) {
      best = j;
      loop = l;
    }
  }
  // 2. The window's regions (their ranges): the ones touched fewer than
  //    merge_below times (pointer chasing) are merged into one region per
  //    class, unless they lie in (within region_distance of) a region of
  //    kJoinSpan bytes or more that the loop already has: then they are
  //    more of that array's accesses (a tree's nodes read again after the
  //    pass that wrote them) and join it in step 3, so that they keep their
  //    place and time (its footprint and activity curve) instead of being
  //    drawn anywhere in the merged region's range at any time.
  const auto& raw = finder.regions();
  // The loop's unmerged regions of each class, by base, with the running
  // maximum of their ends: a range overlaps one of them iff the last one
  // starting at or before its end reaches its start.
  struct Known {
    std::vector<std::uint64_t> base, reach;
  } known[2];
  if (loop != UINT32_MAX) {
    const auto& L = loops[loop];
    std::vector<std::pair<std::uint64_t, std::uint64_t>> spans[2];
    for (std::uint32_t r = 0; r < L.regions.size(); ++r) {
      const auto& q = L.regions[r].p;
      if (L.alias[r] != r || q.merged > 0 || q.last - q.base < kJoinSpan) continue;
      spans[q.code ? 1 : 0].emplace_back(q.base, q.last);
    }
    for (int c = 0; c < 2; ++c) {
      std::sort(spans[c].begin(), spans[c].end());
      std::uint64_t reach = 0;
      for (const auto& [b0, l0] : spans[c]) {
        reach = std::max(reach, l0);
        known[c].base.push_back(b0);
        known[c].reach.push_back(reach);
      }
    }
  }
  auto in_known = [&](const auto& acc) {
    const auto& k = known[acc.code ? 1 : 0];
    const std::uint64_t d = knobs.region_distance;
    const std::uint64_t end = acc.last > UINT64_MAX - d ? UINT64_MAX : acc.last + d;
    const auto it = std::upper_bound(k.base.begin(), k.base.end(), end);
    if (it == k.base.begin()) return false;
    const std::uint64_t reach = k.reach[static_cast<std::size_t>(it - k.base.begin()) - 1];
    return reach > UINT64_MAX - d || reach + d >= acc.base;
  };
  struct Slot {
    std::uint64_t base = 0, last = 0;
    bool code = false;
    std::uint64_t merged = 0;  // >0: the merged region, standing for this many regions
  };
  std::vector<std::uint32_t> local(raw.size(), UINT32_MAX);  // root id -> window region index
  std::vector<Slot> regions;
  std::uint32_t scatter[2] = {UINT32_MAX, UINT32_MAX};
  for (std::uint32_t r = 0; r < raw.size(); ++r) {
    if (finder.root(r) != r) continue;
    const auto& acc = raw[r];
    if (acc.count >= knobs.merge_below || in_known(acc)) {
      local[r] = static_cast<std::uint32_t>(regions.size());
      regions.push_back({acc.base, acc.last, acc.code, 0});
      continue;
    }
    auto& s = scatter[acc.code ? 1 : 0];
    if (s == UINT32_MAX) {
      s = static_cast<std::uint32_t>(regions.size());
      regions.push_back({acc.base, acc.last, acc.code, 1});
    } else {
      regions[s].base = std::min(regions[s].base, acc.base);
      regions[s].last = std::max(regions[s].last, acc.last);
      ++regions[s].merged;
    }
    local[r] = s;
  }

  const std::uint64_t instance = loop == UINT32_MAX ? 0 : loops[loop].instances;
  auto fresh = [&](const Slot& w) {
    RegionAccumulator a;
    a.p.base = w.base;
    a.p.last = w.last;
    a.ranged = true;
    a.p.code = w.code;
    a.p.merged = w.merged;
    a.p.first_instance = a.p.last_instance = instance;
    return a;
  };
  std::vector<std::uint32_t> to_loop(regions.size());  // window region -> loop region
  if (loop == UINT32_MAX) {
    loop = static_cast<std::uint32_t>(loops.size());
    loops.emplace_back();
    auto& L = loops.back();
    L.code_region = code_region;
    if (code_region == analysis::kOtherRegionId) L.pages = std::move(sig);
    for (std::uint32_t i = 0; i < regions.size(); ++i) {
      to_loop[i] = L.add(fresh(regions[i]));
      if (regions[i].merged > 0) L.scatter[regions[i].code ? 1 : 0] = to_loop[i];
    }
    L.pattern.reserve(pattern.size());
    for (const auto& [id, n] : pattern) {
      const std::uint32_t r = to_loop[local[finder.root(id)]];
      if (!L.pattern.empty() && L.pattern.back().first == r) L.pattern.back().second += n;
      else L.pattern.emplace_back(r, n);
    }
  } else {
    // 3. Aggregate into the loop: each region joins the loop regions it
    //    overlaps (within the region distance); merged regions join the
    //    loop's merged region of their class.
    auto& L = loops[loop];
    const std::uint64_t d = knobs.region_distance;
    auto widen = [&](std::uint32_t r, const Slot& w) {
      auto& q = L.regions[r].p;
      q.base = std::min(q.base, w.base);
      q.last = std::max(q.last, w.last);
      q.merged += w.merged;
      q.first_instance = std::min(q.first_instance, instance);
      q.last_instance = std::max(q.last_instance, instance);
    };
    for (std::uint32_t i = 0; i < regions.size(); ++i) {
      const Slot& w = regions[i];
      if (w.merged > 0) {
        auto& s = L.scatter[w.code ? 1 : 0];
        if (s == UINT32_MAX) s = L.add(fresh(w));
        else widen(s, w);
        to_loop[i] = s;
        continue;
      }
      std::uint32_t into = UINT32_MAX;
      for (std::uint32_t r = 0; r < L.regions.size(); ++r) {
        if (L.alias[r] != r || L.regions[r].p.merged > 0 || L.regions[r].p.code != w.code) continue;
        const auto& q = L.regions[r].p;
        if (q.base > w.last + d || q.last + d < w.base) continue;
        if (into == UINT32_MAX) {
          into = r;
          widen(r, w);
        } else {
          L.regions[into].absorb(L.regions[r]);
          L.regions[r] = RegionAccumulator{};
          L.alias[r] = into;
        }
      }
      to_loop[i] = into == UINT32_MAX ? L.add(fresh(w)) : into;
    }
  }
  auto& L = loops[loop];
  // 4. The window's references, in order, go to the loop regions they now
  //    belong to, so each loop region's strides, stride-order graph and
  //    returns are those of its own stream: the jumps between window
  //    regions that joined one loop region (a lattice of small regions
  //    walked in turn, a merged pointer chase) are strides of that stream.
  //    A run is a stretch of the window's references in one loop region.
  //    Returns to a line (jump_reuse, move_reuse) count across the loop's
  //    windows (`returns=loop`, the default): a line first touched in this
  //    window but used in an earlier one is a return, not a far jump, and
  //    replay returns to a line last touched that long ago. gzw's hash
  //    chains touch 64 lines in their first window and add 10-20 a window;
  //    counted within a window, every window's first touches were far jumps
  //    over all 887 lines, and the synthetic region touched 700 lines a
  //    window from the first on (now 332 in the first, then 1-13 more a
  //    window; docs/accuracy.md). Counting across windows works only with
  //    replay by last touch: replayed as the line of the access d ago, the
  //    returns came back too soon (gzip's L2 error 0.9 -> 28 % in issue 10).
  //    With `returns=window` they count within the window, as when each
  //    window's regions were profiled alone. The merged region counts across
  //    windows either way: its pointer chase revisits nodes from window to
  //    window, and without those returns replay scattered xz's merged
  //    accesses over 9,738 lines (docs/accuracy.md).
  const bool across = knobs.returns == ReturnScope::Loop;
  for (auto& acc : L.regions) acc.window_start = acc.p.merged || across ? 0 : acc.p.count;
  std::uint32_t prev = UINT32_MAX;
  for (const auto& [ref, id] : log) {
    const std::uint32_t r = L.root(to_loop[local[finder.root(id)]]);
    auto& acc = L.regions[r];
    if (r != prev) ++acc.p.runs;
    prev = r;
    acc.count_instance(instance);
    acc.access(ref);
  }
  ++L.instances;
  L.references += in_window;
  if (!order.empty() && order.back().first == loop) ++order.back().second;
  else order.emplace_back(loop, 1);

  finder = RegionFinder(knobs.region_distance, knobs.lattice_stride);
  log.clear();
  in_window = 0;
  pattern.clear();
  pattern_full = false;
  last_region = UINT32_MAX;
  pages.clear();
  code_lines.clear();
}

StreamProfiler::StreamProfiler(const PsnapKnobs& knobs, std::vector<analysis::CodeRegion> code_regions)
    : s_(std::make_unique<State>(knobs, std::move(code_regions))) {}
StreamProfiler::~StreamProfiler() = default;

void StreamProfiler::access(const Reference& ref) {
  auto& s = *s_;
  if (!s.code_regions.empty()) {
    // Entering or leaving a code region ends the window: an instance of a loop never spans two.
    const std::size_t region = s.cursor.at(s.code_regions, ref.time);
    if (region != s.window_region) {
      s.close_window();
      s.window_region = region;
    }
  }
  const std::uint32_t r = s.finder.access(ref);
  s.log.emplace_back(ref, r);
  const bool same = s.last_region != UINT32_MAX && s.finder.root(s.last_region) == r;
  s.last_region = r;
  if (!s.pattern_full) {
    if (same && !s.pattern.empty()) ++s.pattern.back().second;
    else if (s.pattern.size() < s.knobs.pattern_buffer) s.pattern.emplace_back(r, 1);
    else s.pattern_full = true;
  }
  s.pages.insert(ref.address >> 12);
  if (ref.kind == Kind::IFetch) s.code_lines.insert(ref.address >> 6);
  ++s.references;
  if (++s.in_window == s.knobs.window) s.close_window();
}

StreamProfile StreamProfiler::finish() {
  auto& s = *s_;
  s.close_window();
  StreamProfile out;
  out.knobs = s.knobs;
  out.references = s.references;
  out.order = s.order;
  for (auto& L : s.loops) {
    LoopProfile lp;
    lp.code_region = L.code_region;
    lp.instances = L.instances;
    lp.references = L.references;
    std::vector<std::uint32_t> index(L.regions.size(), UINT32_MAX);
    for (std::uint32_t r = 0; r < L.regions.size(); ++r) {
      if (L.alias[r] != r) continue;
      index[r] = static_cast<std::uint32_t>(lp.regions.size());
      lp.regions.push_back(L.regions[r].finished());
    }
    lp.pattern.reserve(L.pattern.size());
    for (const auto& [id, n] : L.pattern) {
      const std::uint32_t r = index[L.root(id)];
      if (!lp.pattern.empty() && lp.pattern.back().first == r) lp.pattern.back().second += n;
      else lp.pattern.emplace_back(r, n);
    }
    out.loops.push_back(std::move(lp));
  }
  s.loops.clear();
  s.order.clear();
  s.references = 0;
  return out;
}

}  // namespace hmtt::psnap
