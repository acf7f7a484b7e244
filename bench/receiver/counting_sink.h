// A capture sink that only counts: the receiver's own cost without the store.
#pragma once

#include "hmtt/host/capture_sink.h"

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

}  // namespace hmtt::bench
