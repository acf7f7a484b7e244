#include "hmtt/host/capture.h"

#include "hmtt/host/threaded_source.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>

namespace hmtt::host {

struct StopSignal::Impl {
  boost::asio::io_context io;
  boost::asio::signal_set signals{io, SIGINT, SIGTERM};
};

StopSignal::StopSignal() : impl_(std::make_unique<Impl>()) {
  impl_->signals.async_wait([this](const boost::system::error_code& ec, int n) {
    if (!ec) signal_ = n;
  });
}

StopSignal::~StopSignal() {
  boost::system::error_code ec;
  impl_->signals.cancel(ec);
  impl_->signals.clear(ec);
}

bool StopSignal::requested() {
  if (signal_ == 0) impl_->io.poll();
  return signal_ != 0;
}

namespace {

std::uint64_t mono_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

void fill(CaptureStatus& s, const std::vector<std::unique_ptr<LinkSource>>& sources, const Receiver& rx) {
  s.packets = s.bytes = s.non_hmtt = s.kernel_drops = 0;
  for (const auto& src : sources) {
    const auto& c = src->counters();
    s.packets += c.packets;
    s.bytes += c.bytes;
    s.non_hmtt += c.non_hmtt;
    s.kernel_drops += c.kernel_drops;
  }
  s.totals = rx.totals();
  s.links = rx.links();
}

}  // namespace

Result<CaptureStatus> run_capture(std::vector<std::unique_ptr<LinkSource>>& sources, Receiver& rx,
                                  const CaptureOptions& o, StopSignal* stop, const StatusCallback& on_status) {
  CaptureStatus status;
  // Files: the streams of their first horizon, read ahead, so that the merge need not hold a
  // horizon (96 MiB of references, fresh memory) before it releases anything.
  if (!rx.options().live && !sources.empty()) {
    std::vector<std::uint16_t> streams;
    bool known = true;
    for (auto& s : sources) {
      auto ahead = s->streams_ahead(rx.options().horizon_refs);
      if (!ahead) {
        known = false;
        break;
      }
      streams.insert(streams.end(), ahead->begin(), ahead->end());
    }
    if (known) rx.expect_file_streams(streams);
  }
  if (o.reader_threads)
    for (auto& s : sources) s = std::make_unique<ThreadedSource>(std::move(s), o.batch_frames);
  const std::uint64_t start = mono_ns();
  std::vector<std::uint16_t> expected;
  for (const auto& s : sources)
    for (auto p : s->expected_ports()) expected.push_back(p);
  if (!expected.empty()) rx.expect_ports(expected, start);

  std::vector<bool> ended(sources.size(), false);
  std::vector<std::uint64_t> last_time(sources.size(), 0);
  const auto slice = std::chrono::milliseconds(sources.size() > 1 ? 20 : 100);
  FrameBatch batch;
  std::uint64_t next_status = start + static_cast<std::uint64_t>(o.status_interval.count()) * 1000000ull;
  std::size_t turn = 0;
  std::uint64_t last_frame_ns = 0;
  Status failure;
  for (;;) {
    if (stop && stop->requested()) {
      status.interrupted = true;
      status.signal_number = stop->signal_number();
      break;
    }
    const std::uint64_t now = mono_ns();
    if (o.duration_s > 0 && static_cast<double>(now - start) / 1e9 >= o.duration_s) break;
    if (o.idle_stop_s > 0 && last_frame_ns != 0 && static_cast<double>(now - last_frame_ns) / 1e9 >= o.idle_stop_s)
      break;
    // Files: the source furthest behind in capture time goes next, so links recorded
    // in separate files interleave as they arrived. Live sources take turns.
    std::size_t pick = sources.size();
    for (std::size_t k = 0; k < sources.size(); ++k) {
      const std::size_t i = (turn + k) % sources.size();
      if (ended[i]) continue;
      if (pick == sources.size() || last_time[i] < last_time[pick]) pick = i;
    }
    if (pick == sources.size()) break;  // every source ended
    turn = pick + 1;
    batch.clear();
    auto state = sources[pick]->read(batch, o.batch_frames, slice);
    if (!state) {
      failure = state.error();
      break;
    }
    if (*state == ReadState::End) ended[pick] = true;
    const std::uint64_t after = mono_ns();
    if (!batch.frames.empty()) {
      last_time[pick] = batch.frames.back().time_ns;
      last_frame_ns = after;
    }
    Status s = rx.accept(batch, after);
    if (!s.ok()) {
      failure = s;
      break;
    }
    if (after >= next_status) {
      next_status = after + static_cast<std::uint64_t>(o.status_interval.count()) * 1000000ull;
      s = rx.tick(after);
      if (!s.ok()) {
        failure = s;
        break;
      }
      status.elapsed_s = static_cast<double>(after - start) / 1e9;
      fill(status, sources, rx);
      if (on_status) on_status(status);
    }
  }
  // Whatever stopped the loop, everything received so far goes to the sink: first the frames
  // reader threads already took from the kernel or the file, then what the merge holds.
  if (failure.ok()) {
    for (auto& src : sources) {
      src->close_input();
      for (;;) {
        batch.clear();
        auto state = src->read(batch, o.batch_frames, std::chrono::milliseconds(0));
        if (!state || batch.frames.empty()) break;
        Status s = rx.accept(batch, mono_ns());
        if (!s.ok()) {
          failure = s;
          break;
        }
      }
    }
  }
  // How the capture went, beside it in the store.
  if (failure.ok()) {
    fill(status, sources, rx);
    std::string names;
    for (const auto& src : sources) names += (names.empty() ? "" : " ") + src->name();
    const std::pair<const char*, std::string> meta[] = {
        {"receiver.sources", names},
        {"receiver.interrupted", status.interrupted ? "1" : "0"},
        {"receiver.packets", std::to_string(status.packets)},
        {"receiver.non_hmtt_packets", std::to_string(status.non_hmtt)},
        {"receiver.kernel_drops", std::to_string(status.kernel_drops)},
        {"receiver.board_clock_khz", std::to_string(rx.clock_khz())},
    };
    for (const auto& [k, v] : meta) {
      Status s = rx.sink().set_meta(k, v);
      if (!s.ok()) {
        failure = s;
        break;
      }
    }
  }
  Status fin = rx.finish();
  if (!failure.ok()) return failure.error();
  if (!fin.ok()) return fin.error();
  status.elapsed_s = static_cast<double>(mono_ns() - start) / 1e9;
  fill(status, sources, rx);
  return status;
}

}  // namespace hmtt::host
