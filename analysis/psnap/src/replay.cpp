// The replay phase of PSnAP: region metrics generate addresses, pattern
// buffers interleave them, loop streams are concatenated in their order.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <optional>
#include <random>
#include <unordered_map>

#include "hmtt/psnap/psnap.h"

namespace hmtt::psnap {

namespace {

// Draws an index from cumulative weights (the last entry is the total; > 0).
std::size_t draw(const std::vector<std::uint64_t>& cumulative, std::mt19937_64& rng) {
  const std::uint64_t r = rng() % cumulative.back();
  return static_cast<std::size_t>(std::upper_bound(cumulative.begin(), cumulative.end(), r) - cumulative.begin());
}

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The i-th of a pseudo-random order of 0 .. n - 1 fixed by three odd keys: a bijection of the next
// power of two (odd multiplications, xor-shifts and additions), walked until it falls below n.
std::uint64_t permuted(std::uint64_t i, std::uint64_t n, const std::array<std::uint64_t, 3>& keys) {
  const std::uint64_t mask = std::bit_ceil(n) - 1;
  const int half = std::max(1, static_cast<int>(std::bit_width(mask)) / 2);
  std::uint64_t x = i;
  do {
    for (const auto k : keys) {
      x = (x * k) & mask;
      x ^= x >> half;
      x = (x + (k >> 7)) & mask;
    }
  } while (x >= n);
  return x;
}

// The same, the keys drawn from one 64-bit key.
std::uint64_t permuted(std::uint64_t i, std::uint64_t n, std::uint64_t key) {
  std::array<std::uint64_t, 3> keys{};
  for (auto& k : keys) k = (key = splitmix64(key)) | 1;
  return permuted(i, n, keys);
}

std::vector<std::uint64_t> cumulate(const std::uint64_t* first, std::size_t n) {
  std::vector<std::uint64_t> c(n);
  std::uint64_t t = 0;
  for (std::size_t i = 0; i < n; ++i) c[i] = t += first[i];
  return c;
}

// One region's generator; its walk continues across loop instances.
class RegionWalk {
 public:
  // layout_key: the stream's order of lines within each 64 KiB block (footprint_line), the same
  // for every region so that merged regions over the same blocks share their lines.
  RegionWalk(const RegionProfile& p, ReturnScope returns, std::uint64_t layout_key)
      : p_(p), cursor_(p.first), by_last_touch_(returns == ReturnScope::Loop && p.merged == 0), layout_key_(layout_key) {
    // The range in whole grains: the largest power of two (up to a line) dividing every address
    // and stride the profile holds. A board's 64-byte bursts then stay on line boundaries when a
    // stride wraps (with a span of last - base + 1 a wrap lands one byte short, and each such
    // access spans two lines: the board capture's 64-byte references became 1.33 accesses each,
    // and its L1 hit ratio 14 -> 34 %).
    std::uint64_t bits = p.base | p.first | p.last | 64;
    for (int b = 0; b < kRandomBin; ++b)
      if (p.strides[static_cast<std::size_t>(b)] > 0) bits |= static_cast<std::uint64_t>(p.exact[static_cast<std::size_t>(b)]);
    for (const auto& w : p.sweeps) bits |= static_cast<std::uint64_t>(w.stride);
    const std::uint64_t grain = bits & (0 - bits);  // every address of the walk is base + a multiple of it
    span_ = p.last - p.base + grain;
    histogram_ = cumulate(p.strides.data(), kStrideBins);
    for (int b = 0; b < kStrideBins; ++b)
      rows_.push_back(cumulate(p.transitions.data() + b * kStrideBins, kStrideBins));
    // A sweep's run goes on by itself (next()), so the random row's random -> random edge keeps
    // only what was not one sweep stride after the same. A long run is two strides, then one more
    // with the odds `go_on`: on average as long as the profile's long runs. An alternating sweep
    // comes back by itself too, so the edges into random give up the alternations' share.
    std::uint64_t repeats = 0, alternations = 0;
    for (const auto& w : p.sweeps) {
      SweepOdds o;
      if (w.long_runs > 0 && w.long_runs <= w.runs && w.runs <= w.count) {
        const double mean = static_cast<double>(w.count - (w.runs - w.long_runs)) / static_cast<double>(w.long_runs);
        o.long_run = static_cast<double>(w.long_runs) / static_cast<double>(w.runs);
        o.go_on = mean > 2.0 ? 1.0 - 1.0 / (mean - 1.0) : 0.0;
      }
      if (w.alternations > 0 && w.alternations <= w.count)
        o.again = static_cast<double>(w.alternations) / static_cast<double>(w.count);
      alternations += std::min(w.alternations, w.count);
      sweep_odds_.push_back(o);
      if (w.runs <= w.count) repeats += w.count - w.runs;
    }
    std::vector<std::uint64_t> t(p.transitions.begin(), p.transitions.end());
    t[kRandomBin * kStrideBins + kRandomBin] -= std::min(t[kRandomBin * kStrideBins + kRandomBin], repeats);
    if (alternations > 0) {
      std::uint64_t into = 0;
      for (int b = 0; b < kStrideBins; ++b) into += t[static_cast<std::size_t>(b * kStrideBins + kRandomBin)];
      const double keep = into > alternations ? 1.0 - static_cast<double>(alternations) / static_cast<double>(into) : 0.0;
      for (int b = 0; b < kStrideBins; ++b) {
        auto& e = t[static_cast<std::size_t>(b * kStrideBins + kRandomBin)];
        e = static_cast<std::uint64_t>(std::llround(static_cast<double>(e) * keep));
      }
    }
    if (repeats > 0 || alternations > 0)
      for (int b = 0; b < kStrideBins; ++b) rows_[static_cast<std::size_t>(b)] = cumulate(t.data() + b * kStrideBins, kStrideBins);
    kinds_ = cumulate(p.kinds.data(), p.kinds.size());
    std::vector<std::uint64_t> counts;
    for (const auto& [s, c] : p.sizes) counts.push_back(c);
    sizes_ = cumulate(counts.data(), counts.size());
    mode_bin_ = static_cast<int>(std::max_element(p.strides.begin(), p.strides.end()) - p.strides.begin());
    history_.resize(std::bit_ceil(std::clamp<std::uint64_t>(p.count, 1, std::uint64_t{1} << RegionProfile::kJumpBins)));
    if (by_last_touch_) last_flag_.assign(history_.size(), 0);
    // A walk that is one stride (a sweep) gets its returns from the stride itself, each pass
    // over the lines of the one before; steering it would cut its passes short (kSweepShare).
    std::uint64_t all = 0, top = 0;
    for (const auto c : p.strides) {
      all += c;
      top = std::max(top, c);
    }
    sweep_walk_ = by_last_touch_ && static_cast<double>(top) >= kSweepShare * static_cast<double>(all);
    // Far jumps land on fresh working-set lines first (random_address). A merged region takes
    // them from its footprint's blocks (docs/accuracy.md, stop 32: drawn at random there, a line
    // came back long after its first touch, past L2, and xz of 1 MB's L3 hit too often). Not a
    // merged region without a footprint (profiles before version 7): spread over its whole range,
    // fresh lines made xz's L3 error 1.6 -> 3.3 % and bzip2's 2.4 -> 3.6 %. Nor one of scattered
    // first touches, whose draws range over more slots (merged_draw_slots).
    if (p.merged) draw_slots_ = merged_draw_slots(p);
    fresh_far_ = p.merged && (p.footprint.empty() || draw_slots_ > 0) ? 0 : p.working_set;
    lay_out_footprint();
  }

