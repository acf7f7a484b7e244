// A capture: link sources pulled into a Receiver until the sources end, the
// duration passes or a stop is requested (SIGINT/SIGTERM), with a status
// callback about once a second. However it stops, the receiver is finished,
// so the sink holds everything received so far.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "hmtt/host/link_source.h"
#include "hmtt/host/receiver.h"

namespace hmtt::host {

// SIGINT and SIGTERM as a flag to poll, through a Boost.Asio signal_set (the
// handler runs in poll(), never inside the signal). Restores the default
// actions when destroyed.
class StopSignal {
 public:
  StopSignal();
  ~StopSignal();
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;
  // True once SIGINT or SIGTERM arrived.
  bool requested();
  int signal_number() const { return signal_; }

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
  int signal_ = 0;
};

struct CaptureOptions {
  double duration_s = 0;           // 0: until the sources end or a stop
  std::size_t batch_frames = 512;  // frames per read
  std::chrono::milliseconds status_interval{1000};
  bool reader_threads = true;      // read each source on its own thread (ThreadedSource)
  double idle_stop_s = 0;          // stop once no frame came for this long (after the first); 0: never
};

struct CaptureStatus {
  double elapsed_s = 0;
  std::uint64_t packets = 0;
  std::uint64_t bytes = 0;          // bytes the sources saw
  std::uint64_t non_hmtt = 0;       // packets skipped
  std::uint64_t kernel_drops = 0;   // drops the kernel reported (socket buffer / pcap ring full)
  ReceiverTotals totals;
  std::vector<LinkCounters> links;
  bool interrupted = false;         // stopped by a signal
  int signal_number = 0;
};

using StatusCallback = std::function<void(const CaptureStatus&)>;

Result<CaptureStatus> run_capture(std::vector<std::unique_ptr<LinkSource>>& sources, Receiver& receiver,
                                  const CaptureOptions& options, StopSignal* stop, const StatusCallback& on_status);

}  // namespace hmtt::host
