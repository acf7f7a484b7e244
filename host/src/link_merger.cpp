#include "hmtt/host/link_merger.h"

#include <algorithm>
#include <cstdlib>

#include "hmtt/store/scratch.h"

namespace hmtt::host {

void FrameRooms::Free::operator()(Reference* p) const { std::free(p); }

std::span<Reference> FrameRooms::take() {
  static_assert(kRoomsPerBlock > kFirstBlockRooms && kFirstBlockRooms * kRoomBytes < kBlockBytes / 2);
  if (used_ == rooms_) {
    rooms_ = blocks_.empty() ? kFirstBlockRooms : kRoomsPerBlock;
    blocks_.emplace_back(static_cast<Reference*>(store::scratch_allocate(rooms_ * kRoomBytes)));
    used_ = 0;
  }
  // Reference is an aggregate, an implicit-lifetime type: decoding into the allocation creates
  // its objects (as in the store's ReferenceBuffer).
  Reference* room = blocks_.back().get() + used_ * wire::kMaxRecords;
  ++used_;
  return {room, wire::kMaxRecords};
}

std::unique_ptr<PendingFrame> LinkMerger::take_frame() {
  if (pool_.empty()) {
    auto f = std::make_unique<PendingFrame>();
    f->room = rooms_.take();
    return f;
  }
  auto f = std::move(pool_.back());
  pool_.pop_back();
  f->count = 0;
  f->next = 0;
  f->ext = 0;
  return f;
}

void LinkMerger::push(std::uint16_t id, std::unique_ptr<PendingFrame> frame) {
  if (id >= streams_.size()) streams_.resize(id + 1u);
  if (!streams_[id]) streams_[id] = std::make_unique<Stream>();
  Stream& s = *streams_[id];
  if (s.queue.empty()) active_.push_back(id);
  buffered_ += frame->count;
  // Frames almost always arrive in sequence order; a reordered one is inserted in place.
  auto pos = s.queue.end();
  while (pos != s.queue.begin() && (*(pos - 1))->ext > frame->ext) --pos;
  s.queue.insert(pos, std::move(frame));
}

Status LinkMerger::pop_done(Stream& s, MergeOutput& out) {
  while (!s.queue.empty() && s.queue.front()->next >= s.queue.front()->count) {
    HMTT_TRY(out.on_frame_done(*s.queue.front()));
    pool_.push_back(std::move(s.queue.front()));
    s.queue.pop_front();
  }
  return Status::success();
}

Status LinkMerger::run(std::uint64_t watermark, bool force_all, MergeOutput& out) {
  for (;;) {
    // Frames whose references are all out leave first (frames without references at once).
    for (std::size_t i = 0; i < active_.size();) {
      HMTT_TRY(pop_done((*streams_[active_[i]]), out));
      if ((*streams_[active_[i]]).queue.empty()) {
        active_[i] = active_.back();
        active_.pop_back();
      } else {
        ++i;
      }
    }
    if (active_.empty()) return Status::success();
    const bool over = buffered_ > horizon_;
    reached_horizon_ |= over;
    const bool force = force_all || over;
    // The stream with the least head (time, id), and the runner-up.
    std::uint16_t best = 0, second = 0;
    std::uint64_t best_t = UINT64_MAX, second_t = UINT64_MAX;
    bool have_second = false;
    for (std::uint16_t id : active_) {
      const PendingFrame& f = *streams_[id]->queue.front();
      const std::uint64_t t = f.room[f.next].time;
      if (t < best_t || (t == best_t && id < best)) {
        if (best_t != UINT64_MAX) {
          second = best;
          second_t = best_t;
          have_second = true;
        }
        best = id;
        best_t = t;
      } else if (!have_second || t < second_t || (t == second_t && id < second)) {
        second = id;
        second_t = t;
        have_second = true;
      }
    }
    if (!force && best_t >= watermark) return Status::success();
    PendingFrame& f = *streams_[best]->queue.front();
    const std::span<const Reference> refs = f.refs();
    const auto begin = refs.begin() + static_cast<std::ptrdiff_t>(f.next);
    auto by_time = [](const Reference& r, std::uint64_t t) { return r.time < t; };
    auto time_by = [](std::uint64_t t, const Reference& r) { return t < r.time; };
    auto end = refs.end();
    if (have_second) {
      // Up to the runner-up's head: equal times go to the lower stream id first.
      end = best < second ? std::upper_bound(begin, end, second_t, time_by)
                          : std::lower_bound(begin, end, second_t, by_time);
    }
    if (!force) end = std::min(end, std::lower_bound(begin, refs.end(), watermark, by_time));
    if (end == begin) end = begin + 1;  // the head itself is the least: always progress
    const std::size_t n = static_cast<std::size_t>(end - begin);
    HMTT_TRY(out.on_references(std::span<const Reference>(&*begin, n)));
    f.next += n;
    buffered_ -= n;
    frontier_ = (end - 1)->time;
    released_any_ = true;
  }
}

Status LinkMerger::release(std::uint64_t watermark, MergeOutput& out) { return run(watermark, false, out); }

Status LinkMerger::release_all(MergeOutput& out) { return run(UINT64_MAX, true, out); }

}  // namespace hmtt::host