  // A region with footprint blocks draws its far jumps' slots from them: each block holds its
  // share of the slots (its lines, scaled from the working set to draw_slots_ where that is more,
  // at most the block's lines in the range).
  void lay_out_footprint() {
    if (p_.footprint.empty() || p_.working_set == 0) return;
    const double scale = draw_slots_ > p_.working_set
                             ? static_cast<double>(draw_slots_) / static_cast<double>(p_.working_set)
                             : 1.0;
    std::uint64_t total = 0;
    for (const auto& [block, lines] : p_.footprint) {
      const auto want = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(lines * scale)));
      total += std::min(want, p_.lines_in_block(block));
      footprint_slots_.push_back(total);
    }
    if (p_.footprint_open.size() != p_.footprint.size()) return;
    open_order_.resize(p_.footprint.size());
    for (std::size_t b = 0; b < open_order_.size(); ++b) open_order_[b] = b;
    std::stable_sort(open_order_.begin(), open_order_.end(),
                     [&](std::size_t x, std::size_t y) { return p_.footprint_open[x] < p_.footprint_open[y]; });
    open_left_.assign(p_.footprint.size() + 1, 0);
    taken_.assign(p_.footprint.size(), 0);
  }

  // Opens the footprint blocks whose open time (footprint_open) the walk has reached, and the next
  // one in time as well when none is open with a slot left and `force`; false when none is.
  bool open_due(bool force) {
    const double done = std::min(1.0, static_cast<double>(ordinal_) / static_cast<double>(std::max<std::uint64_t>(1, p_.count)));
    const double at = lifetime_at(done) * RegionProfile::kGrowthScale;
    while (next_open_ < open_order_.size() &&
           (p_.footprint_open[open_order_[next_open_]] <= at || (force && open_total_ == 0))) {
      const std::size_t b = open_order_[next_open_++];
      add_open(b, static_cast<std::int64_t>(footprint_slots_[b] - (b > 0 ? footprint_slots_[b - 1] : 0) - taken_[b]));
    }
    return open_total_ > 0;
  }
  void add_open(std::size_t b, std::int64_t v) {
    for (std::size_t i = b + 1; i < open_left_.size(); i += i & (0 - i)) open_left_[i] += static_cast<std::uint64_t>(v);
    open_total_ += static_cast<std::uint64_t>(v);
  }
  // The next fresh slot: in an open block (opening the next one if none has a slot left), drawn by
  // the slots each has left (a Fenwick tree over the blocks), the block's next line in its order.
  std::uint64_t fresh_open_slot(std::mt19937_64& rng) {
    if (!open_due(true)) return rng() % footprint_slots_.back();
    std::uint64_t u = rng() % open_total_;
    std::size_t pos = 0;  // the Fenwick descent: the block holding the u-th slot left
    for (std::size_t step = std::bit_floor(open_left_.size() - 1); step > 0; step >>= 1)
      if (pos + step < open_left_.size() && open_left_[pos + step] <= u) {
        pos += step;
        u -= open_left_[pos];
      }
    const std::size_t b = pos;
    add_open(b, -1);
    return (b > 0 ? footprint_slots_[b - 1] : 0) + taken_[b]++;
  }

  // Slot s of the footprint: its block, and there the line at that place in the block's order
  // (permuted, keyed by the stream and the block: the same lines for every region, a hash table's
  // slots taken in no pattern a cache's sets would see).
  std::uint64_t footprint_line(std::uint64_t s) const {
    const auto b = static_cast<std::size_t>(std::upper_bound(footprint_slots_.begin(), footprint_slots_.end(), s) -
                                            footprint_slots_.begin());
    const std::uint64_t j = s - (b > 0 ? footprint_slots_[b - 1] : 0);
    const std::uint64_t block = p_.footprint[b].first;
    const std::uint64_t first_line = std::max(block << (RegionProfile::kFootprintBlockShift - 6), p_.base >> 6);
    const std::uint64_t room = p_.lines_in_block(block);
    return (first_line + permuted(j, room, layout_key_ ^ splitmix64(block))) << 6;
  }

