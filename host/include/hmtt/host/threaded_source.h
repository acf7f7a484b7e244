// A link source read by its own thread: the reading (sockets or file, packet
// checks, checksums) runs on one core while the caller decodes, merges and
// writes the store on the other. Batches pass through a bounded queue, so
// memory stays bounded; when the queue is full the reader waits (files) or
// the socket buffers absorb the burst (live).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "hmtt/host/link_source.h"

namespace hmtt::host {

class ThreadedSource final : public LinkSource {
 public:
  explicit ThreadedSource(std::unique_ptr<LinkSource> inner, std::size_t batch_frames = 512, std::size_t depth = 8);
  ~ThreadedSource() override;
  ThreadedSource(const ThreadedSource&) = delete;
  ThreadedSource& operator=(const ThreadedSource&) = delete;

  Result<ReadState> read(FrameBatch& batch, std::size_t max_frames, std::chrono::milliseconds timeout) override;
  const SourceCounters& counters() const override;
  std::string name() const override { return name_; }
  std::vector<std::uint16_t> expected_ports() const override { return ports_; }
  // Stops the reader thread; the batches it queued are still handed out.
  void close_input() override;

 private:
  void loop();
  std::unique_ptr<LinkSource> inner_;
  std::string name_;
  std::vector<std::uint16_t> ports_;
  std::size_t batch_frames_;
  std::size_t depth_;
  mutable std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<FrameBatch> full_;
  std::vector<FrameBatch> free_;
  bool ended_ = false;
  Status error_;
  mutable SourceCounters snapshot_;
  SourceCounters shared_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace hmtt::host
