// Where a capture goes: the merged references plus the side tables of the
// trace store (events, board reports, per-link statistics).
//
// StoreCaptureSink (store_sink.h) writes a trace store through StoreWriter;
// MemoryCaptureSink keeps everything in memory for tests and tools.
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "hmtt/result.h"
#include "hmtt/store/store.h"
#include "hmtt/stream.h"

namespace hmtt::host {

class CaptureSink : public ReferenceSink {
 public:
  virtual Status add_events(std::span<const store::Event> events) = 0;
  virtual Status add_reports(std::span<const store::Report> reports) = 0;
  virtual Status set_link_stats(std::span<const store::LinkStats> links) = 0;
  // Capture facts (the store's `meta` table; keys `receiver.*`).
  virtual Status set_meta(const std::string& key, const std::string& value) = 0;
};

class MemoryCaptureSink final : public CaptureSink {
 public:
  Status write(std::span<const Reference> refs) override {
    refs_.insert(refs_.end(), refs.begin(), refs.end());
    return Status::success();
  }
  Status finish() override {
    finished_ = true;
    return Status::success();
  }
  Status add_events(std::span<const store::Event> e) override {
    events_.insert(events_.end(), e.begin(), e.end());
    return Status::success();
  }
  Status add_reports(std::span<const store::Report> r) override {
    reports_.insert(reports_.end(), r.begin(), r.end());
    return Status::success();
  }
  Status set_link_stats(std::span<const store::LinkStats> l) override {
    links_.assign(l.begin(), l.end());
    return Status::success();
  }
  Status set_meta(const std::string& key, const std::string& value) override {
    meta_[key] = value;
    return Status::success();
  }
  const std::map<std::string, std::string>& meta() const { return meta_; }

  const std::vector<Reference>& references() const { return refs_; }
  const std::vector<store::Event>& events() const { return events_; }
  const std::vector<store::Report>& reports() const { return reports_; }
  const std::vector<store::LinkStats>& links() const { return links_; }
  bool finished() const { return finished_; }

 private:
  std::vector<Reference> refs_;
  std::vector<store::Event> events_;
  std::vector<store::Report> reports_;
  std::vector<store::LinkStats> links_;
  std::map<std::string, std::string> meta_;
  bool finished_ = false;
};

}  // namespace hmtt::host