  // A merged region's far jumps are drawn at random, over its working-set slots (a hash table's
  // lines, xz's: five returns for every far jump). Where its random strides are nearly all first
  // touches (returns fewer than a quarter of its far jumps: scattered loads such as the demo's,
  // each line touched once), so many draws over so few slots come back to a third of them: drawn
  // over S slots instead, the S for which the far jumps' expected distinct lines,
  // S (1 - e^(-far / S)), are the working set (at most the lines in the range). 0 = the working set.
  static std::uint64_t merged_draw_slots(const RegionProfile& p) {
    std::uint64_t returns = 0;
    for (const auto c : p.jump_reuse) returns += c;
    const std::uint64_t random = p.strides[kRandomBin];
    const std::uint64_t far = random - std::min(random, p.swept() + returns);
    if (p.working_set == 0 || far == 0 || 4 * returns >= far) return 0;
    const double w = static_cast<double>(p.working_set), f = static_cast<double>(far);
    const double lines = static_cast<double>((p.last >> 6) - (p.base >> 6) + 1);
    auto distinct = [f](double slots) { return slots * (1.0 - std::exp(-f / slots)); };
    if (lines <= w) return 0;
    if (distinct(lines) <= w) return static_cast<std::uint64_t>(lines);
    double lo = w, hi = lines;  // distinct() grows with the slots: bisect
    for (int i = 0; i < 64 && hi - lo > 0.5; ++i) {
      const double mid = 0.5 * (lo + hi);
      (distinct(mid) < w ? lo : hi) = mid;
    }
    return static_cast<std::uint64_t>(lo + 0.5);
  }

  Reference next(std::mt19937_64& rng) {
    Reference ref;
    if (started_ && alt_ >= 0 && alt_wait_ == 0) {
      const auto i = static_cast<std::size_t>(alt_);
      cursor_ = wrap(cursor_, p_.sweeps[i].stride);  // back to the sweep, one stride after the last
      prev_bin_ = kRandomBin;
      alternate(i, rng);
    } else if (started_ && run_ >= 0 &&
        (second_step_ || std::uniform_real_distribution<double>(0.0, 1.0)(rng) <
                             sweep_odds_[static_cast<std::size_t>(run_)].go_on)) {
      second_step_ = false;
      cursor_ = wrap(cursor_, p_.sweeps[static_cast<std::size_t>(run_)].stride);  // down the column
    } else if (started_) {
      run_ = -1;
      if (alt_ >= 0) --alt_wait_;
      // The first stride is the most common one; then the stride-order graph
      // leads (the histogram where the graph has no edge out of a bin).
      int bin = mode_bin_;
      if (prev_bin_ >= 0 && rows_[static_cast<std::size_t>(prev_bin_)].back() > 0)
        bin = static_cast<int>(draw(rows_[static_cast<std::size_t>(prev_bin_)], rng));
      else if (prev_bin_ >= 0 && histogram_.back() > 0)
        bin = static_cast<int>(draw(histogram_, rng));
      prev_bin_ = bin;
      cursor_ = bin == kRandomBin ? jump(rng) : steer(wrap(cursor_, p_.exact[static_cast<std::size_t>(bin)]), rng);
    }
    started_ = true;
    touch(cursor_ >> 6);
    ref.address = cursor_;
    ref.kind = kinds_.empty() || kinds_.back() == 0 ? (p_.code ? Kind::IFetch : Kind::Read)
                                                    : static_cast<Kind>(draw(kinds_, rng));
    if (p_.code) ref.kind = Kind::IFetch;
    else if (ref.kind == Kind::IFetch) ref.kind = Kind::Read;
    ref.size = sizes_.empty() || sizes_.back() == 0 ? 8 : p_.sizes[draw(sizes_, rng)].first;
    // A load or store of 2^k bytes sits on a 2^k boundary, as compilers place data (a size drawn
    // apart from the address made 12 % of gzs's data references misaligned and 1.4 % span two
    // lines, against 0.18 % and 0.015 % in the original). Instructions lie where the code puts them.
    if (ref.kind != Kind::IFetch && std::has_single_bit(ref.size) && ref.size <= 64)
      ref.address &= ~static_cast<std::uint64_t>(ref.size - 1);
    return ref;
  }

 private:
  // cursor + stride, wrapped into the region's range (a sweep starts over).
  std::uint64_t wrap(std::uint64_t cursor, std::int64_t stride) const {
    const std::uint64_t pos = cursor - p_.base;
    const std::uint64_t off = pos + static_cast<std::uint64_t>(stride);  // modulo 2^64
    if (off < span_) return p_.base + off;
    if (span_ == 0) return p_.base;
    // (pos + stride) modulo span in unsigned steps: a sweep read from a profile may be any
    // 64-bit stride, and no step here can overflow.
    const std::uint64_t m = span_;
    const std::uint64_t mag = stride >= 0 ? static_cast<std::uint64_t>(stride) : 0 - static_cast<std::uint64_t>(stride);
    const std::uint64_t p = pos % m, d = mag % m;
    const std::uint64_t r = stride >= 0 ? (p >= m - d ? p - (m - d) : p + d) : (p >= d ? p - d : p + (m - d));
    return p_.base + r;
  }

  // A random stride: a sweep starting a run, with the odds of the sweep's runs among the runs
  // and the other random strides; else back to a line this walk touched d accesses ago with
  // the recorded odds (jump_reuse, by distance bin), else a far jump.
  std::uint64_t jump(std::mt19937_64& rng) {
    std::uint64_t total = p_.strides[kRandomBin] - std::min(p_.strides[kRandomBin], p_.swept());
    auto starts = [](const Sweep& w) { return w.runs - std::min(w.alternations, w.runs); };
    for (const auto& w : p_.sweeps) total += starts(w);
    if (total > 0) {
      std::uint64_t u = rng() % total;
      for (std::size_t i = 0; i < p_.sweeps.size(); ++i) {
        if (u >= starts(p_.sweeps[i])) {
          u -= starts(p_.sweeps[i]);
          continue;
        }
        const double odds = sweep_odds_[i].long_run;
        if (odds > 0.0 && std::uniform_real_distribution<double>(0.0, 1.0)(rng) < odds) {
          run_ = static_cast<int>(i);
          second_step_ = true;
        } else {
          alternate(i, rng);
        }
        return wrap(cursor_, p_.sweeps[i].stride);
      }
      for (int k = 0; k < RegionProfile::kJumpBins; ++k) {
        const std::uint64_t c = p_.jump_reuse[static_cast<std::size_t>(k)];
        if (u >= c) {
          u -= c;
          continue;
        }
        const auto line = line_back(k, rng);
        if (line) return std::clamp((*line << 6) | (cursor_ & 63), p_.base, p_.last);
        break;
      }
    }
    return random_address(rng);
  }

