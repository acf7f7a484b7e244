#include "hmtt/host/sequence_tracker.h"

namespace hmtt::host {

namespace {
constexpr std::size_t kRecentFinal = 4096;
constexpr std::uint64_t kPreStartWindow = 1024;  // frames before the first one seen still counted as reordered
}  // namespace

SequenceVerdict SequenceTracker::observe(std::uint32_t seq, std::uint64_t time, std::uint64_t& ext,
                                         std::uint64_t low_time, std::uint64_t now_ns) {
  if (!started_) {
    started_ = true;
    ext = (std::uint64_t{1} << 32) + seq;  // room below for frames reordered before the first
    next_ = ext + 1;
    low_ = ext;
    return SequenceVerdict::First;
  }
  const auto d = static_cast<std::int32_t>(seq - static_cast<std::uint32_t>(next_));
  ext = next_ + static_cast<std::uint64_t>(static_cast<std::int64_t>(d));
  if (d == 0) {
    ++next_;
    return SequenceVerdict::InOrder;
  }
  if (d > 0) {
    missing_[next_] = SequenceGap{next_, ext - next_, time, low_time, now_ns};
    next_ = ext + 1;
    return SequenceVerdict::Ahead;
  }
  // Behind: missing, declared lost, before the first frame, or seen before.
  auto it = missing_.upper_bound(ext);
  if (it != missing_.begin()) {
    --it;
    if (ext < it->first + it->second.count) return SequenceVerdict::Late;
  }
  if (in_final(ext)) return SequenceVerdict::Stale;
  if (ext < low_ && low_ - ext <= kPreStartWindow) {
    if (low_ - ext > 1) missing_[ext + 1] = SequenceGap{ext + 1, low_ - ext - 1, time};
    missing_[ext] = SequenceGap{ext, 1, time};
    low_ = ext;
    return SequenceVerdict::Late;
  }
  return SequenceVerdict::Duplicate;
}

void SequenceTracker::fill(std::uint64_t ext) {
  auto it = missing_.upper_bound(ext);
  if (it == missing_.begin()) return;
  --it;
  SequenceGap g = it->second;
  if (ext >= g.first + g.count) return;
  missing_.erase(it);
  if (ext > g.first) missing_[g.first] = SequenceGap{g.first, ext - g.first, g.time};
  if (ext + 1 < g.first + g.count) missing_[ext + 1] = SequenceGap{ext + 1, g.first + g.count - ext - 1, g.time};
}

void SequenceTracker::mark_lost(std::uint64_t ext, std::uint64_t time) {
  auto it = missing_.upper_bound(ext);
  if (it != missing_.begin()) {
    --it;
    if (ext < it->first + it->second.count) return;  // already missing
  }
  missing_[ext] = SequenceGap{ext, 1, time};
}

bool SequenceTracker::in_final(std::uint64_t ext) const {
  for (const auto& g : final_)
    if (ext >= g.first && ext < g.first + g.count) return true;
  return false;
}

std::vector<SequenceGap> SequenceTracker::finalize(std::uint64_t frontier, bool all) {
  std::vector<SequenceGap> out;
  for (auto it = missing_.begin(); it != missing_.end();) {
    if (all || it->second.time < frontier) {
      out.push_back(it->second);
      final_.push_back(it->second);
      if (final_.size() > kRecentFinal) final_.pop_front();
      it = missing_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::uint64_t SequenceTracker::hold(std::uint64_t since_ns) const {
  std::uint64_t h = UINT64_MAX;
  for (const auto& [first, g] : missing_)
    if (g.opened_ns >= since_ns && g.low_time < h) h = g.low_time;
  return h;
}

std::uint64_t SequenceTracker::open_missing() const {
  std::uint64_t n = 0;
  for (const auto& [first, g] : missing_) n += g.count;
  return n;
}

}  // namespace hmtt::host
