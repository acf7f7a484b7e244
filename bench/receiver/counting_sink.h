// The receiver benches' sinks: one that only counts (the receiver's own cost without the store),
// and BenchSink, that or a store.
#pragma once

#include <memory>
#include <string>

#include "hmtt/host/capture_sink.h"
#if HMTT_HOST_HAS_STORE
#include "hmtt/host/store_sink.h"
#endif

namespace hmtt::bench {

class CountingSink final : public host::CaptureSink {
 public:
  Status write(std::span<const Reference> refs) override {
    n += refs.size();
    if (!refs.empty()) last ^= refs.back().address;
    return Status::success();
  }
  Status finish() override { return Status::success(); }
  Status add_events(std::span<const store::Event>) override { return Status::success(); }
  Status add_reports(std::span<const store::Report>) override { return Status::success(); }
  Status set_link_stats(std::span<const store::LinkStats>) override { return Status::success(); }
  Status set_meta(const std::string&, const std::string&) override { return Status::success(); }
  std::uint64_t n = 0, last = 0;
};

// A CountingSink, or after open() with a path, a new store there with a board capture's
// metadata (5 ns ticks), replacing any file of that name; `sync` is WriterOptions::sync.
class BenchSink {
 public:
  Status open(const std::string& store_path, bool sync = true) {
    if (store_path.empty()) return Status::success();
#if HMTT_HOST_HAS_STORE
    store::CaptureInfo info;
    info.tick_ps = 5000;
    info.source = "board";
    store::WriterOptions wo;
    wo.overwrite = true;
    wo.sync = sync;
    auto s = host::StoreCaptureSink::create(store_path, info, wo);
    if (!s) return s.error();
    store_ = std::move(*s);
    return Status::success();
#else
    return make_error(store_path + ": this build's host library has no trace store");
#endif
  }
  host::CaptureSink& get() {
#if HMTT_HOST_HAS_STORE
    if (store_) return *store_;
#endif
    return counting_;
  }

 private:
  CountingSink counting_;
#if HMTT_HOST_HAS_STORE
  std::unique_ptr<host::StoreCaptureSink> store_;
#endif
};

}  // namespace hmtt::bench
