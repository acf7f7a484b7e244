#include "hmtt/host/board_stats.h"

#include <algorithm>

namespace hmtt::host {

namespace {

unsigned clog2(unsigned v) {
  unsigned r = 0;
  while ((1u << r) < v) ++r;
  return r;
}

// Unwraps 16-bit interval numbers of one unit's reports (in stream order) and counts the skipped ones.
class IntervalUnwrapper {
 public:
  std::uint64_t next(std::uint32_t wire) {
    if (!started_) {
      started_ = true;
      full_ = wire;
      missing_ = wire;  // intervals count from 0 at the board's reset
    } else {
      const std::uint64_t step = (wire - (full_ & 0xFFFF)) & 0xFFFF;
      const std::uint64_t adv = step == 0 ? 0x10000 : step;  // the same number again: a whole wrap
      missing_ += adv - 1;
      full_ += adv;
    }
    return full_;
  }
  std::uint64_t missing() const { return missing_; }

 private:
  bool started_ = false;
  std::uint64_t full_ = 0;
  std::uint64_t missing_ = 0;
};

std::string where(const store::Report& r) {
  return "board " + std::to_string(r.board) + " unit " + std::to_string(r.unit) + " interval " +
         std::to_string(r.interval);
}

// Board cycles per interval from the report times: (last time - first time) / (last interval - first
// interval). A report carries the time of the record before it, so reports sent while no references flow
// share one time stamp; the span over the whole capture is less sensitive to that than any one step.
std::uint32_t estimate_interval(const std::vector<std::pair<std::uint64_t, std::uint64_t>>& time_interval) {
  if (time_interval.size() < 2) return 0;
  const auto& [t0, i0] = time_interval.front();
  const auto& [t1, i1] = time_interval.back();
  if (i1 <= i0 || t1 <= t0) return 0;
  return static_cast<std::uint32_t>(static_cast<double>(t1 - t0) / static_cast<double>(i1 - i0) + 0.5);
}

}  // namespace

std::string distance_bin_label(unsigned b, unsigned bins) {
  if (b == 0) return "0";
  if (b + 1 == bins) return ">=" + std::to_string(1u << (bins - 2));
  const unsigned lo = 1u << (b - 1), hi = (1u << b) - 1;
  return lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
}

Result<std::vector<BoardStats>> summarize_reports(std::span<const store::Report> reports,
                                                  const BoardStatsOptions& o) {
  if (o.rdhpu_depth < 4 || (o.rdhpu_depth & (o.rdhpu_depth - 1)) != 0)
    return make_error("RDHPU depth " + std::to_string(o.rdhpu_depth) + ": must be a power of two >= 4");
  const unsigned nb = clog2(o.rdhpu_depth) + 2;
  struct Work {
    BoardStats s;
    IntervalUnwrapper su_iv, rd_iv;
    std::map<std::uint64_t, HotPageTotal> hot;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> su_times, rd_times;
  };
  std::map<std::uint32_t, Work> boards;
  for (const store::Report& r : reports) {
    Work& w = boards[r.board];
    w.s.board = r.board;
    const std::size_t nv = r.values.size();
    if (r.unit == 0) {
      if (nv < 4 + 8 + o.su_phys_bits || (nv - 4 - o.su_phys_bits) % 8 != 0)
        return make_error(where(r) + ": " + std::to_string(nv) + " values fit no Statistic Unit report of " +
                          std::to_string(o.su_phys_bits) + " address bits (4 + 8*ranks + bits)");
      const unsigned ranks = static_cast<unsigned>((nv - 4 - o.su_phys_bits) / 8);
      SuSummary& su = w.s.su;
      if (w.s.has_su && su.ranks != ranks)
        return make_error(where(r) + ": " + std::to_string(ranks) + " ranks after reports of " +
                          std::to_string(su.ranks));
      if (!w.s.has_su) {
        su.ranks = ranks;
        su.bank_activates.assign(8 * ranks, 0);
        su.bit_toggles.assign(o.su_phys_bits, 0);
      }
      w.s.has_su = true;
      SuInterval iv;
      iv.interval = w.su_iv.next(r.interval);
      iv.time = r.time;
      iv.reads = r.values[0];
      iv.writes = r.values[1];
      iv.row_hits = r.values[2];
      iv.row_misses = r.values[3];
      for (unsigned b = 0; b < 8 * ranks; ++b) {
        iv.activates += r.values[4 + b];
        su.bank_activates[b] += r.values[4 + b];
      }
      for (unsigned k = 0; k < o.su_phys_bits; ++k) su.bit_toggles[k] += r.values[4 + 8 * ranks + k];
      su.reads += iv.reads;
      su.writes += iv.writes;
      su.row_hits += iv.row_hits;
      su.row_misses += iv.row_misses;
      su.timeline.push_back(iv);
      w.su_times.emplace_back(iv.time, iv.interval);
    } else if (r.unit == 1) {
      if (nv < nb || (nv - nb) % 3 != 0)
        return make_error(where(r) + ": " + std::to_string(nv) + " values fit no RDHPU report of depth " +
                          std::to_string(o.rdhpu_depth) + " (" + std::to_string(nb) + " bins + 3*K)");
      RdhpuSummary& rd = w.s.rdhpu;
      const unsigned k = static_cast<unsigned>((nv - nb) / 3);
      if (w.s.has_rdhpu && rd.hot_k != k)
        return make_error(where(r) + ": " + std::to_string(k) + " hot pages after reports of " +
                          std::to_string(rd.hot_k));
      if (!w.s.has_rdhpu) {
        rd.depth = o.rdhpu_depth;
        rd.hot_k = k;
        rd.histogram.assign(nb, 0);
      }
      w.s.has_rdhpu = true;
      const std::uint64_t full = w.rd_iv.next(r.interval);
      w.rd_times.emplace_back(r.time, full);
      ++rd.intervals;
      for (unsigned b = 0; b < nb; ++b) rd.histogram[b] += r.values[b];
      for (unsigned j = 0; j < k; ++j) {
        const std::uint64_t page = r.values[nb + 3 * j], count = r.values[nb + 3 * j + 1],
                            err = r.values[nb + 3 * j + 2];
        if (count == 0) continue;  // an empty entry
        HotPageTotal& h = w.hot[page];
        h.page = page;
        h.count += count;
        h.err += err;
        ++h.intervals;
      }
    }
    // Units 2-15 are reserved (the decoder already refused them); nothing to do.
  }
  std::vector<BoardStats> out;
  for (auto& [board, w] : boards) {
    w.s.su.missing = w.su_iv.missing();
    w.s.rdhpu.missing = w.rd_iv.missing();
    for (auto& [page, h] : w.hot) w.s.rdhpu.hot_pages.push_back(h);
    std::sort(w.s.rdhpu.hot_pages.begin(), w.s.rdhpu.hot_pages.end(),
              [](const HotPageTotal& a, const HotPageTotal& b) {
                const std::uint64_t ga = a.count - a.err, gb = b.count - b.err;  // guaranteed accesses
                if (ga != gb) return ga > gb;
                return a.count != b.count ? a.count > b.count : a.page < b.page;
              });
    if (o.interval_cycles != 0) {
      w.s.interval_cycles = o.interval_cycles;
    } else {
      w.s.interval_cycles = estimate_interval(w.s.has_su ? w.su_times : w.rd_times);
      w.s.interval_estimated = true;
    }
    out.push_back(std::move(w.s));
  }
  return out;
}

}  // namespace hmtt::host
