// A capture into the trace store (docs/store.md) through StoreWriter: the
// references chunk by chunk, events, board reports and per-link statistics.
#pragma once

#include <memory>
#include <string>

#include "hmtt/host/capture_sink.h"
#include "hmtt/store/store.h"

namespace hmtt::host {

class StoreCaptureSink final : public CaptureSink {
 public:
  static Result<std::unique_ptr<StoreCaptureSink>> create(const std::string& path, const store::CaptureInfo& info,
                                                          const store::WriterOptions& options = {});
  Status write(std::span<const Reference> refs) override { return writer_->write(refs); }
  Status finish() override { return writer_->finish(); }
  Status add_events(std::span<const store::Event> events) override { return writer_->add_events(events); }
  Status add_reports(std::span<const store::Report> reports) override { return writer_->add_reports(reports); }
  Status set_link_stats(std::span<const store::LinkStats> links) override { return writer_->set_link_stats(links); }
  Status set_meta(const std::string& key, const std::string& value) override { return writer_->set_meta(key, value); }
  store::StoreWriter& writer() { return *writer_; }

 private:
  explicit StoreCaptureSink(std::unique_ptr<store::StoreWriter> w) : writer_(std::move(w)) {}
  std::unique_ptr<store::StoreWriter> writer_;
};

}  // namespace hmtt::host