  // The line of this walk's access d ago, d drawn from [2^k, 2^(k+1)), if remembered.
  // With returns counted across the loop (`by_last_touch_`), the profile's d was the
  // distance back to the line's *last* touch, and the line of the access d ago has often
  // been touched since (a shorter return than the original's): the line is that of the
  // access nearest d ago, within kReturnProbe either way, that is still its line's last.
  std::optional<std::uint64_t> line_back(int k, std::mt19937_64& rng) const {
    const std::uint64_t lo = std::uint64_t{1} << k;
    const std::uint64_t d = lo + rng() % lo;
    if (d > ordinal_ || d > history_.size()) return std::nullopt;
    const std::uint64_t mask = history_.size() - 1;
    const std::uint64_t at = ordinal_ - d;
    if (by_last_touch_) {
      const std::uint64_t back = at - (ordinal_ - std::min<std::uint64_t>(ordinal_, history_.size()));
      for (std::uint64_t step = 0; step <= kReturnProbe; ++step) {
        if (step <= back && last_flag_[(at - step) & mask]) return history_[(at - step) & mask];
        if (step > 0 && step < d && last_flag_[(at + step) & mask]) return history_[(at + step) & mask];
      }
    }
    return history_[at & mask];
  }

  // A stride to another line: when this walk has returned to lines it
  // touched before less often than the original did, the stride lands on such
  // a line (distance drawn from move_reuse) instead of a new one. A sweep walk
  // goes where its stride leads. A long data walk steers by distance bin
  // instead (steer_by_bin).
  std::uint64_t steer(std::uint64_t target, std::mt19937_64& rng) {
    if ((target >> 6) == (cursor_ >> 6) || p_.moves == 0 || sweep_walk_) return target;
    ++moves_;
    const auto it = last_touch_.find(target >> 6);
    if (it == last_touch_.end() && ahead_of_growth()) {
      if (const auto line = paced_return(p_.move_reuse, rng)) {
        ++returns_;
        return std::clamp((*line << 6) | (target & 63), p_.base, p_.last);
      }
    }
    const bool back = it != last_touch_.end() && ordinal_ - it->second < (std::uint64_t{1} << RegionProfile::kJumpBins);
    if (!p_.code && ordinal_ >= kSteerByBinAfter)
      return steer_by_bin(target, back ? static_cast<int>(std::bit_width(ordinal_ - it->second)) : 0, rng);
    if (back) {
      ++returns_;
      return target;
    }
    std::uint64_t wanted = 0;
    for (const auto c : p_.move_reuse) wanted += c;
    if (wanted == 0 || static_cast<double>(returns_) * static_cast<double>(p_.moves) >=
                           static_cast<double>(wanted) * static_cast<double>(moves_))
      return target;
    std::uint64_t u = rng() % wanted;
    for (int k = 0; k < RegionProfile::kJumpBins; ++k) {
      const std::uint64_t c = p_.move_reuse[static_cast<std::size_t>(k)];
      if (u >= c) {
        u -= c;
        continue;
      }
      const auto line = line_back(k, rng);
      if (!line) break;
      ++returns_;
      return std::clamp((*line << 6) | (target & 63), p_.base, p_.last);
    }
    return target;
  }

  // Steering by distance bin, for a data walk of kSteerByBinAfter accesses and
  // more (a table used a part at a time over a long run: gzip's hash chain and
  // window). Class 0 is a move to a line not touched in the last 2^17 accesses
  // (or never), class b + 1 a return from move_reuse's bin b. A move whose
  // class has not yet had its share of all the walk's moves goes where its
  // stride leads; otherwise it lands on a line from a return class still short
  // of its share (drawn by shortfall). The classes count from when this
  // steering begins, so the moves before it are a credit that lets the first
  // ones through: it takes hold gradually. (Counting the shares from that
  // point too gave the nine short traces an L2 mean of 1.98 % against 1.93
  // over four seeds, though gz128k 3.34 % against 3.76.) Without it a long walk's
  // moves land on lines last touched long ago: in gz128k's window, 5 times the
  // original's moves came from 2^12 accesses back and more. Steering every walk
  // so, or from 2^17 or 2^18 accesses on, made the short traces worse (their
  // regions still grow when the steering would start), and steering code made
  // gzw's L2 error 2.8 -> 5.2 % (docs/accuracy.md, stop 29).
  std::uint64_t steer_by_bin(std::uint64_t target, int cls, std::mt19937_64& rng) {
    constexpr int kClasses = RegionProfile::kJumpBins + 1;
    std::uint64_t returns_wanted = 0;
    for (const auto c : p_.move_reuse) returns_wanted += c;
    auto wanted = [&](int c) {
      return c == 0 ? p_.moves - std::min(p_.moves, returns_wanted) : p_.move_reuse[static_cast<std::size_t>(c - 1)];
    };
    auto take = [&](int c) {
      ++steered_[static_cast<std::size_t>(c)];
      returns_ += c > 0;
    };
    const double m = static_cast<double>(moves_), pm = static_cast<double>(p_.moves);
    auto shortfall = [&](int c) {
      return static_cast<double>(wanted(c)) * m - static_cast<double>(steered_[static_cast<std::size_t>(c)]) * pm;
    };
    if (shortfall(cls) >= 0.0) {  // this move stays within its class's share
      take(cls);
      return target;
    }
    std::array<double, kClasses> need{};
    double total = 0.0;
    for (int c = 1; c < kClasses; ++c) {
      need[static_cast<std::size_t>(c)] = std::max(0.0, shortfall(c));
      total += need[static_cast<std::size_t>(c)];
    }
    if (total > 0.0) {
      double u = std::uniform_real_distribution<double>(0.0, total)(rng);
      int c = 1;
      while (c + 1 < kClasses && (need[static_cast<std::size_t>(c)] <= 0.0 || u >= need[static_cast<std::size_t>(c)])) {
        u -= need[static_cast<std::size_t>(c)];
        ++c;
      }
      if (const auto line = line_back(c - 1, rng)) {
        take(c);
        return std::clamp((*line << 6) | (target & 63), p_.base, p_.last);
      }
    }
    take(cls);
    return target;
  }

