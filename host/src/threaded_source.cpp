#include "hmtt/host/threaded_source.h"

#include <algorithm>

#include "hmtt/wire/frame.h"

namespace hmtt::host {

ThreadedSource::ThreadedSource(std::unique_ptr<LinkSource> inner, std::size_t batch_frames, std::size_t depth)
    : inner_(std::move(inner)),
      name_(inner_->name()),
      ports_(inner_->expected_ports()),
      batch_frames_(batch_frames),
      depth_(depth < 2 ? 2 : depth) {
  thread_ = std::thread([this] { loop(); });
}

ThreadedSource::~ThreadedSource() { close_input(); }

void ThreadedSource::close_input() {
  stop_ = true;
  space_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  ended_ = true;
}

void ThreadedSource::loop() {
  FrameBatch batch;
  while (!stop_) {
    batch.clear();
    // Room for a whole batch at once: growing by doubling copied and faulted in each of the
    // batches the queue cycles through (a fifth of a pcap ingest's page faults).
    const std::size_t room = std::min<std::size_t>(batch_frames_, 4096);
    batch.bytes.reserve(room * wire::kMaxFrameBytes);
    batch.frames.reserve(room);
    auto state = inner_->read(batch, batch_frames_, std::chrono::milliseconds(50));
    std::unique_lock lock(mutex_);
    shared_ = inner_->counters();
    if (!batch.frames.empty()) {
      space_.wait(lock, [&] { return stop_ || full_.size() < depth_; });
      full_.push_back(std::move(batch));  // even when stopping: these frames were taken already
      batch = FrameBatch{};
      if (!free_.empty()) {
        batch = std::move(free_.back());
        free_.pop_back();
      }
      lock.unlock();  // the consumer woken does not at once block on the lock
      ready_.notify_all();
      lock.lock();
    }
    if (!state) {
      error_ = state.error();
      ended_ = true;
      ready_.notify_all();
      return;
    }
    if (*state == ReadState::End) {
      ended_ = true;
      ready_.notify_all();
      return;
    }
  }
}

Result<ReadState> ThreadedSource::read(FrameBatch& batch, std::size_t, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  ready_.wait_for(lock, timeout, [&] { return !full_.empty() || ended_; });
  snapshot_ = shared_;
  if (!full_.empty()) {
    batch.clear();
    free_.push_back(std::move(batch));
    batch = std::move(full_.front());
    full_.pop_front();
    lock.unlock();  // the reader woken does not at once block on the lock
    space_.notify_all();
    return ReadState::Frames;
  }
  if (ended_) {
    if (!error_.ok()) return error_.error();
    return ReadState::End;
  }
  return ReadState::Idle;
}

const SourceCounters& ThreadedSource::counters() const {
  std::lock_guard lock(mutex_);
  snapshot_ = shared_;
  return snapshot_;
}

}  // namespace hmtt::host