  // Footprint growth (RegionProfile::growth): a walk that has touched as many lines as the
  // curve allows at its point in the region's accesses (plus kGrowthSlack) is ahead of the
  // original, and its next first touch becomes a return instead (paced_return). Without it a long
  // walk touched its whole working set early: gz128k's hash chain was at 501 lines of 128 bytes per
  // window of 50,000 references from the start, where deflate's grew 112, 263, 250, 361, 400.
  bool ahead_of_growth() const {
    if (p_.growth.size() != RegionProfile::kGrowthPoints || p_.code) return false;
    const double done = std::min(1.0, static_cast<double>(ordinal_) / static_cast<double>(std::max<std::uint64_t>(1, p_.count)));
    const double at = lifetime_at(done);
    const double scale = RegionProfile::kGrowthScale;
    double x0 = 0.0, y0 = 0.0, share = 1.0;
    for (std::size_t j = 0; j < RegionProfile::kGrowthPoints; ++j) {
      const double x = p_.growth[j] / scale, y = static_cast<double>(j + 1) / RegionProfile::kGrowthPoints;
      if (at <= x) {
        share = x > x0 ? y0 + (y - y0) * (at - x0) / (x - x0) : y;
        break;
      }
      x0 = x;
      y0 = y;
    }
    return static_cast<double>(last_touch_.size()) >= share * static_cast<double>(p_.working_set) + kGrowthSlack;
  }
  // Where in its lifetime the region is once it has made `done` of its accesses: the same share
  // where they are spread evenly, else read off its activity curve (RegionProfile::activity).
  double lifetime_at(double done) const {
    if (p_.activity.size() != RegionProfile::kActivityPoints) return done;
    const double scale = RegionProfile::kGrowthScale, points = static_cast<double>(p_.activity.size());
    double x0 = 0.0, y0 = 0.0;
    for (std::size_t j = 0; j < p_.activity.size(); ++j) {
      const double x = p_.activity[j] / scale, y = static_cast<double>(j + 1) / points;
      if (done <= y) return x0 + (x - x0) * (done - y0) / (y - y0);
      x0 = x;
      y0 = y;
    }
    return 1.0;
  }
  // A return instead of a first touch, its distance drawn from `reuse` among the bins this walk's
  // history can serve.
  std::optional<std::uint64_t> paced_return(const std::array<std::uint64_t, RegionProfile::kJumpBins>& reuse,
                                            std::mt19937_64& rng) const {
    std::uint64_t total = 0;
    int bins = 0;
    for (; bins < RegionProfile::kJumpBins && (std::uint64_t{1} << bins) <= ordinal_; ++bins)
      total += reuse[static_cast<std::size_t>(bins)];
    if (total == 0) return std::nullopt;
    std::uint64_t u = rng() % total;
    for (int k = 0; k < bins; ++k) {
      const std::uint64_t c = reuse[static_cast<std::size_t>(k)];
      if (u < c) return line_back(k, rng);
      u -= c;
    }
    return std::nullopt;
  }

  // The line of one of this walk's accesses still in its history ring, drawn evenly (ordinal_ > 0).
  std::uint64_t recent_line(std::mt19937_64& rng) const {
    const std::uint64_t back = rng() % std::min<std::uint64_t>(ordinal_, history_.size());
    return history_[(ordinal_ - 1 - back) & (history_.size() - 1)];
  }

  void touch(std::uint64_t line) {
    const std::uint64_t mask = history_.size() - 1;
    history_[ordinal_ & mask] = line;
    if (by_last_touch_) {
      auto [it, fresh] = last_touch_.try_emplace(line, ordinal_);
      if (!fresh) {
        if (ordinal_ - it->second < history_.size()) last_flag_[it->second & mask] = 0;
        it->second = ordinal_;
      }
      last_flag_[ordinal_ & mask] = 1;
    } else if (p_.moves || !p_.growth.empty()) {
      last_touch_[line] = ordinal_;
    }
    ++ordinal_;
  }

  // A far random stride lands on one of the region's working-set lines, spread
  // evenly over its range (a sparse region keeps its footprint). A far jump is
  // most often a line's first touch (a return would have been counted in
  // jump_reuse), so the walk takes the first `fresh_far_` slots in a shuffled
  // order, each once, then draws among them at random (before stop 27 it always
  // drew: 4096 draws found 63 % of 4096 lines).
  std::uint64_t random_address(std::mt19937_64& rng) {
    const std::uint64_t lines_in_range = (p_.last >> 6) - (p_.base >> 6) + 1;
    const std::uint64_t offset_in_line = p_.first & 63 & ~std::uint64_t{7};
    const bool dense = p_.working_set == 0 || p_.working_set >= lines_in_range || span_ == 0;
    const std::uint64_t slots = dense ? lines_in_range : p_.working_set;
    const std::uint64_t spacing = dense ? 64 : span_ / p_.working_set;
    if (dense && span_ == 0) return p_.base;
    auto line_of = [&](std::uint64_t slot) { return (p_.base + slot * spacing) & ~std::uint64_t{63}; };
    std::uint64_t line = 0;
    // Ahead of the growth curve, or every open block's slots taken before the next block opens:
    // a return instead of a first touch.
    if (far_jumps_ < std::min(slots, fresh_far_)) {
      const bool shut = !open_order_.empty() && !open_due(false);
      if (shut || ahead_of_growth())
        if (const auto back = paced_return(p_.jump_reuse, rng)) return std::clamp((*back << 6) | (cursor_ & 63), p_.base, p_.last);
      // (with no return in reach, one of the lines this walk touched lately, not a block before its time)
      if (shut && ordinal_ > 0) return std::clamp((recent_line(rng) << 6) | (cursor_ & 63), p_.base, p_.last);
    }
    if (far_jumps_ < std::min(slots, fresh_far_)) {
      // A fresh slot, skipping (a few) whose line the walk has reached by other strides since.
      for (int skip = 0; skip < kFreshSkips && far_jumps_ < slots; ++skip) {
        line = footprint_slots_.empty() ? line_of(shuffled(far_jumps_++, slots, rng))
               : open_order_.empty()    ? footprint_line(shuffled(far_jumps_++, footprint_slots_.back(), rng))
                                        : (++far_jumps_, footprint_line(fresh_open_slot(rng)));
        if (!by_last_touch_ || !last_touch_.contains(std::clamp(line + offset_in_line, p_.base, p_.last) >> 6)) break;
      }
    } else if (!footprint_slots_.empty()) {
      line = footprint_line(rng() % footprint_slots_.back());
    } else if (draw_slots_ > 0 && !dense) {
      // A merged region of first touches: draws over more slots (merged_draw_slots).
      const std::uint64_t n = std::min(draw_slots_, lines_in_range);
      line = (p_.base + (rng() % n) * std::max<std::uint64_t>(64, span_ / n)) & ~std::uint64_t{63};
    } else {
      line = line_of(rng() % slots);
    }
    return std::clamp(line + offset_in_line, p_.base, p_.last);
  }

  // The i-th of a fixed pseudo-random order of 0 .. n - 1 (permuted), its keys drawn once.
  std::uint64_t shuffled(std::uint64_t i, std::uint64_t n, std::mt19937_64& rng) {
    if (keys_[0] == 0)
      for (auto& k : keys_) k = rng() | 1;
    return permuted(i, n, keys_);
  }

  const RegionProfile& p_;
  std::uint64_t span_ = 1;
  std::uint64_t cursor_;
  bool started_ = false;
  int prev_bin_ = -1;
  int mode_bin_ = 0;
  std::vector<std::uint64_t> histogram_, kinds_, sizes_;
  // Returns within this many accesses of the drawn distance land on a line's last touch
  // (docs/accuracy.md: with 64, L2 means 3.10 / 2.58 / 2.97 % at replay seeds 1-3; 1024:
  // 2.56 / 2.65 / 2.57 %).
  static constexpr std::uint64_t kReturnProbe = 1024;
  const bool by_last_touch_;  // returns counted across the loop: replayed by last touch (line_back)
  // With returns across the loop, a walk whose strides are at least this share one bin is a
  // sweep, and is not steered (docs/accuracy.md: steering the two arrays the mixed workload sweeps
  // in turn gave it an L2 error of 0.11, and 0.04 without). The share counts stride 0 too, so a
  // region that mostly stays on its address is not steered either; leaving bin 0 out measured
  // the same (mean L2 of the nine traces 2.55 against 2.56 %, the mixed workload unchanged).
  static constexpr double kSweepShare = 0.9;
  bool sweep_walk_ = false;
  struct SweepOdds {
    double long_run = 0.0;  // that a run is long (long_runs / runs)
    double go_on = 0.0;     // that a long run goes on past its second stride
    double again = 0.0;     // that a stride comes again after one other (alternations / count)
  };
  std::vector<SweepOdds> sweep_odds_;  // per p_.sweeps
  // Sweep i was just taken outside a long run: with its odds it comes again after one other stride.
  void alternate(std::size_t i, std::mt19937_64& rng) {
    alt_ = -1;
    const double odds = sweep_odds_[i].again;
    if (odds > 0.0 && std::uniform_real_distribution<double>(0.0, 1.0)(rng) < odds) {
      alt_ = static_cast<int>(i);
      alt_wait_ = 1;
    }
  }
  int alt_ = -1;       // the sweep due again once alt_wait_ other strides have passed, or -1
  int alt_wait_ = 0;
  int run_ = -1;                       // the sweep whose long run the last stride was in, or -1
  bool second_step_ = false;           // ... as its first stride, so a second follows
  std::vector<std::uint64_t> history_;  // line of each recent access, a ring indexed by ordinal
  std::vector<std::uint8_t> last_flag_;  // by_last_touch_: 1 where the ring's access is its line's last
  // line -> ordinal of its last access (regions with moves, and every region by_last_touch_)
  std::unordered_map<std::uint64_t, std::uint64_t> last_touch_;
  std::uint64_t ordinal_ = 0;          // accesses generated so far
  static constexpr int kFreshSkips = 16;  // fresh slots tried per far jump
  std::uint64_t far_jumps_ = 0;        // fresh slots taken so far
  std::vector<std::size_t> open_order_;     // footprint blocks by open time (footprint_open)
  std::size_t next_open_ = 0;               // blocks of open_order_ opened so far
  std::vector<std::uint64_t> open_left_;    // Fenwick tree: fresh slots left per open block
  std::uint64_t open_total_ = 0;            // ... in all
  std::vector<std::uint64_t> taken_;        // fresh slots taken per block
  std::uint64_t draw_slots_ = 0;       // merged region: slots its far jumps draw over (0 = working set)
  std::uint64_t fresh_far_ = 0;        // how many far jumps take fresh slots (the constructor)
  std::array<std::uint64_t, 3> keys_{};  // the slot order's keys (0: not drawn yet)
  std::uint64_t layout_key_;            // footprint_line's order of lines in a block
  std::vector<std::uint64_t> footprint_slots_;  // cumulative slots per footprint block (lay_out_footprint)
  std::uint64_t moves_ = 0, returns_ = 0;  // this walk's line-changing strides, and returns among them
  // A data walk steers its moves by distance bin from this many accesses on (steer_by_bin).
  static constexpr std::uint64_t kSteerByBinAfter = std::uint64_t{1} << 19;
  static constexpr double kGrowthSlack = 4.0;  // lines a walk may run ahead of its growth curve
  std::array<std::uint64_t, RegionProfile::kJumpBins + 1> steered_{};  // steer_by_bin's moves per class
  std::vector<std::vector<std::uint64_t>> rows_;
};

struct LoopReplay {
  const LoopProfile* loop = nullptr;
  std::uint64_t started = 0;  // instances of this loop started so far
  std::vector<RegionWalk> walks;
  std::vector<char> in_pattern;
  std::vector<double> carry;  // per region: the budget its last instance left (+) or overdrew (-)
  // The pattern's entries found spent in an instance (spent_in[i] == that instance's epoch), each
  // linking to a later entry none of whose predecessors from it has budget left (next_alive).
  std::vector<std::uint64_t> spent_in;
  std::vector<std::size_t> skip_to;
};

class ReplaySource final : public ReferenceSource {
 public:
  ReplaySource(StreamProfile profile, std::uint64_t length, std::uint64_t seed)
      : profile_(std::move(profile)), length_(length ? length : profile_.references), rng_(seed),
        by_mean_(profile_.code_delimited()) {
    const std::uint64_t layout_key = splitmix64(seed ^ 0x6a09e667f3bcc909ULL);  // not drawn from rng_
    for (const auto& l : profile_.loops) {
      LoopReplay r;
      r.loop = &l;
      r.walks.reserve(l.regions.size());
      for (const auto& reg : l.regions) r.walks.emplace_back(reg, profile_.knobs.returns, layout_key);
      r.in_pattern.assign(l.regions.size(), 0);
      r.carry.assign(l.regions.size(), 0.0);
      for (const auto& e : l.pattern) r.in_pattern[e.first] = 1;
      r.spent_in.assign(l.pattern.size(), 0);
      r.skip_to.assign(l.pattern.size(), 0);
      loops_.push_back(std::move(r));
    }
  }

  Result<std::size_t> read(std::span<Reference> out) override {
    std::size_t n = 0;
    while (n < out.size() && done_ < length_) {
      if (left_in_instance_ == 0 && !start_instance()) break;
      Reference ref = loops_[current_].walks[pick_region()].next(rng_);
      ref.time = done_++;
      --left_in_instance_;
      out[n++] = ref;
    }
    return n;
  }

 private:
  // Starts the next loop instance in the recorded order (from the top again
  // once the order is used up). False when the profile has no references.
  bool start_instance() {
    if (profile_.order.empty() || profile_.references == 0) return false;
    // What the instance that ends left of each region's budget carries over to the region's next
    // instance: a region's budget per instance is fractional (xz's 4,965 small regions around
    // its hash tables, 0.2 accesses an instance each), and without the carry each instance's
    // leftover references went to such regions: about 700,000 accesses in all where the profile
    // has 330,000, one at a time, each an L1 miss (docs/accuracy.md, stop 30).
    if (in_instance_) {
      auto& carry = loops_[current_].carry;
      for (std::size_t r = 0; r < carry.size(); ++r)
        if (active_[r]) carry[r] = std::clamp(remaining_[r], -kCarry, kCarry);
    }
    in_instance_ = true;
    while (order_pos_ < profile_.order.size() && used_in_entry_ >= profile_.order[order_pos_].second) {
      ++order_pos_;
      used_in_entry_ = 0;
    }
    if (order_pos_ >= profile_.order.size() || emitted_in_pass_ >= profile_.references) {
      order_pos_ = 0;
      used_in_entry_ = 0;
      emitted_in_pass_ = 0;
    }
    current_ = profile_.order[order_pos_].first;
    ++used_in_entry_;
    // Each region's share of this instance, from its count over the loop.
    // A region shares only the instances of its lifetime (the recorded
    // instances cycle when the synthetic stream is longer).
    const auto& L = *loops_[current_].loop;
    const std::uint64_t k = L.instances ? loops_[current_].started++ % L.instances : 0;
    // Windows are `window` long (the last one shorter); code regions' entries
    // are as long as they were, so an instance is the loop's mean, its
    // remainder spread one each over the first instances.
    std::uint64_t planned = profile_.knobs.window;
    if (by_mean_ && L.instances)
      planned = std::max<std::uint64_t>(1, L.references / L.instances + (k < L.references % L.instances ? 1 : 0));
    const std::uint64_t len = std::min(planned, profile_.references - emitted_in_pass_);
    emitted_in_pass_ += len;
    left_in_instance_ = len;
    remaining_.assign(L.regions.size(), 0.0);
    active_.assign(L.regions.size(), 0);
    off_pattern_ = 0;
    // A region with an activity curve gets the share of its accesses the curve puts in this instance;
    // the others share what is left of the instance in proportion to their even shares, so the
    // instance stays its length (with a busy region's 8,000 of 65,536 here, the others' even shares
    // left 1,000 references an instance without a region later on: tests/psnap/replay_test.cpp).
    double curved = 0.0, even = 0.0;
    for (std::size_t r = 0; r < L.regions.size(); ++r) {
      const auto& reg = L.regions[r];
      const std::uint64_t last = std::min(reg.last_instance, L.instances ? L.instances - 1 : 0);
      const std::uint64_t first = std::min(reg.first_instance, last);
      if (L.instances && (k < first || k > last)) continue;
      const double life = L.instances ? static_cast<double>(last - first + 1) / static_cast<double>(L.instances) : 1.0;
      const bool curve = L.instances && reg.activity.size() == RegionProfile::kActivityPoints;
      double share = 1.0 / life;
      if (curve) {
        const double n = static_cast<double>(last - first + 1);
        share = (done_by(reg.activity, static_cast<double>(k - first + 1) / n) -
                 done_by(reg.activity, static_cast<double>(k - first) / n)) *
                static_cast<double>(L.instances);
      }
      remaining_[r] = static_cast<double>(reg.count) * static_cast<double>(len) * share / static_cast<double>(L.references);
      (curve ? curved : even) += remaining_[r];
      active_[r] = curve ? 2 : 1;
    }
    const double scale = curved > 0.0 && even > 0.0 ? std::max(0.0, static_cast<double>(len) - curved) / even : 1.0;
    for (std::size_t r = 0; r < L.regions.size(); ++r) {
      if (!active_[r]) continue;
      if (active_[r] == 1) remaining_[r] *= scale;
      remaining_[r] += loops_[current_].carry[r];
      if (!loops_[current_].in_pattern[r]) off_pattern_ += std::max(0.0, remaining_[r]);
    }
    pattern_pos_ = 0;
    run_left_ = 0;
    ++epoch_;  // every pattern entry unchecked again (next_alive)
    return true;
  }

  // The share of a region's accesses made by `at` (a share of its lifetime) on its activity curve:
  // through (0, 0) and the curve's points, linear between them, all of them at the lifetime's end.
  static double done_by(const std::vector<std::uint32_t>& activity, double at) {
    const double scale = RegionProfile::kGrowthScale, points = static_cast<double>(activity.size());
    double x0 = 0.0, y0 = 0.0;
    for (std::size_t j = 0; j < activity.size(); ++j) {
      const double x = activity[j] / scale, y = static_cast<double>(j + 1) / points;
      if (at < x) return y0 + (y - y0) * (at - x0) / (x - x0);
      x0 = x;
      y0 = y;
    }
    return 1.0;
  }

  // The region of the next reference. References come in runs: the pattern
  // buffer's runs, cycled, skipping regions whose share of this instance is
  // used up; regions the buffer never saw are spread in by their shares, each
  // time for a run of its mean run length.
  std::size_t pick_region() {
    if (run_left_ > 0 && remaining_[run_region_] > 0.5) {
      --run_left_;
      return take(run_region_);
    }
    const auto& lr = loops_[current_];
    const auto& pattern = lr.loop->pattern;
    const auto left = static_cast<double>(left_in_instance_);
    std::uniform_real_distribution<double> coin(0.0, 1.0);
    std::size_t r = SIZE_MAX;
    std::uint64_t run = 1;
    if (off_pattern_ > 0.5 && coin(rng_) * left < off_pattern_) {
      r = draw_remaining(false);
      if (r != SIZE_MAX) run = mean_run(r);
    }
    if (r == SIZE_MAX && !pattern.empty()) {
      // The next entry, cyclically from pattern_pos_, whose region has budget left.
      std::size_t k = next_alive(pattern_pos_);
      if (k == pattern.size()) k = next_alive(0);
      if (k < pattern.size()) {
        r = pattern[k].first;
        run = pattern[k].second;
        pattern_pos_ = (k + 1) % pattern.size();
      }
    }
    if (r == SIZE_MAX) {
      r = draw_remaining(true);
      if (r == SIZE_MAX) return pattern.empty() ? 0 : pattern[pattern_pos_].first;
      run = mean_run(r);
    }
    run_region_ = r;
    run_left_ = run - 1;
    return take(r);
  }

  // The first pattern entry at or after `i` whose region has budget left in this instance, or the
  // pattern's size. A region's budget only falls within an instance, so an entry found spent stays
  // spent: it is marked with the instance's epoch and linked past (with path compression). Before,
  // pick_region stepped over the spent entries one by one, and that scan was nine tenths of `hmtt
  // synth`'s time (docs/benchmarks.md, stop 31); the regions picked are the same.
  std::size_t next_alive(std::size_t i) {
    auto& lr = loops_[current_];
    const auto& pattern = lr.loop->pattern;
    std::size_t k = i;
    while (k < pattern.size()) {
      if (lr.spent_in[k] == epoch_) {
        k = lr.skip_to[k];
      } else if (remaining_[pattern[k].first] > 0.5) {
        break;
      } else {
        lr.spent_in[k] = epoch_;
        lr.skip_to[k] = k + 1;
        ++k;
      }
    }
    for (std::size_t j = i; j < k;) {  // path compression
      const std::size_t next = lr.skip_to[j];
      lr.skip_to[j] = k;
      j = next;
    }
    return k;
  }

  std::uint64_t mean_run(std::size_t r) const {
    const auto& reg = loops_[current_].loop->regions[r];
    return reg.runs ? std::max<std::uint64_t>(1, (reg.count + reg.runs / 2) / reg.runs) : 1;
  }

  std::size_t take(std::size_t r) {
    if (!loops_[current_].in_pattern[r]) off_pattern_ = std::max(0.0, off_pattern_ - 1.0);
    remaining_[r] -= 1.0;
    return r;
  }

  // A region by its remaining share (among all, or among off-pattern ones).
  std::size_t draw_remaining(bool all) {
    const auto& in = loops_[current_].in_pattern;
    double total = 0;
    for (std::size_t r = 0; r < remaining_.size(); ++r)
      if ((all || !in[r]) && remaining_[r] > 0) total += remaining_[r];
    if (total <= 0) return SIZE_MAX;
    double x = std::uniform_real_distribution<double>(0.0, total)(rng_);
    std::size_t chosen = SIZE_MAX;
    for (std::size_t r = 0; r < remaining_.size(); ++r) {
      if (!(all || !in[r]) || remaining_[r] <= 0) continue;
      chosen = r;
      x -= remaining_[r];
      if (x < 0) break;
    }
    return chosen;
  }

  StreamProfile profile_;
  std::uint64_t length_;
  std::mt19937_64 rng_;
  bool by_mean_;  // instances at their loop's mean length (code regions), not `window`
  std::vector<LoopReplay> loops_;
  std::uint64_t done_ = 0;
  std::size_t order_pos_ = 0;
  std::uint64_t used_in_entry_ = 0;
  std::uint64_t emitted_in_pass_ = 0;
  std::uint64_t left_in_instance_ = 0;
  std::size_t current_ = 0;
  std::size_t pattern_pos_ = 0;
  std::uint64_t epoch_ = 0;  // instances started (next_alive's marks)
  std::vector<double> remaining_;
  std::vector<char> active_;  // regions of the current instance (inside their lifetime)
  bool in_instance_ = false;
  // Budget carried over at most, either way: a bound, not tuned (only 8 was measured).
  static constexpr double kCarry = 8.0;
  double off_pattern_ = 0;
  std::size_t run_region_ = 0;
  std::uint64_t run_left_ = 0;
};

}  // namespace

std::unique_ptr<ReferenceSource> make_replay(StreamProfile profile, std::uint64_t length, std::uint64_t seed) {
  return std::make_unique<ReplaySource>(std::move(profile), length, seed);
}

}  // namespace hmtt::psnap
